"""The sync agent (issue 13): how long does a write take to reach the other device, and what
does an idle agent cost, now and after an hour (issue 29)? Run through
`python3 Benchmarks/bench_agent.py`; figures go to docs/PERFORMANCE.md (the goals table) and
Benchmarks/NOTES.md by hand."""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import time

from .arrivals import arrivals
from .commands import log, run

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def memory_mb(pid):
    """(current RSS, peak RSS) in MB."""
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(value.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class Agent:
    """`docver agent --json` in the foreground, events to a log file."""

    def __init__(self, docver, container, arguments):
        self.log_path = container + ".agent.log"
        self.log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen([docver, "-C", container, "agent", "--json"] + arguments,
                                        stdout=self.log_file, stderr=subprocess.STDOUT)
        self.wait_for("started")

    def events(self):
        with open(self.log_path) as handle:
            return [json.loads(line) for line in handle if line.startswith("{")]

    def wait_for(self, name, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if any(event["event"] == name for event in self.events()):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the agent exited: {open(self.log_path).read()[-2000:]}")
            time.sleep(0.05)
        raise RuntimeError(f"no '{name}' event within {timeout} s")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log_file.close()


def make_devices(docver, work, documents):
    """A container with `documents` documents of ~2 KB in 100-document folders, saved and
    pushed to a bare remote, and a second device cloned from it."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    remote = os.path.join(work, "remote.git")
    alice = os.path.join(work, "alice")
    bob = os.path.join(work, "bob")
    run(["git", "init", "-q", "--bare", remote])
    run([docver, "init", alice, "--device", "alice"])
    rng = random.Random(1)
    for index in range(documents):
        folder = os.path.join(alice, f"d{index // 1000:02d}", f"d{(index // 100) % 10:02d}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"doc{index:05d}.txt"), "w") as handle:
            handle.write("".join(rng.choice("abcdefghij \n") for _ in range(2000)))
    start = time.time()
    run([docver, "-C", alice, "save", "-m", "First documents"])
    log(f"saved {documents} documents in {time.time() - start:.1f} s")
    run([docver, "-C", alice, "remote", "add", "origin", remote])
    run([docver, "-C", alice, "sync"])
    run([docver, "clone", remote, bob, "--device", "bob"])
    return alice, bob


def latency(docver, alice, bob, edits, quiet_delay, poll_interval):
    """Seconds from the last write of a document in A to its contents in B's working tree
    (``arrivals``)."""
    arguments = ["--quiet-delay", str(quiet_delay), "--poll-interval", str(poll_interval)]
    agents = [Agent(docver, alice, arguments), Agent(docver, bob, arguments)]
    try:
        return arrivals(alice, bob, edits, quiet_delay)
    finally:
        for agent in agents:
            agent.stop()


def idle(docver, container, settle, window):
    """CPU share and memory of an agent with default settings left alone on `container`."""
    agent = Agent(docver, container, [])
    try:
        time.sleep(settle)
        pid = agent.process.pid
        before = cpu_seconds(pid)
        time.sleep(window)
        used = cpu_seconds(pid) - before
        rss, peak = memory_mb(pid)
        folders = next(event["folders"] for event in agent.events() if event["event"] == "started")
        return {"cpu_percent": 100 * used / window, "rss_mb": rss, "peak_rss_mb": peak, "folders": folders,
                "window_s": window}
    finally:
        agent.stop()


def agent_status(container, timeout=5):
    """The running agent's status, asked over its socket (docs/AGENT.md), or None."""
    path = os.path.join(container, ".git", "docver", "agent.sock")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout)
            client.connect(path)
            client.sendall(b"status\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = client.recv(65536)
                if not chunk:
                    break
                data += chunk
        return json.loads(data)
    except (OSError, ValueError):
        return None


def soak(docver, container, seconds, interval, poll_interval=None):
    """RSS over time of an agent left alone on `container` for `seconds` (with the default
    settings unless `poll_interval` is given), sampled every `interval` seconds, with the
    number of syncs (polls) it had made at each sample."""
    arguments = [] if poll_interval is None else ["--poll-interval", str(poll_interval)]
    agent = Agent(docver, container, arguments)
    try:
        pid = agent.process.pid
        start = time.time()
        samples = []
        while True:
            elapsed = time.time() - start
            rss, peak = memory_mb(pid)
            syncs = (agent_status(container) or {}).get("syncs")
            samples.append({"seconds": round(elapsed, 1), "rss_mb": round(rss, 2), "syncs": syncs})
            log(f"soak {elapsed:7.0f} s: RSS {rss:6.1f} MB, {syncs} syncs")
            if elapsed >= seconds:
                break
            time.sleep(min(interval, seconds - elapsed))
    finally:
        agent.stop()

    # The first sample from one minute on (the agent's caches are warm by then); a shorter run has none.
    warm = next((sample for sample in samples if sample["seconds"] >= 60), None)
    end = samples[-1]
    hours = (end["seconds"] - warm["seconds"]) / 3600 if warm else 0
    return {"seconds": seconds, "poll_interval_s": poll_interval or 10, "interval_s": interval,
            "rss_start_mb": samples[0]["rss_mb"], "rss_after_1_min_mb": warm and warm["rss_mb"],
            "rss_end_mb": end["rss_mb"],
            "growth_after_1_min_mb": round(end["rss_mb"] - warm["rss_mb"], 2) if warm else None,
            "growth_mb_per_hour": round((end["rss_mb"] - warm["rss_mb"]) / hours, 2) if hours > 0 else None,
            "peak_rss_mb": round(peak, 2), "syncs": samples[-1]["syncs"], "samples": samples}


def status_with_agent(docver, container, reps):
    """`docver status` with an agent running (3 documents modified, kept unsaved by a long
    quiet delay), against `git status --porcelain` and `docver status` without the agent."""
    from .commands import timed
    for index in (1, 2, 3):
        path = os.path.join(container, "d00", "d00", f"doc{index:05d}.txt")
        with open(path, "a") as handle:
            handle.write(f"modified {time.time()}\n")
    run(["git", "-C", container, "status", "--porcelain"])  # settle the index for both
    without = [timed([[docver, "-C", container, "status"]], container).seconds for _ in range(reps)]
    agent = Agent(docver, container, ["--quiet-delay", "1000000"])
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            answer = run([docver, "-C", container, "agent", "status", "--json"])
            if json.loads(answer).get("answering"):
                break
            time.sleep(0.2)
        time.sleep(2)  # the agent computes its status once the tree is quiet
        expected = run(["git", "-C", container, "status", "--porcelain"])
        assert expected.count("\n") == 3, expected
        docver_samples, git_samples = [], []
        for _ in range(reps):
            docver_samples.append(timed([[docver, "-C", container, "status"]], container).seconds)
            git_samples.append(timed([["git", "-C", container, "status", "--porcelain"]], container).seconds)
        served = run([docver, "-C", container, "status", "--json"])
    finally:
        agent.stop()
    direct = run([docver, "-C", container, "status", "--json"])
    return {"reps": reps, "served_equals_direct": served == direct,
            "docver_with_agent_ms": 1000 * statistics.median(docver_samples),
            "docver_without_agent_ms": 1000 * statistics.median(without),
            "git_status_porcelain_ms": 1000 * statistics.median(git_samples),
            "ratio": statistics.median(docver_samples) / statistics.median(git_samples)}


def listings_with_agent(docver, alice, bob, reps, contested=100):
    """`docver ls` and `docver conflicts` with an agent running (served) and without it,
    after `contested` documents were edited on both devices (so `conflicts` has work), against
    `git ls-tree -r -l HEAD`. Each served output must equal the direct one."""
    from .commands import timed
    for index in range(contested):
        for device, text in ((bob, "bob"), (alice, "alice")):
            path = os.path.join(device, f"d{index // 1000:02d}", f"d{(index // 100) % 10:02d}", f"doc{index:05d}.txt")
            with open(path, "a") as handle:
                handle.write(f"{text} {time.time()}\n")
    run([docver, "-C", bob, "save", "-m", "Bob's edits"])
    run([docver, "-C", bob, "sync"])
    run([docver, "-C", alice, "save", "-m", "Alice's edits"])
    run([docver, "-C", alice, "sync"])
    commands = {"ls": [docver, "-C", alice, "ls"], "conflicts": [docver, "-C", alice, "conflicts"]}
    direct = {name: run(command) for name, command in commands.items()}  # also warms the caches
    without = {name: [timed([command], alice).seconds for _ in range(reps)] for name, command in commands.items()}
    git_samples = [timed([["git", "-C", alice, "ls-tree", "-r", "-l", "HEAD"]], alice).seconds for _ in range(reps)]
    agent = Agent(docver, alice, ["--quiet-delay", "1000000", "--poll-interval", "1000000"])
    try:
        for name, command in commands.items():
            run(command)  # a miss: the agent computes its answer for the next request
        time.sleep(3)
        served = {name: run(command) for name, command in commands.items()}
        with_agent = {name: [timed([command], alice).seconds for _ in range(reps)] for name, command in commands.items()}
    finally:
        agent.stop()
    result = {"reps": reps, "contested_documents": contested,
              "git_ls_tree_ms": 1000 * statistics.median(git_samples)}
    for name in commands:
        result[name] = {"served_equals_direct": served[name] == direct[name],
                        "with_agent_ms": 1000 * statistics.median(with_agent[name]),
                        "without_agent_ms": 1000 * statistics.median(without[name])}
    result["ls"]["ratio_to_git_ls_tree"] = statistics.median(with_agent["ls"]) / statistics.median(git_samples)
    result["conflicts"]["lines"] = direct["conflicts"].count("\n")
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description="Benchmark the docver sync agent.")
    parser.add_argument("--docver", required=True, help="the docver binary (a release build)")
    parser.add_argument("--work", default="/tmp/docver-agent-bench")
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--quiet-delay", type=float, default=0.5)
    parser.add_argument("--poll-interval", type=float, default=1.0)
    parser.add_argument("--idle-settle", type=float, default=20)
    parser.add_argument("--idle-window", type=float, default=60)
    parser.add_argument("--status-reps", type=int, default=21)
    parser.add_argument("--soak-seconds", type=float, default=3600,
                        help="how long the soak case watches an idle agent's RSS (default: one hour)")
    parser.add_argument("--soak-interval", type=float, default=10, help="seconds between RSS samples")
    parser.add_argument("--soak-poll-interval", type=float, default=None,
                        help="the soak agent's --poll-interval (default: the agent's own, 10 s)")
    parser.add_argument("--cases", default="idle,soak,latency,status,listings",
                        help="comma-separated: idle, soak, latency, syncthing, status, listings")
    parser.add_argument("--reuse", action="store_true", help="reuse the devices already in --work")
    options = parser.parse_args(argv)
    docver = os.path.abspath(options.docver)
    cases = set(options.cases.split(","))
    if options.reuse:
        alice, bob = os.path.join(options.work, "alice"), os.path.join(options.work, "bob")
    else:
        alice, bob = make_devices(docver, options.work, options.documents)
    result = {"documents": options.documents}
    samples = []
    if "idle" in cases:
        log(f"idle agent on {options.documents} documents for {options.idle_window} s")
        result["idle"] = idle(docver, alice, options.idle_settle, options.idle_window)
    if "soak" in cases:
        log(f"RSS of an idle agent on {options.documents} documents over {options.soak_seconds} s")
        result["soak"] = soak(docver, alice, options.soak_seconds, options.soak_interval, options.soak_poll_interval)
    if "latency" in cases:
        log(f"latency over {options.edits} edits")
        samples = latency(docver, alice, bob, options.edits, options.quiet_delay, options.poll_interval)
        result["latency"] = {"edits": len(samples), "quiet_delay_s": options.quiet_delay,
                             "poll_interval_s": options.poll_interval,
                             "median_s": statistics.median(samples), "p95_s": percentile(samples, 0.95),
                             "min_s": min(samples), "max_s": max(samples)}
    if "syncthing" in cases:
        # The same latency with two Syncthing instances on this machine, their file watcher
        # delay set to the quiet delay (Syncthing counts it in whole seconds, at least 1).
        delay = max(1, round(options.quiet_delay))
        log(f"Syncthing latency over {options.edits} edits, watcher delay {delay} s")
        from docverbench import syncthing
        peer = syncthing.latency(os.path.join(options.work, "syncthing"), options.edits, delay)
        result["syncthing_latency"] = {"edits": len(peer), "watcher_delay_s": delay,
                                       "median_s": statistics.median(peer), "p95_s": percentile(peer, 0.95),
                                       "min_s": min(peer), "max_s": max(peer)}
    if "status" in cases:
        log("status with the agent running")
        result["status"] = status_with_agent(docver, alice, options.status_reps)
    if "listings" in cases:
        log("ls and conflicts with the agent running")
        result["listings"] = listings_with_agent(docver, alice, bob, options.status_reps)
    result["load_average"] = os.getloadavg()
    print(json.dumps(result, indent=2))
    with open(os.path.join(options.work, "agent-results.json"), "w") as handle:
        json.dump({"result": result, "samples": samples}, handle, indent=2)
    return 0
