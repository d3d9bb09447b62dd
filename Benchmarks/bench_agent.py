#!/usr/bin/env python3
"""The sync agent's benchmark: latency from a write to the other device, idle CPU and memory.
See Benchmarks/README.md."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from docverbench.agent import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
