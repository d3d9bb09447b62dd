#!/usr/bin/env python3
"""Documents on demand (issue 32): the local size of a device that joined with
`docver clone --on-demand` against a full device, and against git's own partial clone.

A container holds one document saved VERSIONS times (MIB MiB of random bytes each, so nothing
compresses or deltifies), synced to a bare remote. Then, each REPS times:
- `docver clone` (full) and `docver clone --on-demand`: wall time and the size of `.git`;
- `git clone --no-local` and `git clone --no-local --filter=blob:none` of the same remote;
- on the device on demand, `docver show DOC @-10` (one older version fetched) and its time;
- the full device turned on demand (`docver remote on-demand origin`): `docver evict DOC`
  (every version's contents leave) and `docver download DOC` (every version back), with the
  size of `.git` after each.
The goal: the device on demand holds at most 1.5x the current contents.

    python3 Benchmarks/on_demand.py --docver .build/release/docver [--versions 20] [--mib 4] [--reps 3]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time


def run(arguments, cwd=None, stdout=subprocess.DEVNULL):
    subprocess.run(arguments, cwd=cwd, check=True, stdout=stdout, stderr=subprocess.PIPE)


def timed(arguments, cwd=None):
    start = time.perf_counter()
    run(arguments, cwd=cwd)
    return time.perf_counter() - start


def size_of(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            total += os.lstat(os.path.join(root, name)).st_size
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docver", default=".build/release/docver")
    parser.add_argument("--versions", type=int, default=20)
    parser.add_argument("--mib", type=int, default=4)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--work", default=None, help="scratch folder (default: a temporary one, removed)")
    parser.add_argument("--json", default=None, help="write the samples here")
    options = parser.parse_args()
    docver = os.path.abspath(options.docver)
    work = options.work or tempfile.mkdtemp(prefix="docver-on-demand-")
    os.makedirs(work, exist_ok=True)
    try:
        remote = os.path.join(work, "remote.git")
        source = os.path.join(work, "source")
        run(["git", "init", "-q", "--bare", remote])
        run([docver, "init", source, "--device", "alice"])
        document = os.path.join(source, "film.bin")
        for version in range(options.versions):
            with open(document, "wb") as file:
                file.write(os.urandom(options.mib << 20))
            run([docver, "save", "-m", "version %d" % version], cwd=source)
        run([docver, "remote", "add", "origin", remote], cwd=source)
        run([docver, "sync"], cwd=source)
        current = options.mib << 20
        samples = {key: [] for key in ["full", "onDemand", "git", "gitFiltered", "show", "evict", "download"]}
        sizes = {}
        for rep in range(options.reps):
            for key, folder, arguments in [
                ("full", "full-%d" % rep, [docver, "clone", remote, "full-%d" % rep, "--device", "full%d" % rep]),
                ("onDemand", "demand-%d" % rep,
                 [docver, "clone", "--on-demand", remote, "demand-%d" % rep, "--device", "demand%d" % rep]),
                ("git", "git-%d" % rep, ["git", "clone", "-q", "--no-local", "-b", "docver/alice", remote, "git-%d" % rep]),
                ("gitFiltered", "gitf-%d" % rep,
                 ["git", "clone", "-q", "--no-local", "--filter=blob:none", "-b", "docver/alice",
                  "--upload-pack=git -c uploadpack.allowFilter=true upload-pack", remote, "gitf-%d" % rep]),
            ]:
                samples[key].append(timed(arguments, cwd=work))
                sizes[key] = size_of(os.path.join(work, folder, ".git"))
            samples["show"].append(timed([docver, "show", "film.bin", "@-10"], cwd=os.path.join(work, "demand-%d" % rep)))
            # The full device frees every version: origin keeps them from now on.
            full = os.path.join(work, "full-%d" % rep)
            run([docver, "remote", "on-demand", "origin"], cwd=full)
            samples["evict"].append(timed([docver, "evict", "film.bin"], cwd=full))
            sizes["evicted"] = size_of(os.path.join(full, ".git"))
            samples["download"].append(timed([docver, "download", "film.bin"], cwd=full))
            sizes["downloaded"] = size_of(os.path.join(full, ".git"))
        median = lambda values: sorted(values)[len(values) // 2]
        print("| job | wall (median of %d) | .git size | × current contents |" % options.reps)
        print("|---|---:|---:|---:|")
        for key, label in [("full", "`docver clone`"), ("onDemand", "`docver clone --on-demand`"),
                           ("git", "`git clone --no-local`"), ("gitFiltered", "`git clone --filter=blob:none`")]:
            print("| %s | %.2f s | %.1f MiB | %.2f× |" % (label, median(samples[key]), sizes[key] / 2**20, sizes[key] / current))
        print("| `docver show film.bin @-10` on demand (fetches one version) | %.2f s | | |" % median(samples["show"]))
        print("| `docver evict film.bin` on the full device (after `remote on-demand origin`) | %.2f s | %.1f MiB | %.2f× |"
              % (median(samples["evict"]), sizes["evicted"] / 2**20, sizes["evicted"] / current))
        print("| `docver download film.bin` (every version back) | %.2f s | %.1f MiB | %.2f× |"
              % (median(samples["download"]), sizes["downloaded"] / 2**20, sizes["downloaded"] / current))
        ratio = sizes["onDemand"] / current
        print("\n%d versions of a %d MiB document: the device on demand holds %.2f× the current contents (goal ≤ 1.5×): %s"
              % (options.versions, options.mib, ratio, "met" if ratio <= 1.5 else "NOT met"))
        if options.json:
            with open(options.json, "w") as file:
                json.dump({"samples": samples, "sizes": sizes, "current": current}, file, indent=2)
    finally:
        if not options.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
