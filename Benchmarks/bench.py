#!/usr/bin/env python3
"""docver benchmark (issue 6): docver against plain git, measured in the same run.

    python3 Benchmarks/bench.py                 # full run (10,000 documents, 20,000 saves, ...)
    python3 Benchmarks/bench.py --quick         # smoke run with small sizes (a minute or two)
    python3 Benchmarks/bench.py --write-docs    # also rewrite the measured part of docs/PERFORMANCE.md

Python 3 standard library only. This file is the entry point; the benchmark itself is the
package docverbench/ next to it (Benchmarks/README.md lists its modules).
"""

import sys

from docverbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
