#!/usr/bin/env python3
"""`docver status` and `docver conflicts` with a running agent (the CLI's shortcut) against
`git status --porcelain`, in paired rounds: each round runs every command once in turn, so
load that comes and goes weighs on all of them alike. Start an agent on the container first
(for instance `docver -C C agent --quiet-delay 1000000 --poll-interval 1000000 &` on the
`alice` that `bench_agent.py` leaves in its --work folder). Benchmarks/NOTES.md, "the sync agent"."""

import argparse
import os
import statistics
import subprocess
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docver", required=True, help="the docver binary (a release build)")
    parser.add_argument("--container", required=True)
    parser.add_argument("--reps", type=int, default=61)
    parser.add_argument("--warmup", type=int, default=3)
    options = parser.parse_args()
    docver, container = options.docver, options.container
    commands = {
        "docver status": [docver, "-C", container, "status"],
        "git status --porcelain": ["git", "-C", container, "status", "--porcelain"],
        "docver conflicts": [docver, "-C", container, "conflicts"],
        "docver status --json": [docver, "-C", container, "status", "--json"],
        "docver conflicts --json": [docver, "-C", container, "conflicts", "--json"],
        "docver --version": [docver, "--version"],
        # `--color auto` is the default but not a plain form: the normal path.
        "docver status (normal path)": [docver, "-C", container, "--color", "auto", "status"],
        "docver conflicts (normal path)": [docver, "-C", container, "--color", "auto", "conflicts"],
    }
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    for _ in range(options.warmup):
        for command in commands.values():
            subprocess.run(command, **quiet)
    samples = {name: [] for name in commands}
    load = [os.getloadavg()[0]]
    for round_ in range(options.reps):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, **quiet)
            samples[name].append(time.perf_counter() - start)
        if round_ % 10 == 0:
            load.append(os.getloadavg()[0])
    load.append(os.getloadavg()[0])
    for name, values in samples.items():
        values.sort()
        print("%-32s median %5.1f ms  p10 %5.1f  p90 %5.1f" % (
            name, 1000 * statistics.median(values), 1000 * values[len(values) // 10], 1000 * values[len(values) * 9 // 10]))
    ratio = statistics.median(samples["docver status"]) / statistics.median(samples["git status --porcelain"])
    print("docver status / git status --porcelain (medians): %.2f" % ratio)
    print("load average (1 min) during the run: %.1f-%.1f" % (min(load), max(load)))


if __name__ == "__main__":
    main()
