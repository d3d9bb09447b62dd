"""The benchmark cases: what is timed in each case, against which git command, and which
correctness checks follow it? One function each, taking the running Bench (see runner.py) for
its helpers (`alternate`, `rounds`, `record`, `check`, `docver`) and its arguments.

    bench_startup    `docver --version` against `git --version`
    integrate        `docver integrate` of every device branch against `git merge-tree` of one pair
    bench_conflicts  `docver conflicts`, caches removed (cold) and warm
    bench_status     `docver status` against `git status --porcelain`
    bench_save       `docver save DOC` against `git add DOC && git commit`
    bench_log        `docver log DOC -n 20` against `git log -20 -- DOC`
    bench_sync       `docver sync` of another device's saves against `git fetch && git merge`
    bench_big        saving a large document against `git hash-object -w`: wall time and peak memory
    bench_storage    `docver du` against `git rev-list --objects | git cat-file --batch-check`, and
                     `docver gc` against `git gc --prune=now` (docver gc runs it, after its checks)
"""

import json
import os
import random
import re
import shutil
import statistics
import subprocess
import time

from .commands import log, peak_rss_mb, run, timed
from .containers import append_saves, copy_container, settle_index
from .history import device_id
from .report import a_fmt


def bench_startup(bench):
    reps = bench.args.reps * 3
    d, g = bench.alternate(reps, lambda _: timed([bench.docver("--version")], bench.work),
                           lambda _: timed([["git", "--version"]], bench.work))
    true = [timed([["/bin/true"]], bench.work) for _ in range(reps)]
    bench.record("startup", "Start-up: `docver --version`", d, g, "`git --version`", goal=("lt_ms", 20))
    bench.results["_spawn_overhead_ms"] = statistics.median(s.seconds for s in true) * 1000


def integrate(bench, template, name, reps, expected, history, git_pair=True, key="integrate", label_suffix=""):
    """Times `docver integrate` on fresh copies; returns the last integrated copy."""
    git_copy = bench.work / f"{name}-mergetree"
    if git_pair:
        copy_container(template, git_copy)
    target = bench.work / f"{name}-integrated"
    scratch = bench.work / f"{name}-integrating"

    def prepare(rep, side):
        if side == "docver":
            copy_container(template, scratch)

    def docver_step(rep):
        return timed([bench.docver("integrate")], scratch)

    def git_step(rep):
        return timed([["git", "merge-tree", "--write-tree", "refs/heads/docver/dev0",
                       "refs/remotes/origin/docver/dev1"]], git_copy, ok_codes=(0, 1))

    d, g = bench.alternate(reps, docver_step, git_step if git_pair else None, prepare)
    if target.exists():
        shutil.rmtree(target)
    scratch.rename(target)
    bench.record(key, f"Integrate {bench.args.devices - 1} device branches{label_suffix}", d, g,
                 "`git merge-tree --write-tree` of one pair" if git_pair else None,
                 goal=("ratio", 0.5) if git_pair else None)
    if git_pair:
        shutil.rmtree(git_copy)

    parents = run(["git", "rev-list", "--parents", "-n", "1", "HEAD"], cwd=target).split()
    bench.check(f"{name}: integration commit has {bench.args.devices} parents", len(parents) - 1 == bench.args.devices,
                f"({len(parents) - 1})")
    conflicts = json.loads(run(bench.docver("conflicts", "--json"), cwd=target))
    listed = {c["document"] for c in conflicts}
    bench.check(f"{name}: `docver conflicts --json` lists the {len(expected)} documents edited on two devices",
                listed == expected and all(len(c["conflicts"]) == 1 for c in conflicts),
                f"(listed {len(listed)}, expected {len(expected)})")
    status = json.loads(run(bench.docver("status", "--json"), cwd=target))
    bench.check(f"{name}: working tree matches the integration (docver status: nothing changed)",
                not status["changed"] and len(status["inConflict"]) == len(expected))
    settle_index(target)
    return target


def bench_conflicts(bench, container, key, label, reps, cold=True, reference=None):
    """`docver conflicts` with its cache warm (and, with `cold`, rebuilt from history).

    With `reference` (the main case's integrated container), both are timed alternately,
    so the growth figure compares runs made under the same machine load."""
    caches = container / ".git" / "docver"
    if cold:
        def cold_step(rep):
            for cache in caches.glob("*.json"):  # conflict state, listings, version memos
                cache.unlink()
            return timed([bench.docver("conflicts")], container)
        d = [cold_step(rep) for rep in range(max(3, reps - 2))]
        bench.record(key + "_cold", label + " — first call (caches in .git/docver removed)", d)
    timed([bench.docver("conflicts")], container)  # builds the cache
    steps = [("docver", None, lambda _: timed([bench.docver("conflicts")], container))]
    if reference:
        timed([bench.docver("conflicts")], reference)
        steps.append(("reference", None, lambda _: timed([bench.docver("conflicts")], reference)))
    samples = bench.rounds(reps, steps)
    bench.record(key, label, samples["docver"], goal=("lt_ms", 30), reference=samples.get("reference"))


def modify(container, path, tag):
    full = container / path
    text = full.read_text()
    full.write_text(f"edit {tag} {time.time_ns()}\n" + text[text.index("\n") + 1:])


def bench_status(bench, docver_dir, git_dir, history, suffix, key_suffix, reps, reference=None):
    """`docver status` against `git status --porcelain`; `reference`: (docver, git) copies of
    the main case, timed alternately with these for the growth figure."""
    paths = history.layout.paths
    modified = [paths[len(paths) // 3], paths[len(paths) // 2], paths[-7]]
    for docver_side, git_side in [(docver_dir, git_dir)] + ([reference] if reference else []):
        for directory in (docver_side, git_side):
            for path in modified:
                modify(directory, path, "status")
        timed([bench.docver("status")], docver_side)  # warm-up
        timed([["git", "status", "--porcelain"]], git_side)
    steps = [("docver", None, lambda _: timed([bench.docver("status")], docver_dir)),
             ("git", None, lambda _: timed([["git", "status", "--porcelain"]], git_dir))]
    if reference:
        steps += [("reference", None, lambda _: timed([bench.docver("status")], reference[0])),
                  ("reference_git", None, lambda _: timed([["git", "status", "--porcelain"]], reference[1]))]
    samples = bench.rounds(reps, steps)
    bench.record("status" + key_suffix, f"Status, 3 modified documents{suffix}", samples["docver"], samples["git"],
                 "`git status --porcelain`", goal=("ratio", 0.5), reference=samples.get("reference"),
                 reference_git=samples.get("reference_git"))
    status = json.loads(run(bench.docver("status", "--json"), cwd=docver_dir))
    bench.check(f"status{suffix}: docver lists exactly the 3 modified documents",
                sorted(c["document"] for c in status["changed"]) == sorted(modified))


def bench_save(bench, docver_dir, git_dir, history, suffix, key_suffix, reps, reference=None):
    """`docver save DOC` against `git add DOC && git commit`; `reference` as in bench_status."""
    paths = history.layout.paths
    document = paths[len(paths) // 4 + 3]

    def modifier(directory):
        return lambda rep: modify(directory, document, f"save{rep}")

    def docver_save(directory):
        return lambda rep: timed([bench.docver("save", document)], directory)

    def git_commit(directory):
        return lambda rep: timed([["git", "add", document],
                                  ["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "x"]], directory)

    # Warm-up, which is also the first save on top of the integration commit.
    before = run(["git", "rev-parse", "HEAD"], cwd=docver_dir).strip()
    pairs = [(docver_dir, git_dir)] + ([reference] if reference else [])
    for docver_side, git_side in pairs:
        modifier(docver_side)(-1), docver_save(docver_side)(-1)
        modifier(git_side)(-1), git_commit(git_side)(-1)
    parents = re.findall(r"^parent (\S+)$", run(["git", "cat-file", "-p", "HEAD"], cwd=docver_dir), re.M)
    bench.check(f"save{suffix}: the first save after the integration has the integration commit as parent",
                parents == [before], f"(parent {parents}, expected {before})")
    steps = [("docver", modifier(docver_dir), docver_save(docver_dir)),
             ("git", modifier(git_dir), git_commit(git_dir))]
    if reference:
        steps += [("reference", modifier(reference[0]), docver_save(reference[0])),
                  ("reference_git", modifier(reference[1]), git_commit(reference[1]))]
    samples = bench.rounds(reps, steps)
    bench.record("save" + key_suffix, f"Save 1 changed document{suffix}", samples["docver"], samples["git"],
                 "`git add DOC && git commit`", goal=("ratio", 0.5), reference=samples.get("reference"),
                 reference_git=samples.get("reference_git"))
    subject = run(["git", "log", "-1", "--format=%s%n%b"], cwd=docver_dir)
    bench.check(f"save{suffix}: the last save is a docver save of {document}",
                subject.startswith(f"Save {document}") and f"modified: {document}" in subject)


def bench_log(bench, docver_dir, git_dir, history, reps):
    document = history.log_document
    entries = [line.split()[0] for line in
               run(bench.docver("log", document, "-n", "20"), cwd=docver_dir).strip().splitlines()]
    git_entries = [h[:12] for h in run(["git", "log", "-20", "--format=%H", "--", document], cwd=git_dir).split()]
    bench.check(f"log: docver and git list the same {len(git_entries)} saves of {document} (at most 20)",
                entries and sorted(entries) == sorted(git_entries),
                f"(docver {len(entries)}, git {len(git_entries)}, common {len(set(entries) & set(git_entries))})")
    d, g = bench.alternate(reps, lambda _: timed([bench.docver("log", document, "-n", "20")], docver_dir),
                           lambda _: timed([["git", "log", "-20", "--", document]], git_dir))
    bench.record("log", "History of one document, 20 entries", d, g, "`git log -20 -- DOC`")


def bench_sync(bench, integrated, history, reps):
    """Device B pushes --sync-saves saves to a bare remote; device A (one local save) syncs."""
    count = bench.args.sync_saves
    remote = bench.work / "sync-remote.git"
    device_b = bench.work / "sync-device-b.git"
    template = bench.work / "sync-device-a"
    for path in (remote, device_b, template):
        if path.exists():
            shutil.rmtree(path)
    head = run(["git", "rev-parse", "HEAD"], cwd=integrated).strip()
    run(["git", "init", "-q", "--bare", str(remote)])
    run(["git", "config", "gc.auto", "0"], cwd=remote)
    specs = [f"{head}:refs/heads/docver/dev0", f"{head}:refs/heads/docver/dev1"]
    specs += [f"refs/remotes/origin/docver/{device_id(d)}:refs/heads/docver/{device_id(d)}"
              for d in range(2, bench.args.devices)]
    run(["git", "push", "-q", str(remote), *specs], cwd=integrated)
    # Device B: integrated the same heads (the same commit), then saves `count` times.
    run(["git", "clone", "-q", "--bare", str(remote), str(device_b)])
    local_doc = 17
    b_docs = [d for d in range(history.documents) if d != local_doc]
    random.Random(60).shuffle(b_docs)
    b_docs = b_docs[:max(1, count * 3 // 4)]  # some documents saved twice
    append_saves(device_b, "refs/heads/docver/dev1", head, count, history, 1, b_docs)
    b_tip = run(["git", "rev-parse", "refs/heads/docver/dev1"], cwd=device_b).strip()
    run(["git", "push", "-q", str(remote), "refs/heads/docver/dev1"], cwd=device_b)
    # Device A: the integrated container, with the remote, and one save not yet pushed.
    copy_container(integrated, template)
    run(["git", "reset", "-q", "--hard"], cwd=template)  # drop the status case's unsaved edits
    run(["git", "config", "remote.origin.url", str(remote)], cwd=template)
    run(["git", "config", "remote.origin.fetch", "+refs/heads/docver/*:refs/remotes/origin/docver/*"], cwd=template)
    run(["git", "config", "branch.docver/dev0.remote", "origin"], cwd=template)
    run(["git", "config", "branch.docver/dev0.merge", "refs/heads/docver/dev1"], cwd=template)
    run(["git", "config", "fetch.writeCommitGraph", "false"], cwd=template)
    # The unsent save is written with plain git in docver's format: a `docver save` right on
    # top of an integration commit is what the save case checks (see the checks).
    local_path = history.layout.paths[local_doc]
    modify(template, local_path, "local")
    run(["git", "add", local_path], cwd=template)
    run(["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--author", "Device 0 <dev0@docver>",
         "-m", f"Save {local_path}", "-m", f"modified: {local_path}",
         "-m", "Docver-Device: dev0\nDocver-Device-Name: Device 0"], cwd=template,
        env={**os.environ, "GIT_COMMITTER_NAME": "Device 0", "GIT_COMMITTER_EMAIL": "dev0@docver"})
    settle_index(template)
    scratch = bench.work / "sync-run"

    def prepare(rep, side):
        run(["git", "update-ref", "refs/heads/docver/dev0", head], cwd=remote)
        copy_container(template, scratch)

    def docver_step(rep):
        return timed([bench.docver("sync")], scratch)

    def git_step(rep):
        return timed([["git", "fetch", "-q", "origin"],
                      ["git", "-c", "core.hooksPath=/dev/null", "merge", "--no-edit", "-q"]], scratch)

    d, g = bench.alternate(max(3, reps - 2), docver_step, git_step, prepare)
    bench.record("sync", f"Sync {a_fmt(count)} saves from another device (local bare remote)", d, g,
                 "`git fetch && git merge --no-edit`")
    # Check the last docver run.
    prepare(0, "docver")
    timed([bench.docver("sync")], scratch)
    a_head = run(["git", "rev-parse", "HEAD"], cwd=scratch).strip()
    contains = subprocess.run(["git", "merge-base", "--is-ancestor", b_tip, a_head], cwd=scratch).returncode == 0
    pushed = run(["git", "rev-parse", "refs/heads/docver/dev0"], cwd=remote).strip()
    last_doc = history.layout.paths[b_docs[(count - 1) % len(b_docs)]]
    b_text = run(["git", "show", f"{b_tip}:{last_doc}"], cwd=scratch)
    status = json.loads(run(bench.docver("status", "--json"), cwd=scratch))
    bench.check("sync: device A's head contains device B's saves, was pushed, and its working tree has them",
                contains and pushed == a_head and (scratch / last_doc).read_text() == b_text and not status["changed"])
    fsck = subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=scratch,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    bench.check("sync: `git fsck --strict` is clean on device A after the sync", fsck.returncode == 0,
                fsck.stdout.strip()[-500:])
    for path in (device_b, scratch):
        shutil.rmtree(path)


def bench_big(bench, docver_dir, git_dir, reps):
    size = bench.args.big_mb << 20
    name = "big.bin"
    log(f"writing a {bench.args.big_mb} MB document")
    data = os.urandom(size)
    for directory in (docver_dir, git_dir):
        (directory / name).write_bytes(data)
    del data

    def prepare(rep, side):
        directory = docver_dir if side == "docver" else git_dir
        with open(directory / name, "r+b") as handle:
            handle.write(f"rep {rep} {time.time_ns()}".encode())
        # Read it once so both sides start from the page cache.
        with open(directory / name, "rb") as handle:
            while handle.read(1 << 24):
                pass

    d, g = bench.alternate(max(3, reps - 2), lambda _: timed([bench.docver("save", name)], docver_dir),
                           lambda _: timed([["git", "hash-object", "-w", name]], git_dir), prepare)
    bench.record("big", f"Save a {bench.args.big_mb} MB flat document: wall time", d, g,
                 "`git hash-object -w FILE`", goal=("ratio", 1.3))
    memory = {"docver": [], "git": []}
    for rep in range(2):
        prepare(100 + rep, "docver")
        memory["docver"].append(peak_rss_mb(bench.docver("save", name), docver_dir))
        prepare(100 + rep, "git")
        memory["git"].append(peak_rss_mb(["git", "hash-object", "-w", name], git_dir))
    floor = peak_rss_mb(["true"], bench.work)
    bench.results["big_rss"] = {
        "label": f"Save a {bench.args.big_mb} MB flat document: peak memory (ru_maxrss)",
        "git_label": "`git hash-object -w FILE`", "unit": "MB", "goal": ("lt_mb", 64),
        "docver": memory["docver"], "git": memory["git"], "launcher_floor_mb": floor}
    bench.results["_rss_floor_mb"] = floor
    log(f"{bench.args.big_mb} MB peak RSS: docver {statistics.median(bench.results['big_rss']['docver']):.0f} MB, "
        f"git {statistics.median(bench.results['big_rss']['git']):.0f} MB")
    blob = run(["git", "rev-parse", f"HEAD:{name}"], cwd=docver_dir).strip()
    expected = run(["git", "hash-object", name], cwd=docver_dir).strip()
    bench.check("big document: the saved blob is the file's git hash", blob == expected)


def bench_storage(bench, docver_dir, git_dir, reps):
    """`du` sizes every reachable object once and attributes contents to documents and devices;
    the closest git is listing and sizing every reachable object. `gc` is `git gc --prune=now`
    plus docver's checks before and after."""
    sizing = ["sh", "-c", "git rev-list --all --reflog --objects | git cat-file --batch-check='%(objectsize)' >/dev/null"]
    report = json.loads(run(bench.docver("du", "--json"), cwd=docver_dir))
    objects = len(run(["git", "rev-list", "--all", "--reflog", "--objects"], cwd=git_dir).splitlines())
    bench.check(f"du: docver and git count the same {objects} reachable objects",
                report["reachableObjects"] == objects, f"(docver {report['reachableObjects']})")
    d, g = bench.alternate(reps, lambda _: timed([bench.docver("du", "--json")], docver_dir),
                           lambda _: timed([sizing], git_dir))
    bench.record("du", "Storage report: `docver du`", d, g, "`git rev-list --objects | git cat-file --batch-check`")
    d, g = bench.alternate(max(1, reps // 2), lambda _: timed([bench.docver("gc")], docver_dir),
                           lambda _: timed([["git", "gc", "--prune=now", "--quiet"]], git_dir))
    bench.record("gc", "Garbage collection: `docver gc`", d, g, "`git gc --prune=now`")
    bench.fsck(docver_dir, "after `docver gc`")
