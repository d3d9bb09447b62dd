"""Containers on disk: how is a benchmark container generated (`git fast-import` of a History),
how are saves appended to one, and how is a fresh copy made whose index git and libgit2 trust?"""

import os
import shutil
import subprocess
import time
from pathlib import Path

from .commands import run
from .history import History, device_id, device_name


def copy_container(source, destination):
    """A fresh copy (cp -a), with its index refreshed: the copy's files have new inodes and
    ctimes, which would otherwise make both git and libgit2 rehash every file."""
    if destination.exists():
        shutil.rmtree(destination)
    run(["cp", "-a", str(source), str(destination)])
    run(["git", "update-index", "-q", "--refresh"], cwd=destination, check=False)
    settle_index(destination)


def settle_index(path):
    """Waits until the index is strictly newer than every working file and rewrites it, so no
    entry is "racily clean" (such entries are rehashed on every status by git and libgit2)."""
    time.sleep(1.1)
    index = Path(path) / ".git" / "index"
    os.utime(index)  # the next refresh compares against this
    run(["git", "update-index", "-q", "--really-refresh"], cwd=path, check=False)


def generate_container(path, history, git_env=None):
    """A docver container for device 0, generated with git fast-import."""
    if path.exists():
        shutil.rmtree(path)
    run(["git", "init", "-q", str(path)])
    start = time.perf_counter()
    importer = subprocess.Popen(["git", "fast-import", "--quiet", "--done"], cwd=path,
                                stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    history.stream(importer.stdin)
    importer.stdin.close()
    stderr = importer.stderr.read()
    if importer.wait() != 0:
        raise RuntimeError(f"git fast-import failed: {stderr.decode(errors='replace')}")
    imported = time.perf_counter() - start
    for key, value in [("docver.device", device_id(0)), ("docver.deviceName", device_name(0)),
                       ("docver.formatVersion", "1"), ("gc.auto", "0"), ("maintenance.auto", "false")]:
        run(["git", "config", key, value], cwd=path)
    run(["git", "symbolic-ref", "HEAD", "refs/heads/docver/dev0"], cwd=path)
    (path / ".git" / "docver").mkdir(exist_ok=True)
    run(["git", "reset", "-q", "--hard"], cwd=path)
    settle_index(path)
    return imported, time.perf_counter() - start


def append_saves(repository, ref, parent, count, history, device, documents):
    """Streams `count` single-document saves by `device` on `ref` (from commit `parent`)."""
    out = [b"feature done\n", f"reset {ref}\nfrom {parent}\n\n".encode()]
    previous = None
    for index in range(count):
        doc = documents[index % len(documents)]
        blob = history._blob(out, history._content(doc, device))
        path = history.layout.paths[doc]
        message = (f"Save {path}\n\nmodified: {path}\n\n"
                   f"Docver-Device: {device_id(device)}\nDocver-Device-Name: {device_name(device)}\n")
        mark = history._next_mark()
        when = int(time.time()) - 4 * 3600 + index  # after the generated history, before now
        identity = History._identity(device)
        out.append((f"commit {ref}\nmark :{mark}\nauthor {identity} {when} +0000\n"
                    f"committer {identity} {when} +0000\n").encode() + History._data(message.encode())
                   + (b"" if previous is None else b"from :%d\n" % previous)
                   + f"M 100644 :{blob} {path}\n".encode())
        previous = mark
    out.append(b"done\n")
    run(["git", "fast-import", "--quiet", "--done", "--force"], cwd=repository,
        input=b"".join(out))
