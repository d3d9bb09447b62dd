#!/usr/bin/env python3
"""Big documents (issue 29): moving one document of MIB MiB of random bytes between devices,
against git's same jobs in the same run, with each command's peak memory.

For each size, on a bare remote on this machine (what `docver remote add origin PATH` makes):
- save:     `docver save DOC`            against `git hash-object -w DOC`
- push:     the first `docver sync`      against `git push` of a commit holding the document
- clone:    `docver clone REMOTE`        against `git clone --no-local REMOTE` (with its checkout)
- receive:  `docver sync` on a device that joined before the document was saved
                                         against `git fetch` + `git checkout`
Peak memory is ru_maxrss of the command alone (a launcher forks it afresh and reads
os.wait4). Random bytes neither compress nor deltify, so every step moves all of them.
Every command runs with HOME set to the scratch folder, whose .gitconfig sets
`docver.maxDocumentSize = 0`: a receiving device refuses files above 512 MiB by default.
The goals: each docver step peaks at <= 100 MB and takes <= 1.3x git's.

    python3 Benchmarks/big_documents.py --docver .build/release/docver [--sizes 512,1024] [--reps 1]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run(arguments, cwd=None):
    subprocess.run(arguments, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def measured(arguments, cwd):
    """(seconds, peak MB) of one run of `arguments` in `cwd`."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, *arguments], cwd=cwd, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    seconds = time.perf_counter() - start
    kilobytes, code = out.split()[-2:]
    if int(code) != 0:
        raise RuntimeError("%s failed (%s)" % (" ".join(arguments), code))
    return seconds, int(kilobytes) / 1024


def git_identity():
    return ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]


def one_size(docver, work, mib):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(os.path.join(work, ".gitconfig"), "w") as file:
        file.write("[docver]\n\tmaxDocumentSize = 0\n")
    os.environ["HOME"] = work
    document = os.path.join(work, "film.bin")
    with open(document, "wb") as file:
        for _ in range(mib):
            file.write(os.urandom(1 << 20))
    remote, git_remote = os.path.join(work, "remote.git"), os.path.join(work, "git-remote.git")
    run(["git", "init", "-q", "--bare", remote])
    run(["git", "init", "-q", "--bare", git_remote])
    alice, git_alice = os.path.join(work, "alice"), os.path.join(work, "git-alice")
    run([docver, "init", alice, "--device", "alice"])
    run([docver, "remote", "add", "origin", remote], cwd=alice)
    # bob joins before the document exists, to receive it later.
    run([docver, "sync"], cwd=alice)
    bob = os.path.join(work, "bob")
    run([docver, "clone", remote, bob, "--device", "bob"])
    run(["git", "init", "-q", git_alice])
    run(["git", "remote", "add", "origin", git_remote], cwd=git_alice)
    git_bob = os.path.join(work, "git-bob")
    run(["git", "init", "-q", git_bob])
    run(["git", "remote", "add", "origin", git_remote], cwd=git_bob)

    figures = {}
    shutil.copyfile(document, os.path.join(alice, "film.bin"))
    shutil.copyfile(document, os.path.join(git_alice, "film.bin"))
    figures["save"] = (measured([docver, "save", "film.bin"], alice),
                       measured(["git", "hash-object", "-w", "film.bin"], git_alice))
    run(["git", "add", "film.bin"], cwd=git_alice)
    run(["git", *git_identity(), "commit", "-q", "-m", "film"], cwd=git_alice)
    figures["push"] = (measured([docver, "sync"], alice),
                       measured(["git", "push", "-q", "origin", "HEAD:refs/heads/main"], git_alice))
    figures["clone"] = (measured([docver, "clone", remote, "carol", "--device", "carol"], work),
                        measured(["git", "clone", "-q", "--no-local", "-b", "main", git_remote, "git-carol"], work))
    figures["receive"] = (measured([docver, "sync"], bob),
                          measured(["sh", "-c", "git fetch -q origin && git checkout -q -b main origin/main"], git_bob))
    for folder in ("bob", "carol"):
        copy = subprocess.run(["git", "hash-object", os.path.join(work, folder, "film.bin")],
                              check=True, stdout=subprocess.PIPE, text=True).stdout
        original = subprocess.run(["git", "hash-object", document], check=True, stdout=subprocess.PIPE, text=True).stdout
        if copy != original:
            raise RuntimeError("%s did not receive the document whole" % folder)
    fsck = subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=remote, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if fsck.returncode != 0:
        raise RuntimeError("git fsck --strict on the remote: " + fsck.stdout)
    shutil.rmtree(work, ignore_errors=True)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docver", default=".build/release/docver")
    parser.add_argument("--sizes", default="512,1024", help="MiB, comma-separated")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--work", default=None, help="scratch folder (default: a temporary one, removed)")
    parser.add_argument("--json", default=None, help="write the samples here")
    options = parser.parse_args()
    docver = os.path.abspath(options.docver)
    base = options.work or tempfile.mkdtemp(prefix="docver-big-")
    samples = {}
    print("| document | step | docver | peak | git | peak | ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for mib in [int(size) for size in options.sizes.split(",")]:
        for rep in range(options.reps):
            figures = one_size(docver, os.path.join(base, "%d-%d" % (mib, rep)), mib)
            for step, ((seconds, peak), (git_seconds, git_peak)) in figures.items():
                samples.setdefault("%d MiB %s" % (mib, step), []).append(
                    {"docver": [seconds, peak], "git": [git_seconds, git_peak]})
                print("| %d MiB | %s | %.2f s | %.0f MB | %.2f s | %.0f MB | %.2f× |"
                      % (mib, step, seconds, peak, git_seconds, git_peak, seconds / git_seconds), flush=True)
    if not options.work:
        shutil.rmtree(base, ignore_errors=True)
    if options.json:
        with open(options.json, "w") as file:
            json.dump(samples, file, indent=1)


if __name__ == "__main__":
    main()
