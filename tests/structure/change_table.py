#!/usr/bin/env python3
"""docs/architecture.md's "What a change touches" names real files and real registries.

The table tells a contributor which files a change of each kind touches. A file moved or renamed,
or a registry renamed, leaves the table pointing at nothing, and nothing else would notice: this
check reads the section and fails, naming the row, on
  - a path in backticks (with a '/') that is not in the tree: `src/cli/cli.cpp`; `detail/X.hpp`
    and a bare `X.hpp` are looked for under include/gpumeter and src/include/gpumeter; a path
    holding NAME or N (`src/cli/NAME.cpp`) is a pattern, not a file, and is skipped;
  - a name (NAME in it: a pattern, skipped) followed by its file, "`add_commands` (`src/cli/cli.cpp`)" or "`kTimingNames` in
    `session.hpp`" (also with "and in" or a comma between), that the file does not hold.

    change_table.py SOURCE_DIR
"""

import pathlib
import re
import sys

SECTION_START = "### What a change touches"
SECTION_END = "## Tests, by layer"
# Where a short header path (`detail/option_meaning.hpp`, `session.hpp`) lives.
HEADER_ROOTS = ("include/gpumeter", "src/include/gpumeter")
PLACEHOLDER = re.compile(r"(^|[/_])(NAME|N)([/_.]|$)|_vN\b")
# `name` followed by its file: "(`path`" or "in `path`".
NAMED_IN = re.compile(r"`([A-Za-z_][A-Za-z0-9_:]*)(?:\(\))?`\s*(?:\(|in\s+)`([^`]+\.[a-z]+)`")


def resolve(root: pathlib.Path, path: str) -> pathlib.Path | None:
    candidates = [root / path]
    if not path.startswith(("src/", "include/", "tests/", "python/", "docs/", "bench/")):
        candidates += [root / base / path for base in HEADER_ROOTS]
    for c in candidates:
        if c.exists():
            return c
    return None


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    text = (root / "docs/architecture.md").read_text(encoding="utf-8")
    start = text.find(SECTION_START)
    end = text.find(SECTION_END, start)
    if start < 0 or end < 0:
        print(f"FAIL: docs/architecture.md has no section {SECTION_START!r}", file=sys.stderr)
        return 1
    # The header and the |---| line first.
    rows = [line for line in text[start:end].splitlines() if line.startswith("|")][2:]
    if not rows:
        print("FAIL: the section's table has no rows", file=sys.stderr)
        return 1
    problems = []
    checked_paths = checked_names = 0
    for row in rows:
        change = row.split("|")[1].strip()
        for token in re.findall(r"`([^`]+)`", row):
            if "/" not in token or " " in token or PLACEHOLDER.search(token):
                continue
            checked_paths += 1
            if resolve(root, token) is None:
                problems.append(f"{change}: `{token}` is not in the tree")
        for name, path in NAMED_IN.findall(row):
            if PLACEHOLDER.search(path) or PLACEHOLDER.search(name):
                continue
            found = resolve(root, path)
            if found is None or found.is_dir():
                continue  # reported above when it has a '/'
            checked_names += 1
            bare = name.split("::")[-1]
            if not re.search(rf"\b{re.escape(bare)}\b", found.read_text(encoding="utf-8")):
                problems.append(f"{change}: `{name}` is not in `{path}`")
    for p in problems:
        print(f"FAIL: docs/architecture.md, what a change touches: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"what a change touches: {len(rows)} rows, {checked_paths} paths and {checked_names} "
          "names, each in the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
