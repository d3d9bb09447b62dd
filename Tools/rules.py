#!/usr/bin/env python3
"""Where each numbered rule of docs/MODEL.md lives, and whether the code says so.

    python3 Tools/rules.py            # each rule: its places and its tests, found or not
    python3 Tools/rules.py --check    # exit 1 when a rule's place or test does not name it
    python3 Tools/rules.py --tag      # add the missing numbers to those doc comments

docs/MODEL.md states the rules of the conflict core as R1, R2, ...; each names where it is
implemented (*Where today:* `Type.member`, `Type`) and the tests that pin it (*Pinned by:*
`testName`). The rule holds its place when the doc comment of each such declaration and of
each such test names it (`R7`, or a range such as `R8-R10`), so that a reader of the code
finds the rule, and a reader of the rule finds the code. --check fails when a named
declaration or test does not exist, or its doc comment does not name the rule.
"""

import os
import re
import sys

ROOT = os.environ.get("DOCVER_RULES_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "docs", "MODEL.md")
SOURCES = os.path.join(ROOT, "Sources", "DocverKit")
TESTS = os.path.join(ROOT, "Tests")

RULE = re.compile(r"^\*\*R(\d+)\.", re.M)
TICKED = re.compile(r"`([^`]+)`")
PLACE = re.compile(r"^([A-Z]\w*)(?:\.([a-zA-Z_]\w*))?")
TEST_NAME = re.compile(r"^[a-z]\w+$")
MENTION = re.compile(r"\bR(\d+)(?:\s*[-–]\s*R(\d+))?\b")
TAG = re.compile(r"^(\s*)/// \(docs/MODEL\.md: (R\d+(?:, R\d+)*)\.\)$")


def rules():
    """Rule number → (places as (type, member or None), test names), read from docs/MODEL.md."""
    with open(MODEL, encoding="utf-8") as handle:
        text = handle.read()
    result = {}
    for match in RULE.finditer(text):
        end = text.find("\n\n", match.start())
        paragraph = re.sub(r"\s+", " ", text[match.start(): end if end >= 0 else len(text)])
        where = paragraph.split("*Where today:*", 1)[1] if "*Where today:*" in paragraph else ""
        where, _, pinned = where.partition("*Pinned by:*")
        if not pinned and "*Pinned by:*" in paragraph:
            pinned = paragraph.split("*Pinned by:*", 1)[1]
        places = []
        for ticked in TICKED.findall(where):
            place = PLACE.match(ticked)
            if place and (place.group(1), place.group(2)) not in places:
                places.append((place.group(1), place.group(2)))
        tests = [name for name in TICKED.findall(pinned) if TEST_NAME.match(name)]
        result[int(match.group(1))] = (places, list(dict.fromkeys(tests)))
    return result


def swift_files(root):
    for base, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def read_lines(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().split("\n")


def comment_above(lines, index):
    """The range of the `///` block above line `index`, skipping attributes and blank-free
    modifiers (`@Test(...)`, `@discardableResult`); (start, end) with end exclusive."""
    cursor = index - 1
    while cursor >= 0 and lines[cursor].strip().startswith("@"):
        cursor -= 1
    end = cursor + 1
    while cursor >= 0 and lines[cursor].strip().startswith("///"):
        cursor -= 1
    return cursor + 1, end


def named_rules(text):
    found = set()
    for match in MENTION.finditer(text):
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        found.update(range(first, last + 1))
    return found


def declaration_index():
    """(type, member) → [(path, line index)]; (type, None) for the type itself."""
    index = {}
    type_decl = re.compile(r"^\s*(?:public |internal |private |fileprivate |final |indirect )*(?:struct|class|enum|protocol|actor|extension)\s+(\w+)")
    member_decl = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|static|mutating|nonmutating|override|final|nonisolated|lazy)\s+)*(?:func|var|let|case)\s+`?(\w+)")
    init_decl = re.compile(r"^\s*(?:(?:public|internal|private|fileprivate|convenience|required)\s+)*(init)[?(<]")
    for path in swift_files(SOURCES):
        lines = read_lines(path)
        stack = []  # (type name, depth at which it opened)
        depth = 0
        for number, line in enumerate(lines):
            code = re.sub(r"//.*", "", line)
            code = re.sub(r'"(?:\\.|[^"\\])*"', '""', code)
            declared = type_decl.match(code)
            if declared:
                if not code.lstrip().startswith("extension"):
                    index.setdefault((declared.group(1), None), []).append((path, number))
                stack.append((declared.group(1), depth))
            elif stack:
                member = member_decl.match(code) or init_decl.match(code)
                if member:
                    index.setdefault((stack[-1][0], member.group(1)), []).append((path, number))
            depth += code.count("{") - code.count("}")
            while stack and depth <= stack[-1][1] and "}" in code:
                stack.pop()
    return index


def test_index():
    """Test function name → [(path, line index)]."""
    index = {}
    test_decl = re.compile(r"^\s*(?:@Test(?:\(.*\))?\s+)?(?:(?:static|private|mutating)\s+)*func\s+(\w+)\s*\(")
    for path in swift_files(TESTS):
        lines = read_lines(path)
        for number, line in enumerate(lines):
            match = test_decl.match(line)
            if match:
                index.setdefault(match.group(1), []).append((path, number))
    return index


def findings():
    """(problems, missing tags as {path: {line index: set of rules}})."""
    problems, missing = [], {}
    declarations, tests = declaration_index(), test_index()
    for number, (places, names) in sorted(rules().items()):
        targets = []
        for type_name, member in places:
            found = declarations.get((type_name, member), [])
            label = type_name + ("." + member if member else "")
            if not found:
                problems.append(f"R{number}: {label} (docs/MODEL.md, *Where today*) is declared nowhere in Sources/DocverKit")
            targets.append((label, found))
        for name in names:
            found = tests.get(name, [])
            if not found:
                problems.append(f"R{number}: test {name} (docs/MODEL.md, *Pinned by*) does not exist")
            targets.append((name, found))
        if not targets:
            problems.append(f"R{number}: names no place and no test")
        for label, found in targets:
            if not found:
                continue
            # One of the declarations of that name (overloads, an extension's) must name the rule.
            named = False
            for path, line in found:
                lines = read_lines(path)
                start, end = comment_above(lines, line)
                if number in named_rules("\n".join(lines[start:line + 1])):
                    named = True
                    break
            if not named:
                path, line = found[0]
                missing.setdefault(path, {}).setdefault(line, set()).add(number)
                problems.append(f"R{number}: the doc comment of {label} ({os.path.relpath(path, ROOT)}:{line + 1}) does not name it")
    return problems, missing


def tag(missing):
    """Adds `/// (docs/MODEL.md: R1, R2.)` to each doc comment that lacks its rules."""
    for path, wanted in missing.items():
        lines = read_lines(path)
        for line in sorted(wanted, reverse=True):
            start, end = comment_above(lines, line)
            indent = re.match(r"\s*", lines[line]).group(0)
            existing = next((i for i in range(start, end) if TAG.match(lines[i])), None)
            if existing is not None:
                have = {int(r[1:]) for r in TAG.match(lines[existing]).group(2).split(", ")}
                numbers = sorted(have | wanted[line])
                lines[existing] = f"{TAG.match(lines[existing]).group(1)}/// (docs/MODEL.md: {', '.join(f'R{n}' for n in numbers)}.)"
            else:
                tag_line = f"{indent}/// (docs/MODEL.md: {', '.join(f'R{n}' for n in sorted(wanted[line]))}.)"
                if end > start:
                    lines.insert(end, tag_line)
                else:
                    # No doc comment: the tag goes above the attributes.
                    lines.insert(end, tag_line)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines))


def main():
    if "--tag" in sys.argv:
        _, missing = findings()
        tag(missing)
        return 0
    problems, _ = findings()
    if "--check" in sys.argv:
        for problem in problems:
            print("rules: " + problem, file=sys.stderr)
        return 1 if problems else 0
    declarations, tests = declaration_index(), test_index()
    for number, (places, names) in sorted(rules().items()):
        where = ", ".join(t + ("." + m if m else "") + ("" if declarations.get((t, m)) else " (missing)") for t, m in places)
        pinned = ", ".join(n + ("" if tests.get(n) else " (missing)") for n in names)
        print(f"R{number}: {where or '-'} | {pinned or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
