"""The command line: which flags does the benchmark take, and what do --quick and --scale set
them to? `main` parses them and runs a Bench."""

import argparse
import sys

from . import REPO
from . import __doc__ as OVERVIEW
from .runner import Bench


def size_script_parser(description, sizes, sizes_help, work):
    """The flags the one-file scripts that grow a case over sizes share (growth.py,
    wide_folder.py): the docver binary, the sizes, a scratch folder, a JSON copy."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--docver", required=True, help="the docver binary (a release build)")
    parser.add_argument("--sizes", default=sizes, help=sizes_help + ", comma-separated")
    parser.add_argument("--work", default=str(REPO / "bench-work" / work), help="scratch folder")
    parser.add_argument("--json", help="also write the figures to this file")
    return parser


def parse_args(argv):
    parser = argparse.ArgumentParser(description=OVERVIEW.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Defaults are the main case of issue 6.")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1,000 documents, 2,000 saves, 20 conflicts, 100 synced saves, "
                             "16 MB document, 3 repetitions")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the main case's documents, saves, conflicts and synced saves")
    parser.add_argument("--documents", type=int, default=None, help="documents (default 10,000)")
    parser.add_argument("--saves", type=int, default=None, help="saves in the main history (default 20,000)")
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--diverge", type=int, default=125, help="saves per device after divergence")
    parser.add_argument("--conflicts", type=int, default=None, help="documents edited on two devices (default 100)")
    parser.add_argument("--sync-saves", type=int, default=None, help="saves device B pushes (default 1,000)")
    parser.add_argument("--big-mb", type=int, default=None, help="size of the large document (default 256)")
    parser.add_argument("--history-scales", default="0.1,10",
                        help="history lengths to compare, as factors of --saves ('' to skip; default 0.1,10)")
    parser.add_argument("--reps", type=int, default=None, help="repetitions of the quick cases (default 7)")
    parser.add_argument("--cases", default="", help="only these optional cases: startup,log,sync,big,storage (default all)")
    parser.add_argument("--work", default=str(REPO / "bench-work"), help="where containers are generated")
    parser.add_argument("--docver", help="use this docver binary instead of building one")
    parser.add_argument("--source", help="what the measured docver was built from (for the report)")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--keep", action="store_true", help="keep the generated containers")
    parser.add_argument("--strict", action="store_true", help="stop at the first failed correctness check")
    parser.add_argument("--write-docs", action="store_true", help="write the results into docs/PERFORMANCE.md")
    args = parser.parse_args(argv)
    quick = args.quick
    s = args.scale

    def pick(value, full, small):
        return value if value is not None else (small if quick else max(1, int(round(full * s))))

    args.documents = pick(args.documents, 10_000, 1_000)
    args.saves = pick(args.saves, 20_000, 2_000)
    args.conflicts = pick(args.conflicts, 100, 20)
    args.sync_saves = pick(args.sync_saves, 1_000, 100)
    args.big_mb = args.big_mb if args.big_mb is not None else (16 if quick else 256)
    args.reps = args.reps if args.reps is not None else (3 if quick else 7)
    if quick:
        args.diverge = min(args.diverge, 25)
    args.argv = " ".join(argv)
    return args


def main():
    args = parse_args(sys.argv[1:])
    return Bench(args).main()
