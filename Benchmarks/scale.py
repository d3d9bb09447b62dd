#!/usr/bin/env python3
"""docver benchmark, scale cases (issue 12): a team's diverged devices joined by a new device,
and the history commands on the joined container. See docverbench/scale.py and
Benchmarks/README.md.

    python3 Benchmarks/scale.py --docver .build/release/docver [--sizes 50,200,800] [--huge]
"""

import sys

from docverbench.scale import main

if __name__ == "__main__":
    sys.exit(main())
