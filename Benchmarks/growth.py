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

Then, per K of 1, 10 and 100, K documents are edited on the first device: docver sends them
with `sync` (which saves first), git with `commit -qam` + `push` ("send K"); the clone takes
them with `sync`, git's clone with `pull --ff-only` ("receive K"); the median of 3 rounds,
each editing the K documents again. And the size of `.git`
after the first save (disk usage, once the background packing that both start, git's
`gc --auto`, has finished), against git's after its first commit.
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

CHANGED = [1, 10, 100]
EDIT_ROUNDS = 3  # per K: the median of three edits sent and received
CASES = ["first save", "first sync", "clone", "status", "ls"] + [
    "%s %d" % (what, k) for k in CHANGED for what in ("send", "receive")]


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


def edit_documents(folder, count, round_):
    for index in range(count):
        (folder / ("d%d" % (index % 10)) / ("f%d.txt" % index)).write_text("document %d, edit %d\n" % (index, round_))


def settled_git_size(git_directory, timeout=300):
    """Disk usage (MB) of a `.git` once the `git gc --auto` that the last command may have
    started in the background is done: the loose objects of `objects/17` are under git's
    estimate of its threshold (6,700 / 256), or stopped changing, and no `gc.pid` is left."""
    deadline = time.monotonic() + timeout
    sample = git_directory / "objects" / "17"
    last, stable = None, 0
    while time.monotonic() < deadline:
        loose = len(os.listdir(sample)) if sample.exists() else 0
        stable = stable + 1 if loose == last else 0
        last = loose
        if not (git_directory / "gc.pid").exists() and (loose <= 27 or stable >= 20):
            break
        time.sleep(0.1)
    total = 0
    for base, _, names in os.walk(git_directory):
        for name in names:
            total += os.lstat(os.path.join(base, name)).st_blocks * 512
    return total / 1e6


def median_sample(samples):
    """The median time of (seconds, MB) samples, with the largest peak memory."""
    return statistics.median(s[0] for s in samples), max(s[1] for s in samples)


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
    docver_size = settled_git_size(alice / ".git")
    run(["git", "init", "-q", "--bare", str(remote)])
    run([docver, "-C", str(alice), "remote", "add", "origin", str(remote)])
    docver_sync = timed([docver, "-C", str(alice), "sync"])
    docver_clone = timed([docver, "clone", str(remote), str(bob), "--device", "bob", "--device-name", "Bob"])
    docver_status = median_of([docver, "-C", str(bob), "status"], None, repeats)
    docver_ls = median_of([docver, "-C", str(bob), "ls"], None, repeats)
    for k in CHANGED:
        sends, receives = [], []
        for round_ in range(EDIT_ROUNDS):
            edit_documents(alice, k, k * EDIT_ROUNDS + round_)
            sends.append(timed([docver, "-C", str(alice), "sync"]))
            receives.append(timed([docver, "-C", str(bob), "sync"]))
        rows["send %d" % k] = [median_sample(sends)]
        rows["receive %d" % k] = [median_sample(receives)]
    # git, the same jobs
    plain, plain_remote, plain_clone = work / "git", work / "git-remote.git", work / "git-clone"
    run(["git", "init", "-q", "-b", "main", str(plain)])
    write_documents(plain, count)
    git_add = timed(["git", "add", "-A"], plain)
    git_commit = timed(["git", "commit", "-q", "-m", "first"], plain)
    git_size = settled_git_size(plain / ".git")
    run(["git", "init", "-q", "--bare", "-b", "main", str(plain_remote)])
    run(["git", "remote", "add", "origin", str(plain_remote)], plain)
    git_push = timed(["git", "push", "-q", "origin", "main"], plain)
    git_clone = timed(["git", "clone", "-q", "--no-local", str(plain_remote), str(plain_clone)])
    git_status = median_of(["git", "status", "--porcelain"], plain_clone, repeats)
    git_ls = median_of(["git", "ls-tree", "-r", "-l", "HEAD"], plain_clone, repeats)
    for k in CHANGED:
        sends, receives = [], []
        for round_ in range(EDIT_ROUNDS):
            edit_documents(plain, k, k * EDIT_ROUNDS + round_)
            commit = timed(["git", "commit", "-qam", "edit %d" % round_], plain)
            push = timed(["git", "push", "-q", "origin", "main"], plain)
            sends.append((commit[0] + push[0], max(commit[1], push[1])))
            receives.append(timed(["git", "pull", "-q", "--ff-only"], plain_clone))
        rows["send %d" % k].append(median_sample(sends))
        rows["receive %d" % k].append(median_sample(receives))
    rows["first save"] = (docver_save, (git_add[0] + git_commit[0], max(git_add[1], git_commit[1])))
    rows["first sync"] = (docver_sync, git_push)
    rows["clone"] = (docver_clone, git_clone)
    rows["status"] = (docver_status, git_status)
    rows["ls"] = (docver_ls, git_ls)
    for k in CHANGED:
        rows["send %d" % k] = tuple(rows["send %d" % k])
        rows["receive %d" % k] = tuple(rows["receive %d" % k])
    rows[".git"] = (docver_size, git_size)
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
    print("| `.git` after the first save | N | docver | git | docver / git |")
    print("|---|---:|---:|---:|---:|")
    for count in sizes:
        ds, gs = results[count][".git"]
        print("| disk usage | %d | %.1f MB | %.1f MB | %.2f× |" % (count, ds, gs, ds / gs if gs else float("inf")))
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
        Path(arguments.json).write_text(json.dumps({str(n): dict({case: {"docver": list(r[case][0]), "git": list(r[case][1])}
                                                                  for case in CASES}, **{".git MB": {"docver": r[".git"][0], "git": r[".git"][1]}})
                                                    for n, r in results.items()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
