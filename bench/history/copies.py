"""Many records for timing `gpumeter history`: copies of real records, each given a run id, a commit
and a creation time of its own, its bytes otherwise untouched (every copy is read, checked and
recomputed by the strict reader as its original is).

    python3 bench/history/copies.py RECORDS_DIR OUT_DIR [N] [PER_COMMIT]

writes N copies (default 10,000) of the records under RECORDS_DIR (gpumeter-*.json, at any depth)
into OUT_DIR/<commit>/, PER_COMMIT (default 10) to a commit, each commit's copies of distinct
originals (so none is the same measurement twice within a commit). The copies are for timing the
builder only: what the site they make says about the code is meaningless.
"""

from __future__ import annotations

import pathlib
import re
import sys


def restamped(text: str, run_id: str, commit: str, created: str) -> str:
    """The record's text with three header fields replaced, nothing else changed."""
    for key, value in (("run_id", run_id), ("project_commit", commit), ("created_utc", created)):
        text, n = re.subn(r'"%s": (null|"[^"]*")' % key, '"%s": "%s"' % (key, value), text, count=1)
        if n != 1:
            raise SystemExit(f"copies: no {key} field in a record")
    return text


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sources = sorted(pathlib.Path(argv[0]).rglob("gpumeter-*.json"))
    out = pathlib.Path(argv[1])
    n = int(argv[2]) if len(argv) > 2 else 10_000
    per_commit = int(argv[3]) if len(argv) > 3 else 10
    if not sources or per_commit > len(sources):
        print(f"copies: need at least {per_commit} records under {argv[0]}", file=sys.stderr)
        return 2
    texts = [s.read_text() for s in sources]
    for i in range(n):
        c = i // per_commit
        commit = f"{c + 1:040x}"
        seconds = i  # one second apart, in commit order
        created = "2026-%02d-%02dT%02d:%02d:%02dZ" % (
            1 + seconds // (86400 * 28) % 12,
            1 + seconds // 86400 % 28,
            seconds // 3600 % 24,
            seconds // 60 % 60,
            seconds % 60,
        )
        run_id = f"copy-{i:06d}"
        folder = out / commit[-8:]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"gpumeter-{run_id}.json").write_text(
            restamped(texts[i % len(texts)], run_id, commit, created)
        )
    print(f"copies: {n} records of {len(sources)} originals in {out}, {per_commit} a commit")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
