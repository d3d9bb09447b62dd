#!/usr/bin/env bash
# A first job with docver: create a container, save twice, list versions, show one,
# then let a second device join through a bare git remote and sync, and a third join on
# demand (only the newest contents; an older version is fetched when it is read), evict a
# document and bring it back.
set -euo pipefail
DOCVER="${DOCVER:-docver}"
case "$DOCVER" in */*) DOCVER="$(cd "$(dirname "$DOCVER")" && pwd)/$(basename "$DOCVER")" ;; esac
WORK="$(mktemp -d "${TMPDIR:-/tmp}/docver-demo.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
run() { echo "\$ docver $*"; "$DOCVER" "$@"; echo; }

cd "$WORK"
run init notes --device alice-laptop --device-name "Alice's Laptop"
cd notes
printf 'Shopping list\n- milk\n' > list.txt
run save -m "Start the shopping list"
printf -- '- bread\n' >> list.txt
run save list.txt
run versions list.txt
FIRST=$("$DOCVER" log list.txt --json | sed -n 's/.*"id" : "\([0-9a-f]*\)".*/\1/p' | tail -n 1)
run show list.txt "${FIRST:0:8}"
run ls

echo "# A second device joins through a bare git repository"
run remote add origin "$WORK/remote.git" --create
run sync
cd "$WORK"
run clone "$WORK/remote.git" phone --device alice-phone --device-name "Alice's Phone"
run -C phone versions list.txt

echo "# Both devices edit the list before seeing each other's change"
sed -i 's/^Shopping list$/Shopping list for Saturday/' phone/list.txt
printf -- '- butter\n' >> notes/list.txt
run -C phone sync
run -C notes sync
run -C notes conflicts
run -C notes resolve list.txt --strategy merge
run -C notes sync
run -C phone sync
cat phone/list.txt
echo
echo "# Plain git sees every device's branch and every version:"
git -C notes log --all --oneline --graph
echo
echo "# A tablet joins on demand: it receives the newest contents only, and an older"
echo "# version's contents when a command reads them"
run clone --on-demand "$WORK/remote.git" tablet --device alice-tablet --device-name "Alice's Tablet"
run -C tablet versions list.txt
run -C tablet show list.txt @-1
echo "# The tablet frees the list's contents: a placeholder stands in its place"
run -C tablet evict list.txt
ls tablet
echo
run -C tablet ls
run -C tablet download list.txt
cat tablet/list.txt
