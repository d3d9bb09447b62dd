#!/usr/bin/env python3
"""docver benchmark, growth in documents (issue 28): first save, first sync, clone, status and
ls of a container of N documents, each against git's same job in the same run, with the
fitted growth exponent. See Benchmarks/README.md.

    python3 Benchmarks/growth.py --docver .build/release/docver [--sizes 1000,10000,100000]

Per N: N one-line documents in 10 folders. docver: `init`, `save`, `remote add` + `sync`
to a bare remote, `clone` of it, then `status` and `ls` in the clone. git: `init`, `add -A` +
`commit`, `push` to its own bare remote, `clone --no-local` of it, then `status --porcelain`
and `ls-tree -r -l HEAD` in the clone. Times are wall seconds of one run of each (the first
save, sync and clone happen once by nature); status and ls take the median of 5. Peak memory
is the child's maximum resident set (Linux `ru_maxrss`).
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from docverbench.cli import size_script_parser
from docverbench.commands import run
from docverbench.scale import fit_exponent

CASES = ["first save", "first sync", "clone", "status", "ls"]


def timed(command, cwd=None):
    """Wall seconds and peak RSS (MB) of one child process (run in its own wait, so the
    rusage is that child's alone)."""
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(map(str, command)), stderr))
    return wall, usage.ru_maxrss / 1024


def write_documents(folder, count):
    for index in range(count):
        sub = folder / ("d%d" % (index % 10))
        sub.mkdir(parents=True, exist_ok=True)
        (sub / ("f%d.txt" % index)).write_text("document %d\n" % index)


def median_of(command, cwd, repeats):
    samples = [timed(command, cwd) for _ in range(repeats)]
    return statistics.median(s[0] for s in samples), max(s[1] for s in samples)


def measure(work, docver, count, repeats):
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    rows = {}
    # docver
    alice, remote, bob = work / "alice", work / "docver-remote.git", work / "bob"
    run([docver, "init", str(alice), "--device", "alice", "--device-name", "Alice"])
    write_documents(alice, count)
    docver_save = timed([docver, "-C", str(alice), "save", "-m", "first"])
    run(["git", "init", "-q", "--bare", str(remote)])
    run([docver, "-C", str(alice), "remote", "add", "origin", str(remote)])
    docver_sync = timed([docver, "-C", str(alice), "sync"])
    docver_clone = timed([docver, "clone", str(remote), str(bob), "--device", "bob", "--device-name", "Bob"])
    docver_status = median_of([docver, "-C", str(bob), "status"], None, repeats)
    docver_ls = median_of([docver, "-C", str(bob), "ls"], None, repeats)
    # git, the same jobs
    plain, plain_remote, plain_clone = work / "git", work / "git-remote.git", work / "git-clone"
    run(["git", "init", "-q", "-b", "main", str(plain)])
    write_documents(plain, count)
    git_add = timed(["git", "add", "-A"], plain)
    git_commit = timed(["git", "commit", "-q", "-m", "first"], plain)
    run(["git", "init", "-q", "--bare", "-b", "main", str(plain_remote)])
    run(["git", "remote", "add", "origin", str(plain_remote)], plain)
    git_push = timed(["git", "push", "-q", "origin", "main"], plain)
    git_clone = timed(["git", "clone", "-q", "--no-local", str(plain_remote), str(plain_clone)])
    git_status = median_of(["git", "status", "--porcelain"], plain_clone, repeats)
    git_ls = median_of(["git", "ls-tree", "-r", "-l", "HEAD"], plain_clone, repeats)
    rows["first save"] = (docver_save, (git_add[0] + git_commit[0], max(git_add[1], git_commit[1])))
    rows["first sync"] = (docver_sync, git_push)
    rows["clone"] = (docver_clone, git_clone)
    rows["status"] = (docver_status, git_status)
    rows["ls"] = (docver_ls, git_ls)
    return rows


def main():
    parser = size_script_parser(__doc__.splitlines()[0], "1000,10000,100000", "documents", "growth")
    parser.add_argument("--repeats", type=int, default=5, help="runs of status and ls (the median is reported)")
    arguments = parser.parse_args()
    docver = str(Path(arguments.docver).resolve())
    sizes = [int(size) for size in arguments.sizes.split(",")]
    results = {}
    for count in sizes:
        results[count] = measure(Path(arguments.work) / str(count), docver, count, arguments.repeats)
        print("measured %d documents" % count, file=sys.stderr, flush=True)
    print("| job | N | docver | peak RSS | git | peak RSS | docver / git |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for case in CASES:
        for count in sizes:
            (dt, dm), (gt, gm) = results[count][case]
            print("| %s | %d | %.3f s | %.0f MB | %.3f s | %.0f MB | %.2f× |" % (case, count, dt, dm, gt, gm, dt / gt if gt else float("inf")))
    print()
    print("| job | docver exponent | git exponent |")
    print("|---|---:|---:|")
    for case in CASES:
        docver_exp = fit_exponent([(n, results[n][case][0][0]) for n in sizes]) if len(sizes) > 1 else None
        git_exp = fit_exponent([(n, results[n][case][1][0]) for n in sizes]) if len(sizes) > 1 else None
        print("| %s | %s | %s |" % (case, "%.2f" % docver_exp if docver_exp is not None else "-",
                                    "%.2f" % git_exp if git_exp is not None else "-"))
    # Removed at the end, not between sizes: ext4 creates files slowly for a while after a
    # large deletion (Benchmarks/NOTES.md, 2026-11-27, wide folders under 20 s).
    shutil.rmtree(arguments.work, ignore_errors=True)
    if arguments.json:
        Path(arguments.json).write_text(json.dumps({str(n): {case: {"docver": list(r[case][0]), "git": list(r[case][1])}
                                                             for case in CASES} for n, r in results.items()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
