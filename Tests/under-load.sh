#!/usr/bin/env bash
# Runs the README's test command on a fresh clone of this checkout's HEAD with N busy loops
# (`yes > /dev/null`) beside it, as a user who tests while the machine compiles something
# else would. Prints the wall time of each phase and of the whole run.
#
#   bash Tests/under-load.sh [N] [--dry-run] [--keep]
#
# Run .ci/run once first on a new machine (it installs the servers the transport tests use).
# N: busy loops (default 2). --dry-run: clone, start and stop the loops, print the commands,
# run nothing else. --keep: keep the clone (its path is printed) instead of removing it.
# Exit code: the test command's (0 when both phases pass).
set -euo pipefail

loops=2
dry_run=false
keep=false
for argument in "$@"; do
    case "$argument" in
        --dry-run) dry_run=true ;;
        --keep) keep=true ;;
        ''|*[!0-9]*) echo "usage: bash Tests/under-load.sh [N] [--dry-run] [--keep]" >&2; exit 64 ;;
        *) loops=$argument ;;
    esac
done

checkout=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
head=$(git -C "$checkout" rev-parse HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/docver-under-load.XXXXXX")
busy=()

cleanup() {
    local status=$?
    # A loop killed before it became yes is still a copy of this shell, with these traps.
    [ "$BASHPID" = "$$" ] || exit "$status"
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${busy[@]}"; do wait "$pid" 2>/dev/null || true; done
    # The logs stay (small); the clone and its .build (gigabytes) go unless --keep.
    if $keep; then echo "under-load: kept the clone: $work/docver"; else rm -rf "$work/docver"; fi
    echo "under-load: logs in $work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

seconds_since() { echo $(( $(date +%s) - $1 )); }
minutes() { printf '%d min %02d s' $(( $1 / 60 )) $(( $1 % 60 )); }

echo "under-load: $loops busy loop(s), commit $head, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# A fresh clone: nothing of this checkout's .build or uncommitted files comes along.
git clone --quiet --no-local "$checkout" "$work/docver"
git -C "$work/docver" checkout --quiet "$head"
cd "$work/docver"

for _ in $(seq 1 "$loops"); do
    yes > /dev/null &
    busy+=($!)
done
echo "under-load: busy loops ${busy[*]:-none}"

# The README's test command, `swift test && swift test -c release -Xswiftc -enable-testing`,
# with each half's build made first (what `swift test` would build anyway) so the first
# build's time is measured apart from the tests'.
phases=("debug build:swift build --build-tests"
        "debug tests:swift test"
        "release build:swift build --build-tests -c release -Xswiftc -enable-testing"
        "release tests:swift test -c release -Xswiftc -enable-testing")
if $dry_run; then
    echo "under-load: dry run: would run in $work/docver:"
    for phase in "${phases[@]}"; do echo "  ${phase#*:}"; done
    exit 0
fi
started=$(date +%s)
status=0
summary="loops=$loops"
for phase in "${phases[@]}"; do
    name=${phase%%:*}
    command=${phase#*:}
    phase_started=$(date +%s)
    echo "under-load: $name: $command"
    $command > "$work/${name// /-}.log" 2>&1 || status=$?
    elapsed=$(seconds_since "$phase_started")
    tail -3 "$work/${name// /-}.log"
    echo "under-load: $name: $(minutes "$elapsed") (exit $status)"
    summary+=" ${name// /-}=${elapsed}s"
    [ $status -eq 0 ] || break
done
total=$(seconds_since "$started")
echo "under-load: summary: $summary total=${total}s ($(minutes "$total")) exit=$status"
grep -hE '^(✘|error:)|failed after' "$work"/*.log 2>/dev/null | head -40 || true
exit $status
