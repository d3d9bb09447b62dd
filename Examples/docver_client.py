#!/usr/bin/env python3
"""A small client of `docver serve` (docs/PROTOCOL.md), in Python 3's standard library only.

As a module: DocverClient starts `docver -C CONTAINER serve`, sends requests and collects the
notifications the server pushes.

    client = DocverClient("/home/alice/notes")
    client.request("initialize", clientName="my editor")
    for conflict in client.request("conflicts"):
        client.request("resolve", document=conflict["document"], strategy="latest-date")
    note = client.wait_for("conflictAppeared", timeout=60)
    client.close()

As a program: a conflict resolver that stays running. It resolves the conflicts already there
with a strategy, then each one that appears (a sync by anyone: the agent, another docver
process, another device's saves coming in), printing one line per event, until it has
resolved --count conflicts (0: until interrupted).

    python3 Examples/docver_client.py [--docver PATH] [--strategy latest-date|merge] [--count N] [--agent] CONTAINER

With --agent it talks to the agent running for the container over its socket, the same
protocol, instead of starting a server of its own.
"""

import argparse
import json
import os
import queue
import socket
import subprocess
import sys
import threading


class ProtocolError(Exception):
    """An error response: `code` (JSON-RPC's), `message`, and `data` (docver's code, message
    and hint) when docver refused or failed the operation."""

    def __init__(self, error):
        super().__init__(error.get("message", "error"))
        self.code = error.get("code")
        self.data = error.get("data")


class DocverClient:
    """A session: by default with a `docver serve` process of its own; with `agent=True`, over
    the socket of the agent running for the container (.git/docver/agent.sock), which several
    clients share."""

    def __init__(self, container, docver="docver", agent=False):
        self.process = None
        self.socket = None
        if agent:
            self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.socket.connect(os.path.join(container, ".git", "docver", "agent.sock"))
            self.input = self.socket.makefile("r", encoding="utf-8", newline="\n")
            self.output = self.socket.makefile("w", encoding="utf-8", newline="\n")
        else:
            self.process = subprocess.Popen(
                [docver, "-C", container, "serve"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
            self.input = self.process.stdout
            self.output = self.process.stdin
        self.responses = {}
        self.notifications = queue.Queue()
        self.answered = threading.Condition()
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        # One JSON object per line: a response (it has an id) or a notification (a method).
        for line in self.input:
            message = json.loads(line)
            if "method" in message:
                self.notifications.put(message)
            else:
                with self.answered:
                    self.responses[message.get("id")] = message
                    self.answered.notify_all()
        with self.answered:
            self.responses[None] = {"error": {"code": -1, "message": "docver serve ended"}}
            self.answered.notify_all()

    def request(self, method, timeout=300, **params):
        """Sends a request and returns its result; raises ProtocolError for an error response."""
        request_id = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params:
            message["params"] = params
        self.output.write(json.dumps(message) + "\n")
        self.output.flush()
        with self.answered:
            if not self.answered.wait_for(lambda: request_id in self.responses or None in self.responses, timeout):
                raise TimeoutError(f"no answer to {method} within {timeout} s")
            response = self.responses.pop(request_id, None) or self.responses[None]
        if "error" in response:
            raise ProtocolError(response["error"])
        return response["result"]

    def wait_for(self, method=None, timeout=300):
        """The next notification (of `method`, skipping others), as {"method", "params"}."""
        while True:
            message = self.notifications.get(timeout=timeout)
            if method is None or message["method"] == method:
                return message

    def close(self):
        """Ends the session: the server (or the agent's session) ends after `shutdown`."""
        try:
            self.request("shutdown", timeout=60)
        finally:
            self.output.close()
            if self.socket:
                self.socket.close()
        if self.process:
            self.process.wait(timeout=60)
            return self.process.returncode
        return 0


def say(*words):
    print(*words, flush=True)


def main():
    parser = argparse.ArgumentParser(description="Resolve conflicts as they appear, through docver serve.")
    parser.add_argument("container")
    parser.add_argument("--docver", default="docver", help="the docver binary (default: docver on PATH)")
    parser.add_argument("--strategy", default="latest-date", choices=["latest-date", "merge"])
    parser.add_argument("--count", type=int, default=0, help="stop after resolving this many conflicts (0: never)")
    parser.add_argument("--agent", action="store_true", help="use the running agent's socket instead of docver serve")
    options = parser.parse_args()

    client = DocverClient(options.container, options.docver, agent=options.agent)
    hello = client.request("initialize", clientName="docver_client.py", protocolVersion="1.0")
    # From here on every change is pushed: a conflict that arrives now is not missed.
    say("ready", hello["protocolVersion"], hello["device"])
    resolved = 0

    def resolve(document):
        nonlocal resolved
        try:
            outcome = client.request("resolve", document=document, strategy=options.strategy)
            say("resolved", document, outcome["outcome"], outcome["save"])
            resolved += 1
        except ProtocolError as error:
            # Already resolved elsewhere, or not mergeable: say so and carry on.
            say("failed", document, (error.data or {}).get("code", error.code), error)

    for conflict in client.request("conflicts"):
        resolve(conflict["document"])
    while options.count == 0 or resolved < options.count:
        note = client.wait_for(timeout=None)
        params = note["params"]
        if note["method"] == "conflictAppeared":
            say("conflict", params["document"], " ".join(params["versions"]))
            resolve(params["document"])
        elif note["method"] == "conflictResolved":
            say("closed", params["document"], params["open"])
        elif note["method"] == "documentChanged":
            for change in params["documents"]:
                say("changed", change["document"], change["change"])
    return client.close()


if __name__ == "__main__":
    sys.exit(main())
