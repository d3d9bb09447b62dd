#!/usr/bin/env python3
"""Which rooms (folders) of Sources/DocverKit use which: the dependency graph drawn from the code.

    python3 Tools/rooms.py            # the graph, as docs/ARCHITECTURE.md shows it
    python3 Tools/rooms.py --check    # exit 1 when the code and the rules disagree

A room uses another when one of its files names a type, or calls a member of an extension of
`Container` or `Repository`, declared only in the other room. The rules are the order of the
rooms in docs/ARCHITECTURE.md: a room may use the rooms listed before it, never one after it.
The uses that break the rule today are listed in Tools/rooms-exceptions.txt with the finding
(docs/MODEL.md) that will remove them. --check fails on a use that breaks the rule and is not
listed, on a listed exception the code no longer has (remove it from the list), and when the
graph in docs/ARCHITECTURE.md is not the one the code draws.
"""

import os
import re
import sys

ROOT = os.environ.get("DOCVER_ROOMS_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, "Sources", "DocverKit")
# The order of docs/ARCHITECTURE.md's table: each room may use the ones before it.
ORDER = ["System", "Git", "Model", "Format", "Storage", "Index", "History", "Resolve", "Sync", "Query",
         "KeyValue", "Agent", "Protocol", "Editor"]
EXCEPTIONS = os.path.join(ROOT, "Tools", "rooms-exceptions.txt")
ARCHITECTURE = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
BEGIN, END = "<!-- rooms.py: begin -->", "<!-- rooms.py: end -->"

TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|#?"""(?:.|\n)*?"""#?|#?"(?:\\.|[^"\\\n])*"#?', re.S)
TYPE = re.compile(r'\b(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)')
MEMBER = re.compile(r'\b(?:func|var|let|case)\s+`?([a-zA-Z_]\w*)')
EXTENSION = re.compile(r'^extension\s+(\w+)')


def strip(text):
    """The text without comments and string literals (their contents name nothing)."""
    return TOKEN.sub(lambda match: "" if match.group(0).startswith("/") else '""', text)


def files():
    for room in sorted(os.listdir(KIT)):
        folder = os.path.join(KIT, room)
        if not os.path.isdir(folder) or room not in ORDER:
            continue
        for base, _, names in os.walk(folder):
            for name in sorted(names):
                if name.endswith(".swift"):
                    path = os.path.join(base, name)
                    with open(path, encoding="utf-8") as handle:
                        yield room, os.path.relpath(path, ROOT), strip(handle.read())


def declarations(sources):
    """Top-level type names → rooms declaring them; members of Container's and Repository's extensions →
    rooms; every other member name (declared anywhere else, which makes a name ambiguous)."""
    types, members, elsewhere = {}, {}, set()
    for room, _, text in sources:
        depth, extended = 0, None
        for line in text.split("\n"):
            stripped = line.strip()
            if depth == 0:
                found = EXTENSION.match(stripped)
                extended = found.group(1) if found else None
                # Top-level types only: a nested `Result` is not the standard library's.
                for name in TYPE.findall(stripped):
                    types.setdefault(name, set()).add(room)
            if depth == 1 and extended in ("Container", "Repository"):
                for name in MEMBER.findall(stripped):
                    members.setdefault(name, set()).add(room)
            else:
                elsewhere.update(MEMBER.findall(stripped))
            depth += line.count("{") - line.count("}")
    types = {name: rooms.pop() for name, rooms in types.items() if len(rooms) == 1}
    members = {name: rooms.pop() for name, rooms in members.items()
               if len(rooms) == 1 and name not in elsewhere and len(name) > 3}
    return types, members


def uses(sources):
    """(room, used room) → the first file and name that shows it."""
    types, members = declarations(sources)
    found = {}
    for room, path, text in sources:
        for word in set(re.findall(r'\b[A-Z]\w*\b', text)):
            other = types.get(word)
            if other and other != room:
                found.setdefault((room, other), (path, word))
        for word in set(re.findall(r'\.?\b([a-z]\w*)\s*\(', text)):
            other = members.get(word)
            if other and other != room:
                found.setdefault((room, other), (path, word + "("))
    return found


def graph(found):
    lines = []
    for room in ORDER:
        used = sorted({other for (user, other) in found if user == room}, key=ORDER.index)
        lines.append(f"    {room:<9} → " + (", ".join(used) if used else "(nothing)"))
    return "\n".join(lines)


def breaks(found):
    return {pair: where for pair, where in found.items() if ORDER.index(pair[1]) > ORDER.index(pair[0])}


def read_exceptions():
    listed = {}
    if os.path.exists(EXCEPTIONS):
        with open(EXCEPTIONS, encoding="utf-8") as handle:
            for line in handle:
                line = line.split("#", 1)[0].strip()
                if line:
                    user, _, other = line.partition("->")
                    listed[(user.strip(), other.strip())] = line
    return listed


def main(argv):
    sources = list(files())
    found = uses(sources)
    drawn = graph(found)
    if "--check" not in argv:
        print(drawn)
        for (user, other), (path, name) in sorted(breaks(found).items()):
            print(f"breaks the order: {user} -> {other} ({path}: {name})")
        return 0
    problems = []
    listed = read_exceptions()
    for (user, other), (path, name) in sorted(breaks(found).items()):
        if (user, other) not in listed:
            problems.append(f"{user} uses {other}, which comes after it in docs/ARCHITECTURE.md "
                            f"({path}: {name}); move the code, or list it in Tools/rooms-exceptions.txt with why")
    for pair in sorted(listed):
        if pair not in breaks(found):
            problems.append(f"{pair[0]} -> {pair[1]} is listed in Tools/rooms-exceptions.txt but the code no "
                            f"longer has it: remove the line")
    with open(ARCHITECTURE, encoding="utf-8") as handle:
        architecture = handle.read()
    if BEGIN not in architecture or END not in architecture:
        problems.append(f"docs/ARCHITECTURE.md has no {BEGIN} … {END} block for the graph")
    else:
        shown = architecture.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")
        expected = "```\n" + drawn + "\n```"
        if shown.strip() != expected.strip():
            problems.append("docs/ARCHITECTURE.md's graph is not the code's; replace the block with:\n" + expected)
    for problem in problems:
        print("rooms: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
