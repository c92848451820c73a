"""The files no candidate of ``gpumeter evaluate`` may change (B11): gpumeter's own package, the
reference's and the input generator's sources, and every candidate's source. Each is read into
memory before the first run and compared after every run; a file changed, removed or added (a
compiled ``.pyc`` beside a source, a file in gpumeter's package) is put back as it was, or
removed, before the next run starts, and the run that did it is named.

Why: every run imports gpumeter, the reference and the input generator afresh from disk, and a
later candidate's own file is imported when its turn comes. A candidate that edits any of them
would decide what later runs measure, check or are held to. The processes evaluate starts write
no bytecode (PYTHONDONTWRITEBYTECODE, ``_specs.process_environment``), so a ``.pyc`` that appears
beside a watched source is a candidate's: Python would run it in place of the source whose size
and time it names.
"""

from __future__ import annotations

import os
import shutil
from typing import Dict, List, Optional, Tuple


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


class Files:
    """The watched files and what they held. ``add`` a file (with whose it is), ``add_folder`` a
    whole folder (gpumeter's package: a file added there is removed too); ``check`` after each
    run."""

    def __init__(self) -> None:
        # Each file's whose and bytes (None: absent). Compared by content after every run, not
        # by its times: a same-size write within the file system's time resolution leaves them
        # as they were (gpumeter's package is a few MB, read from the page cache).
        self._kept: Dict[str, Tuple[str, Optional[bytes]]] = {}
        self._folders: List[Tuple[str, str]] = []  # (folder, whose): nothing may be added there
        self._caches: List[Tuple[str, str, str]] = []  # (__pycache__ folder, stem., whose)

    def add(self, path: str, whose: str) -> None:
        """``path`` as it is now (absent is kept as absent), and the compiled copies Python would
        run in its place (``__pycache__/STEM.*.pyc``)."""
        path = os.path.realpath(path)
        if path in self._kept:
            return
        self._kept[path] = (whose, None if os.path.islink(path) else _read(path))
        if path.endswith(".py"):
            cache = os.path.join(os.path.dirname(path), "__pycache__")
            stem = os.path.splitext(os.path.basename(path))[0] + "."
            self._caches.append((cache, stem, whose))
            for name in self._listing(cache):
                if name.startswith(stem) and name.endswith(".pyc"):
                    self.add(os.path.join(cache, name), whose)

    def add_folder(self, folder: str, whose: str) -> None:
        """Every file under ``folder`` as it is now; a file added there later is removed."""
        folder = os.path.realpath(folder)
        self._folders.append((folder, whose))
        for path in self._walk(folder):
            self.add(path, whose)

    def check(self) -> List[str]:
        """Each watched file changed since it was kept, put back; each file added where none may
        be, removed: one sentence per file ("changed gpumeter's file X while it ran"), none where
        nothing changed."""
        said: List[str] = []
        for path, (whose, content) in self._kept.items():
            there = os.path.lexists(path)
            if content is None:
                if not there:
                    continue
                said.append(f"wrote {whose} file {path} while it ran (removed)")
            else:
                # A link put in its place is a change, whatever it points to.
                now = None if os.path.islink(path) or not os.path.isfile(path) else _read(path)
                if now == content:
                    continue
                said.append(f"{'changed' if there else 'removed'} {whose} file {path} while it "
                            "ran (put back)")
            self._restore(path, content)
        for path, whose in self._added():
            said.append(f"added {path} to {whose} files while it ran (removed)")
            _remove(path)
        return said

    def _added(self) -> List[Tuple[str, str]]:
        found: Dict[str, str] = {}
        for folder, whose in self._folders:
            for path in self._walk(folder):
                if os.path.realpath(path) not in self._kept:
                    found.setdefault(path, whose)
        for cache, stem, whose in self._caches:
            for name in self._listing(cache):
                path = os.path.join(cache, name)
                if name.startswith(stem) and os.path.realpath(path) not in self._kept:
                    found.setdefault(path, whose)
        return list(found.items())

    @staticmethod
    def _restore(path: str, content: Optional[bytes]) -> None:
        """``path`` as it was: its bytes written anew (a link or a folder put there removed
        first), or, where it was absent, removed."""
        if content is None:
            _remove(path)
            return
        if os.path.islink(path) or os.path.isdir(path):
            _remove(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())

    @staticmethod
    def _listing(folder: str) -> List[str]:
        try:
            return sorted(os.listdir(folder))
        except OSError:
            return []

    @staticmethod
    def _walk(folder: str) -> List[str]:
        out: List[str] = []
        for top, dirs, names in os.walk(folder):
            dirs.sort()
            out += [os.path.join(top, n) for n in sorted(names)]
            # A link to a folder is listed as a file of its own, never followed.
            out += [os.path.join(top, d) for d in dirs if os.path.islink(os.path.join(top, d))]
        return out
