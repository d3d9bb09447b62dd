"""docver benchmark (issue 6): docver against plain git, measured in the same run.

What does the benchmark do, and where is each part? It builds docver in release mode, generates
containers with `git fast-import`, then times docver and the plain git command doing the same
work, alternating them, several repetitions each, and prints a Markdown table of medians.
Containers live under --work (default: the git-ignored bench-work/).

    cli         the command line: the flags, their defaults, what --quick and --scale set
    runner      the run: Bench (results, checks, timing helpers), building docver, the order of the cases
    cases       the cases: one function each, what is timed against which git command, and the checks
    commands    running and timing commands: wall time, peak memory, progress log
    history     the generated history: documents, devices, saves, as `git fast-import` input
    containers  containers on disk: generating them, appending saves, fresh copies with a settled index
    report      the table, the checks, the machine description, the docs/PERFORMANCE.md section

The entry point is Benchmarks/bench.py; Benchmarks/README.md tells how to add a case.
"""

from pathlib import Path

# The docver checkout: Benchmarks/docverbench/ is two levels below it.
REPO = Path(__file__).resolve().parent.parent.parent
