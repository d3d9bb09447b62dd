"""The scale cases of issue 12: a team's container (10,000 documents, 8 devices that diverged with
N offline saves each) joined by a new device with `docver clone`, against git's same job; then,
on the joined container, `ls`, `log DOC`, `versions DOC`, `conflicts` and the status of a copy
made with `cp -a`. Each case is timed with paired runs (docver, git, docver, git, ...) and the
join's growth in N is fitted as an exponent (time ~ N^k).

Run: python3 Benchmarks/scale.py --docver PATH [--sizes 50,200,800] [--huge] [--reps 3]
(`--huge` adds N = 2,500; `--reuse` keeps the remotes of an earlier run; `--join-only`; `--no-sync`
leaves out the join by `sync`; `--index-200k` adds the version index of the 200,000-save
container). Prints a Markdown table; `--json FILE` keeps every sample.

The join by `sync`: device 0 holds its own N offline saves (a container cloned from a remote
with only its branch), then syncs with the team's remote (a fresh copy per run, since the sync
pushes the integration): fetch 7 devices' branches, validate, integrate, check out, push.
Git's same job: `git fetch` of every branch into a clone that has device 0's, 7 ×
`git merge-tree --write-tree`, and the checkout of the last merged tree (`git read-tree -m -u`).
"""

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

DOCUMENTS = 10_000
DEVICES = 8
EPOCH = 1_672_531_200


def run(argv, cwd=None, check=True, input=None):
    result = subprocess.run(argv, cwd=cwd, input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and result.returncode != 0:
        raise RuntimeError(f"{argv} failed ({result.returncode}): {result.stderr.decode(errors='replace')}")
    return result


def timed(argv, cwd=None, ok=(0,)):
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode not in ok:
        raise RuntimeError(f"{argv} failed ({result.returncode}): {result.stderr.decode(errors='replace')[:500]}")
    return elapsed


def path_of(index):
    return f"d{index // 1000:02d}/d{(index // 100) % 10:02d}/doc{index:05d}.txt"


def generate_remote(remote, saves, seed=12):
    """A bare remote: one save adding every document (2 KB each), then each of 8 devices saves
    `saves` times on its own branch, 1-3 random documents per save."""
    if remote.exists():
        shutil.rmtree(remote)
    run(["git", "init", "-q", "--bare", str(remote)])
    rng = random.Random(seed)
    line = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(63)) + "\n"
    out = [b"feature done\n"]
    clock = EPOCH
    mark = 0

    def data(payload):
        return b"data %d\n" % len(payload) + payload + b"\n"

    def commit(ref, device, message, parent, files):
        nonlocal mark, clock
        mark += 1
        clock += 30
        identity = f"Device {device} <dev{device}@docver>"
        body = (f"commit {ref}\nmark :{mark}\nauthor {identity} {clock} +0000\n"
                f"committer {identity} {clock} +0000\n").encode()
        body += data(f"{message}\n\nDocver-Device: dev{device}\nDocver-Device-Name: Device {device}\n".encode())
        if parent:
            body += f"from :{parent}\n".encode()
        for path, content in files:
            body += f"M 100644 inline {path}\n".encode() + data(content)
        out.append(body)
        return mark

    root = commit("refs/heads/docver/dev0", 0, "Add documents", None,
                  [(path_of(d), (f"{d}\n" + line * 32).encode()) for d in range(DOCUMENTS)])
    for device in range(DEVICES):
        parent = root
        for save in range(saves):
            docs = rng.sample(range(DOCUMENTS), rng.randint(1, 3))
            files = [(path_of(d), (f"{d} by dev{device} save {save}\n" + line * 32).encode()) for d in docs]
            parent = commit(f"refs/heads/docver/dev{device}", device, f"Save {len(docs)} documents", parent, files)
    out.append(b"done\n")
    run(["git", "fast-import", "--quiet", "--done"], cwd=remote, input=b"".join(out))
    run(["git", "symbolic-ref", "HEAD", "refs/heads/docver/dev0"], cwd=remote)


def pairs(reps, a, b, prepare=None):
    """Runs a and b in turn `reps` times; returns their samples (seconds)."""
    sa, sb = [], []
    for rep in range(reps):
        for side, step, samples in (("docver", a, sa), ("git", b, sb)):
            if prepare:
                prepare(side)
            samples.append(step())
    return sa, sb


def fit_exponent(points):
    """Least-squares slope of log(time) against log(N)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def sync_join(docver, work, remote, n, reps):
    """Paired samples of the join by `sync` (see the module's description)."""
    from .containers import copy_container
    own = work / f"own-{n}.git"            # the team's remote as device 0 last saw it: its branch only
    template = work / f"sync-template-{n}"  # device 0's container with its N offline saves
    gittemplate = work / f"gitsync-template-{n}"
    team = work / f"team-{n}.git"           # a fresh copy of the team's remote per run
    dest, gitdest = work / f"sync-{n}", work / f"gitsync-{n}"
    for path in (own, template, gittemplate):
        if path.exists():
            shutil.rmtree(path)
    run(["git", "clone", "-q", "--bare", "--no-local", "--single-branch", "--branch", "docver/dev0", str(remote), str(own)])
    run([docver, "clone", str(own), str(template), "--device", "dev0"])
    run(["git", "config", "remote.origin.url", str(team)], cwd=template)
    run(["git", "clone", "-q", "--no-local", "--single-branch", "--branch", "docver/dev0", str(own), str(gittemplate)])
    run(["git", "config", "remote.origin.url", str(team)], cwd=gittemplate)
    run(["git", "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"], cwd=gittemplate)
    shutil.rmtree(own)

    def prepare(side):
        for path in (dest, gitdest, team):
            if path.exists():
                shutil.rmtree(path)
        run(["cp", "-a", str(remote), str(team)])
        run(["git", "update-ref", "-d", "refs/heads/docver/newdev"], cwd=team, check=False)
        # A copy with its index refreshed (git's, which docver's status reads too), so neither
        # side re-hashes 10,000 files because the copy has new inodes.
        copy_container(template if side == "docver" else gittemplate, dest if side == "docver" else gitdest)

    def docver_sync():
        return timed([docver, "-C", str(dest), "sync"])

    def git_sync():
        start = time.perf_counter()
        run(["git", "fetch", "-q", "origin"], cwd=gitdest)
        tree = None
        for device in range(1, DEVICES):
            result = run(["git", "merge-tree", "--write-tree", "HEAD", f"origin/docver/dev{device}"],
                         cwd=gitdest, check=False)
            tree = result.stdout.split(b"\n")[0].decode()
        run(["git", "read-tree", "-m", "-u", "HEAD", tree], cwd=gitdest)
        return time.perf_counter() - start

    return pairs(reps, docver_sync, git_sync, prepare)


def index_200k(docver, work, reuse):
    """The version index of bench.py's 200,000-save container (10,000 documents, 8 devices):
    its size, and the time to build it from scratch (`log -n 1 DOC` with the index deleted)."""
    from .containers import generate_container
    from .history import History
    path = work / "history-200000"
    history = History(10_000, 200_000, 8, 125, 100, seed=6)
    if not (reuse and path.exists()):
        start = time.perf_counter()
        generate_container(path, history)
        print(f"generated the 200,000-save container in {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
    index = path / ".git" / "docver" / "version-index"
    built = []
    for _ in range(2):
        if index.exists():
            index.unlink()
        built.append(timed([docver, "-C", str(path), "log", "-n", "1", history.log_document]))
    size = index.stat().st_size
    print(f"200,000 saves: version index {size:,} bytes, built in {', '.join(f'{t:.1f}' for t in built)} s",
          file=sys.stderr, flush=True)
    return size, built


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docver", required=True)
    parser.add_argument("--work", default=str(Path(__file__).resolve().parents[2] / "bench-work" / "scale"))
    parser.add_argument("--sizes", default="50,200,800")
    parser.add_argument("--huge", action="store_true", help="also N = 2,500")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--reuse", action="store_true", help="keep remotes generated by an earlier run")
    parser.add_argument("--join-only", action="store_true", help="only the join cases")
    parser.add_argument("--no-sync", action="store_true", help="leave out the join by sync")
    parser.add_argument("--index-200k", action="store_true",
                        help="also the version index of the 200,000-save container (size, build from scratch)")
    parser.add_argument("--index-only", action="store_true", help="only the 200,000-save index case")
    args = parser.parse_args()
    docver = str(Path(args.docver).resolve())
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")] + ([2500] if args.huge else [])
    rows, samples, join_points = [], {}, []

    def record(label, a, b, git_label, goal):
        ma, mb = statistics.median(a), statistics.median(b) if b else None
        samples[label] = {"docver": a, "git": b}
        ratio = f"{ma / mb:.2f}×" if mb else "—"
        rows.append(f"| {label} | {ma * 1000:,.0f} ms | {git_label}: {mb * 1000:,.0f} ms | {ratio} | {goal} |"
                    if mb else f"| {label} | {ma * 1000:,.1f} ms | — | — | {goal} |")
        print(rows[-1], flush=True)

    joined = None
    sync_points = []
    for n in ([] if args.index_only else sizes):
        remote = work / f"remote-{n}.git"
        start = time.perf_counter()
        if not (args.reuse and remote.exists()):
            generate_remote(remote, n)
        print(f"generated N={n} in {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
        dest = work / f"join-{n}"
        gitdest = work / f"gitjoin-{n}"

        def prepare(side):
            for d in (dest, gitdest):
                if d.exists():
                    shutil.rmtree(d)
            # The new device's clone pushed its integration: a later run would only fast-forward.
            run(["git", "update-ref", "-d", "refs/heads/docver/newdev"], cwd=remote, check=False)

        def docver_join():
            return timed([docver, "clone", str(remote), str(dest), "--device", "newdev"])

        def git_join():
            total = timed(["git", "clone", "-q", "--no-local", str(remote), str(gitdest)])
            start = time.perf_counter()
            for device in range(1, DEVICES):
                subprocess.run(["git", "merge-tree", "--write-tree", "origin/docver/dev0", f"origin/docver/dev{device}"],
                               cwd=gitdest, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return total + time.perf_counter() - start

        reps = args.reps if n <= 800 else 1
        a, b = pairs(reps, docver_join, git_join, prepare)
        join_points.append((n, statistics.median(a)))
        record(f"join 8 devices × {n} offline saves (clone)", a, b, "git clone --no-local + 7 × merge-tree", "≤ 1.0×")
        if not args.no_sync:
            a, b = sync_join(docver, work, remote, n, reps)
            sync_points.append((n, statistics.median(a)))
            record(f"join 8 devices × {n} offline saves (sync)", a, b,
                   "git fetch + 7 × merge-tree + read-tree -m -u", "≤ 1.0×")
        if args.join_only:
            continue
        docver_join()  # keep one joined container of this size for the read cases
        joined = dest
        # The first call after the join builds the conflict listing (each version's base, size
        # and date): the wait a user has on the first `conflicts`, `versions` or `status`.
        start = time.perf_counter()
        conflicts = json.loads(run([docver, "-C", str(dest), "conflicts", "--json"]).stdout or b"[]")
        first_call = time.perf_counter() - start
        versions = sum(len(c["conflicts"]) for c in conflicts)
        index_size = (dest / ".git" / "docver" / "version-index").stat().st_size
        print(f"N={n}: {len(conflicts)} documents in conflict, version index {index_size:,} bytes", file=sys.stderr, flush=True)
        record(f"conflicts --json, first call after the join ({len(conflicts)} documents, {versions} conflict versions, N={n})",
               [first_call], None, "", "linear in the versions listed")
        record(f"conflicts ({len(conflicts)} documents in conflict, N={n})",
               [timed([docver, "-C", str(dest), "conflicts"]) for _ in range(5)], None, "", "< 30 ms at ≥ 1,000")
        rebuilt = []
        for _ in range(2):
            (dest / ".git" / "docver" / "version-index").unlink()
            rebuilt.append(timed([docver, "-C", str(dest), "log", "-n", "1", path_of(0)]))
        record(f"version index built from scratch (N={n}, {index_size:,} bytes)", rebuilt, None, "", "reported")

    if joined is not None:
        dest = joined
        document = run(["git", "log", "-1", "--format=", "--name-only", "HEAD~1"], cwd=dest).stdout.decode().split("\n")[0] \
            or path_of(0)
        git_log = ["git", "log", "-20", "--", document]
        for label, argv, git_argv, git_label, goal in [
            ("ls (10,000 documents)", [docver, "ls"], ["git", "ls-tree", "-r", "-l", "HEAD"], "git ls-tree -r -l HEAD", "≤ 2×"),
            ("log DOC", [docver, "log", document], git_log, "git log -20 -- DOC", "≤ 1×"),
            ("log -n 1 (whole history)", [docver, "log", "-n", "1"], ["git", "log", "-1"], "git log -1", "—"),
            ("versions DOC", [docver, "versions", document], git_log, "git log -20 -- DOC", "≤ 1×"),
            ("status, index fresh", [docver, "status"], ["git", "status", "--porcelain"], "git status --porcelain", "≤ 1×"),
        ]:
            a, b = pairs(args.reps + 2, lambda: timed(argv, cwd=dest), lambda: timed(git_argv, cwd=dest))
            record(label, a, b, git_label, goal)
        copy = dest.parent / (dest.name + "-copy")
        if copy.exists():
            shutil.rmtree(copy)
        run(["cp", "-a", str(dest), str(copy)])
        gitcopy = dest.parent / (dest.name + "-gitcopy")
        if gitcopy.exists():
            shutil.rmtree(gitcopy)
        run(["cp", "-a", str(dest), str(gitcopy)])
        first = timed([docver, "status"], cwd=copy)
        git_first = timed(["git", "status", "--porcelain"], cwd=gitcopy)
        record("status after cp -a, first call", [first], [git_first], "git status --porcelain", "—")
        a, b = pairs(args.reps + 2, lambda: timed([docver, "status"], cwd=copy),
                     lambda: timed(["git", "status", "--porcelain"], cwd=gitcopy))
        record("status after cp -a, later calls", a, b, "git status --porcelain", "≤ 1×")

    if args.index_200k or args.index_only:
        size, built = index_200k(docver, work, args.reuse)
        record(f"version index of the 200,000-save container built from scratch ({size:,} bytes)", built, None, "",
               "reported")

    for label, points in (("join", join_points), ("sync join", sync_points)):
        if len(points) >= 2:
            exponent = fit_exponent(points)
            line = f"{label} time grows as N^{exponent:.2f} over N = {', '.join(str(n) for n, _ in points)}"
            rows.append(line)
            print(line, flush=True)
    print("\n| case | docver | git | ratio | goal |\n|---|---|---|---|---|")
    print("\n".join(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"samples": samples, "join": join_points}, indent=1))


if __name__ == "__main__":
    main()
