#!/usr/bin/env python3
"""docver benchmark, wide folders (issue 26): one pushed commit adds a folder of N one-line
files; the receiving device's `docver sync` against plain git's fetch and checkout of the same
commit. See Benchmarks/README.md.

    python3 Benchmarks/wide_folder.py --docver .build/release/docver [--sizes 20000,60000,200000]
"""

import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from docverbench.cli import size_script_parser


def run(command, cwd=None, stdin=None, env=None):
    result = subprocess.run(command, cwd=cwd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(map(str, command)), result.stderr.decode(errors="replace")))
    return result.stdout.decode()


def timed(command, cwd=None, timeout=None):
    """Wall, user and system seconds of one child process (and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(map(str, command)), result.stderr.decode(errors="replace")))
    return {"wall": wall, "user": after.ru_utime - before.ru_utime, "sys": after.ru_stime - before.ru_stime}


def prepare(work, docver, count, diverged=False):
    """A bare remote; alice (docver) and a plain git clone both up to date with it; bob's push
    of one commit adding `wide/` with `count` files, made with git fast-import."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    remote, alice, bob, plain = work / "remote.git", work / "alice", work / "bob", work / "git"
    run(["git", "init", "-q", "--bare", str(remote)])
    run([docver, "init", str(alice), "--device", "alice", "--device-name", "Alice"])
    (alice / "a.txt").write_text("alice\n")
    run([docver, "-C", str(alice), "remote", "add", "origin", str(remote)])
    run([docver, "-C", str(alice), "sync"])
    run([docver, "clone", str(remote), str(bob), "--device", "bob", "--device-name", "Bob"])
    (bob / "b.txt").write_text("bob\n")
    run([docver, "-C", str(bob), "sync"])
    run([docver, "-C", str(alice), "sync"])
    run(["git", "clone", "-q", "--no-local", "-b", "docver/bob", str(remote), str(plain)])
    for repository in (alice, plain):
        run(["git", "config", "gc.auto", "0"], cwd=repository)
    # Bob's commit: his tip plus wide/f0.txt ... wide/f<count-1>.txt, pushed with git.
    tip = run(["git", "rev-parse", "refs/heads/docver/bob"], cwd=bob).strip()
    lines = ["commit refs/heads/docver/bob",
             "committer Bob <bob@example.com> %d +0000" % int(time.time()),
             "data 10", "wide save", "from %s" % tip]
    for index in range(count):
        text = "%d\n" % index
        lines += ["M 100644 inline wide/f%d.txt" % index, "data %d" % len(text), text]
    run(["git", "fast-import", "--quiet"], cwd=bob, stdin=("\n".join(lines) + "\n").encode())
    run(["git", "push", "-q", "origin", "refs/heads/docver/bob"], cwd=bob)
    if diverged:
        # Alice's own unsynced edit: her sync integrates bob's save instead of taking it as is.
        (alice / "c.txt").write_text("alice, offline\n")
    return alice, plain


def measure(work, docver, count, timeout, diverged):
    alice, plain = prepare(work, docver, count, diverged)
    fetch = timed(["git", "fetch", "-q", "origin"], cwd=plain)
    checkout = timed(["git", "merge", "-q", "--ff-only", "origin/docver/bob"], cwd=plain)
    sync = timed([docver, "-C", str(alice), "sync"], timeout=timeout)
    row = {"entries": count, "git_fetch": fetch, "git_checkout": checkout, "docver_sync": sync}
    if sync is not None:
        files = len(os.listdir(alice / "wide"))
        if files != count:
            sys.exit("alice has %d of the %d files in wide/" % (files, count))
    return row


def exponent(rows, key, field):
    points = [(row["entries"], row[key][field] if field != "cpu" else row[key]["user"] + row[key]["sys"])
              for row in rows if row[key] is not None]
    if len(points) < 2:
        return None
    (n0, t0), (n1, t1) = points[0], points[-1]
    return math.log(t1 / t0) / math.log(n1 / n0) if t0 > 0 and t1 > 0 else None


def main():
    parser = size_script_parser(__doc__.splitlines()[0], "20000,60000,200000", "entries in the pushed folder", "wide")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a sync counts as not finished")
    parser.add_argument("--diverged", action="store_true",
                        help="alice also has an unsynced edit, so her sync integrates bob's save")
    parser.add_argument("--prepare-only", action="store_true",
                        help="only prepare each size's devices (alice still to sync) and keep them, to profile by hand")
    arguments = parser.parse_args()
    docver = str(Path(arguments.docver).resolve())
    rows = []
    print("| entries | docver sync wall | CPU (user + sys) | git fetch + checkout wall | CPU |")
    print("|---:|---:|---:|---:|---:|")
    for count in [int(size) for size in arguments.sizes.split(",")]:
        if arguments.prepare_only:
            alice, _ = prepare(Path(arguments.work) / str(count), docver, count, arguments.diverged)
            print("prepared: %s (then: %s -C %s sync)" % (alice, docver, alice))
            continue
        row = measure(Path(arguments.work) / str(count), docver, count, arguments.timeout, arguments.diverged)
        rows.append(row)
        sync, fetch, checkout = row["docver_sync"], row["git_fetch"], row["git_checkout"]
        git_wall = fetch["wall"] + checkout["wall"]
        git_cpu = fetch["user"] + fetch["sys"] + checkout["user"] + checkout["sys"]
        docver_text = ("%.2f s | %.2f + %.2f s" % (sync["wall"], sync["user"], sync["sys"])) if sync else \
            "not finished in %.0f s | " % arguments.timeout
        print("| %d | %s | %.2f s | %.2f s |" % (count, docver_text, git_wall, git_cpu), flush=True)
    for key, name in [("docver_sync", "docver sync"), ("git_checkout", "git checkout")]:
        wall, cpu = exponent(rows, key, "wall"), exponent(rows, key, "cpu")
        if wall is not None:
            print("%s: exponent %.2f (wall), %.2f (CPU) from %d to %d entries"
                  % (name, wall, cpu, rows[0]["entries"], rows[-1]["entries"]))
    if arguments.prepare_only:
        return
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(rows, indent=2) + "\n")
    shutil.rmtree(arguments.work, ignore_errors=True)


if __name__ == "__main__":
    main()
