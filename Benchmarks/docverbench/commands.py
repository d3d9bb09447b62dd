"""Running and timing commands: how does the benchmark run a command, time it, and measure its
peak memory? (`run` outside any timing, `timed` for wall time, `peak_rss_mb` for memory, `log` for
progress on stderr.)"""

import os
import subprocess
import sys
import time


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run(argv, cwd=None, check=True, capture=True, input=None, env=None):
    """Runs a command outside any timing; returns stdout as text."""
    binary = isinstance(input, bytes)
    result = subprocess.run(argv, cwd=cwd, input=input, env=env,
                            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=not binary)
    if binary:
        result.stdout = (result.stdout or b"").decode(errors="replace")
        result.stderr = (result.stderr or b"").decode(errors="replace")
    if check and result.returncode != 0:
        raise RuntimeError(f"command failed ({result.returncode}): {' '.join(map(str, argv))}\n"
                           f"{result.stderr.strip()}\n{(result.stdout or '').strip()[-2000:]}")
    return result.stdout if capture else ""


class Sample:
    def __init__(self, seconds, max_rss_kb):
        self.seconds = seconds
        self.max_rss_kb = max_rss_kb


def timed(argvs, cwd, ok_codes=(0,)):
    """Runs commands one after the other (like `a && b`), stdout to /dev/null.

    Wall time covers spawning and waiting. (ru_maxrss from os.wait4 is kept but not reported:
    a direct child inherits this process's high-water mark; memory goes through peak_rss_mb.)
    """
    total = 0.0
    peak = 0
    for argv in argvs:
        with open(os.devnull, "wb") as devnull:
            start = time.perf_counter()
            process = subprocess.Popen(argv, cwd=cwd, stdout=devnull, stderr=subprocess.PIPE)
            stderr = process.stderr.read()  # small; reading it cannot block the child for long
            _, status, usage = os.wait4(process.pid, 0)
            elapsed = time.perf_counter() - start
            process.returncode = os.waitstatus_to_exitcode(status)
            process.stderr.close()
        if process.returncode not in ok_codes:
            raise RuntimeError(f"timed command failed ({process.returncode}): {' '.join(map(str, argv))}\n"
                               f"{stderr.decode(errors='replace').strip()}")
        total += elapsed
        peak = max(peak, usage.ru_maxrss)
    return Sample(total, peak)


# Peak memory needs a process forked afresh: a child started from this (large) Python process
# inherits its high-water mark through vfork/exec, so ru_maxrss of a direct child would report
# at least this process's peak. The launcher forks a clean child and reports its ru_maxrss.
LAUNCHER = r"""
import os, sys
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def peak_rss_mb(argv, cwd):
    """Peak resident memory (MB) of one run of `argv`, via os.wait4 in a small launcher."""
    out = run([sys.executable, "-S", "-c", LAUNCHER, *argv], cwd=cwd)
    kb, code = out.split()
    if int(code) != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({code})")
    return int(kb) / 1024
