"""Syncthing beside the agent: two Syncthing instances on this machine share one folder over
127.0.0.1 (no discovery, relays or NAT), and the same latency is measured as for docver's
agents: from the last write of a document in A to its contents in B."""

import json
import os
import random
import re
import shutil
import socket
import subprocess
import time
import urllib.request
import xml.etree.ElementTree as ElementTree

from .arrivals import arrivals


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Instance:
    """One Syncthing with its own home, GUI/REST port and listening port."""

    def __init__(self, home, folder):
        self.home, self.folder = home, folder
        self.gui_port, self.listen_port = free_port(), free_port()
        self.api_key = f"bench-{random.getrandbits(64):016x}"
        os.makedirs(folder, exist_ok=True)
        output = subprocess.run(["syncthing", "generate", f"--home={home}", "--no-default-folder",
                                 "--skip-port-probing"], capture_output=True, text=True, check=True)
        found = re.search(r"Device ID: ([A-Z0-9-]+)", output.stdout + output.stderr)
        if not found:
            raise RuntimeError(f"syncthing generate printed no device id: {output.stdout}{output.stderr}")
        self.device_id = found.group(1)
        self.process = None

    def configure(self, peer, watcher_delay):
        path = os.path.join(self.home, "config.xml")
        tree = ElementTree.parse(path)
        root = tree.getroot()
        gui = root.find("gui")
        gui.find("address").text = f"127.0.0.1:{self.gui_port}"
        (gui.find("apikey") if gui.find("apikey") is not None else ElementTree.SubElement(gui, "apikey")).text = self.api_key
        options = root.find("options")
        settings = {"listenAddress": f"tcp://127.0.0.1:{self.listen_port}", "globalAnnounceEnabled": "false",
                    "localAnnounceEnabled": "false", "relaysEnabled": "false", "natEnabled": "false",
                    "urAccepted": "-1", "autoUpgradeIntervalH": "0", "startBrowser": "false",
                    "crashReportingEnabled": "false"}
        for name, value in settings.items():
            for element in options.findall(name):
                options.remove(element)
            ElementTree.SubElement(options, name).text = value
        device = ElementTree.SubElement(root, "device", {"id": peer.device_id, "name": "peer", "compression": "metadata",
                                                          "introducer": "false"})
        ElementTree.SubElement(device, "address").text = f"tcp://127.0.0.1:{peer.listen_port}"
        folder = ElementTree.Element("folder", {"id": "bench", "label": "bench", "path": self.folder,
                                                "type": "sendreceive", "rescanIntervalS": "3600",
                                                "fsWatcherEnabled": "true", "fsWatcherDelayS": str(watcher_delay)})
        ElementTree.SubElement(folder, "device", {"id": self.device_id})
        ElementTree.SubElement(folder, "device", {"id": peer.device_id})
        root.insert(0, folder)
        tree.write(path)

    def start(self):
        log = open(os.path.join(self.home, "syncthing.log"), "w")
        self.process = subprocess.Popen(["syncthing", "serve", f"--home={self.home}", "--no-browser", "--no-restart",
                                         "--logflags=0"], stdout=log, stderr=subprocess.STDOUT,
                                        env={**os.environ, "STNOUPGRADE": "1"})

    def rest(self, path):
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui_port}{path}", headers={"X-API-Key": self.api_key})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)

    def wait(self, what, condition, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if condition():
                    return
            except OSError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(f"syncthing in {self.home} exited; see its syncthing.log")
            time.sleep(0.1)
        raise RuntimeError(f"syncthing in {self.home}: {what} within {timeout} s did not happen")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()


def latency(work, edits, watcher_delay):
    """Seconds from the last write of a document in A's folder to its contents in B's, with
    Syncthing's file watcher delay `watcher_delay` (whole seconds, at least 1)."""
    shutil.rmtree(work, ignore_errors=True)
    a = Instance(os.path.join(work, "a-home"), os.path.join(work, "a"))
    b = Instance(os.path.join(work, "b-home"), os.path.join(work, "b"))
    a.configure(b, watcher_delay)
    b.configure(a, watcher_delay)
    try:
        for instance in (a, b):
            instance.start()
        for instance, peer in ((a, b), (b, a)):
            instance.wait("connect to the other", lambda: instance.rest("/rest/system/connections")["connections"]
                          .get(peer.device_id, {}).get("connected"))
            instance.wait("scan the folder", lambda: instance.rest("/rest/db/status?folder=bench")["state"] == "idle")
        return arrivals(a.folder, b.folder, edits, watcher_delay)
    finally:
        a.stop()
        b.stop()
