#!/usr/bin/env bash
# Two devices, alice and bob, sync through a bare git remote and edit the same documents
# before seeing each other's change. Each conflict is then resolved a different way:
#   1. shopping.txt  --strategy latest-date     (the newest version stays current)
#   2. packing.txt   --strategy merge           (non-overlapping edits are combined)
#   3. todo.txt      --strategy choose --keep (a named version becomes current)
# Usage: DOCVER=path/to/docver bash Examples/conflict-three-ways.sh
set -euo pipefail
DOCVER="${DOCVER:-docver}"
# The script changes directory: make a relative path to the binary absolute first.
case "$DOCVER" in */*) DOCVER="$(cd "$(dirname "$DOCVER")" && pwd)/$(basename "$DOCVER")" ;; esac
WORK="$(mktemp -d "${TMPDIR:-/tmp}/docver-conflicts.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

step() { printf '\n### %s\n' "$*"; }
# run DEVICE ARGS...: print and run a docver command in that device's container.
quote() { local a out=""; for a in "$@"; do [[ $a =~ ^[A-Za-z0-9._/:=-]+$ ]] || a="\"$a\""; out+=" $a"; done; echo "${out# }"; }
run() { local device=$1; shift; echo "[$device] \$ docver $(quote "$@")"; "$DOCVER" -C "$WORK/$device" "$@"; }
# write DEVICE DOC TEXT: replace a document's contents in that device's working tree.
write() { printf '%b' "$3" > "$WORK/$1/$2"; echo "[$1] (edits $2)"; }
fail() { echo "conflict-three-ways.sh: $*" >&2; exit 1; }

# Both devices edit DOC; bob saves at least a second later, so bob's version is newer.
# Sets ALICE_VERSION to alice's save id: her version of DOC.
make_conflict() {
    local doc=$1 alice_text=$2 bob_text=$3 alice_version
    write alice "$doc" "$alice_text"
    alice_version=$("$DOCVER" -C "$WORK/alice" save -m "Alice edits $doc" | sed -n 's/^saved .* as \([0-9a-f]*\)$/\1/p')
    echo "[alice] \$ docver save -m \"Alice edits $doc\"   -> version $alice_version"
    sleep 1
    write bob "$doc" "$bob_text"
    run bob save -m "Bob edits $doc"
    run alice sync
    run bob sync
    run alice sync
    ALICE_VERSION=$alice_version
}

step "Setup: a bare remote, alice's container, bob joins by cloning"
git init -q --bare "$WORK/remote.git"
echo "\$ git init --bare remote.git"
echo "\$ docver init alice --device alice --device-name \"Alice's Laptop\""
"$DOCVER" init "$WORK/alice" --device alice --device-name "Alice's Laptop"
write alice shopping.txt 'Shopping\n- milk\n'
write alice packing.txt 'Packing list\n\nClothes:\n- shirts\n- socks\n\nGear:\n- tent\n- stove\n'
write alice todo.txt 'To do\n- book the ferry\n'
run alice save -m "First documents"
run alice remote add origin "$WORK/remote.git"
run alice sync
echo "\$ docver clone $WORK/remote.git bob --device bob --device-name \"Bob's Phone\""
"$DOCVER" clone "$WORK/remote.git" "$WORK/bob" --device bob --device-name "Bob's Phone"

step "1. latest-date: both devices add a different item on the same line of shopping.txt"
make_conflict shopping.txt 'Shopping\n- milk\n- eggs\n' 'Shopping\n- milk\n- bread\n'
run alice conflicts
run alice resolve shopping.txt --strategy latest-date
run alice sync
run bob sync
grep -qx -- '- bread' "$WORK/alice/shopping.txt" || fail "latest-date should keep bob's newer version"
cmp -s "$WORK/alice/shopping.txt" "$WORK/bob/shopping.txt" || fail "shopping.txt differs between devices"
echo "shopping.txt on both devices:"; cat "$WORK/bob/shopping.txt"

step "2. merge: alice adds clothes, bob adds gear to packing.txt (different lines)"
make_conflict packing.txt \
    'Packing list\n\nClothes:\n- shirts\n- socks\n- rain jacket\n\nGear:\n- tent\n- stove\n' \
    'Packing list\n\nClothes:\n- shirts\n- socks\n\nGear:\n- tent\n- stove\n- headlamp\n'
run alice conflicts packing.txt
run alice diff packing.txt "$ALICE_VERSION"
run alice resolve packing.txt --strategy merge --dry-run
run alice resolve packing.txt --strategy merge
run alice sync
run bob sync
grep -qx -- '- rain jacket' "$WORK/bob/packing.txt" && grep -qx -- '- headlamp' "$WORK/bob/packing.txt" \
    || fail "the merge should keep both edits"
echo "packing.txt on both devices:"; cat "$WORK/bob/packing.txt"

step "3. choose --keep: both devices rewrite the same line of todo.txt; alice's version is kept"
make_conflict todo.txt 'To do\n- book the 9:00 ferry\n' 'To do\n- book the 17:00 ferry\n'
run bob conflicts todo.txt
run bob resolve todo.txt --strategy choose --keep "$ALICE_VERSION"
run bob sync
run alice sync
grep -q '9:00' "$WORK/alice/todo.txt" || fail "choose should keep alice's version"
echo "todo.txt on both devices:"; cat "$WORK/alice/todo.txt"

step "Both devices agree: no conflicts, same branch tip"
run alice status
run bob status
alice_head=$(git -C "$WORK/alice" rev-parse HEAD)
bob_head=$(git -C "$WORK/bob" rev-parse HEAD)
echo "alice at ${alice_head:0:12}, bob at ${bob_head:0:12}"
[ "$alice_head" = "$bob_head" ] || fail "the devices did not converge"
run alice log -n 6
