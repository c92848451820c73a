"""The callable a ``gpumeter evaluate`` spec names (``module:function`` or
``path/to/file.py:function``), imported as the evaluator's shell would import it: by the
candidate's process and by the checker, each for the parts it may import."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

#: The user's folders of an evaluation (its PYTHONPATH's entries and the current folder), which
#: evaluate's processes put after the interpreter's own path (B11): a file a candidate writes there
#: is never imported in place of gpumeter, the standard library or an installed package.
USER_PATH_VARIABLE = "GPUMETER_USER_PATH"


def user_path() -> None:
    """Appends the user's folders (``USER_PATH_VARIABLE``) to sys.path, after gpumeter's folder,
    the standard library and the installed packages; each once. Called first by every process
    evaluate starts (its checker, its warm server, each run)."""
    for folder in os.environ.get(USER_PATH_VARIABLE, "").split(os.pathsep):
        if folder and folder not in sys.path:
            sys.path.append(folder)


def process_environment(env: Mapping[str, str], package_folder: str,
                        user_folders: List[str]) -> Dict[str, str]:
    """The environment of a process evaluate starts (B11): the current folder never put first
    (PYTHONSAFEPATH, Python 3.11 and later), PYTHONPATH only gpumeter's own folder (what it
    names comes before the standard library), the user's folders appended by the process itself
    (``user_path``), and no bytecode written (a file that appears beside a source is then no
    interpreter's, see ``_guard``)."""
    out = dict(env)
    out["PYTHONPATH"] = package_folder
    out["PYTHONSAFEPATH"] = "1"
    out["PYTHONDONTWRITEBYTECODE"] = "1"
    out[USER_PATH_VARIABLE] = os.pathsep.join(dict.fromkeys(f for f in user_folders if f))
    return out


def load(spec: Dict[str, str]) -> Tuple[Callable[..., Any], Optional[str]]:
    """The callable a spec names: ``{"module": "pkg.mod"}`` or ``{"path": "dir/file.py"}``,
    with ``attribute`` (dotted); and the file it was defined in."""
    if spec.get("path"):
        path = os.path.abspath(spec["path"])
        # A file inside a package is imported as the package's module (its relative imports
        # work); any other file as a module of its own, its folder on sys.path so that its
        # sibling modules import as they would beside it: after the interpreter's own path
        # (B11), so a file written there never stands in for an installed module.
        folder, stem = os.path.split(os.path.splitext(path)[0])
        dotted = [stem]
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            folder, package = os.path.split(folder)
            dotted.insert(0, package)
        if folder not in sys.path:
            sys.path.append(folder)
        if len(dotted) > 1:
            module = importlib.import_module(".".join(dotted))
        else:
            name = stem if stem not in sys.modules else f"_gpumeter_evaluate_{stem}"
            loader = importlib.util.spec_from_file_location(name, path)
            if loader is None or loader.loader is None:
                raise ImportError(f"cannot import {path}")
            module = importlib.util.module_from_spec(loader)
            sys.modules[name] = module
            loader.loader.exec_module(module)
    else:
        module = importlib.import_module(spec["module"])
    target: Any = module
    for part in spec["attribute"].split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{spec['text']} is not callable")
    return target, getattr(module, "__file__", None)
