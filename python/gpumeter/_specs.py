"""The callable a ``gpumeter evaluate`` spec names (``module:function`` or
``path/to/file.py:function``), imported as the evaluator's shell would import it: by the
candidate's process and by the checker, each for the parts it may import."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any, Callable, Dict, Optional, Tuple


def load(spec: Dict[str, str]) -> Tuple[Callable[..., Any], Optional[str]]:
    """The callable a spec names: ``{"module": "pkg.mod"}`` or ``{"path": "dir/file.py"}``,
    with ``attribute`` (dotted); and the file it was defined in."""
    if spec.get("path"):
        path = os.path.abspath(spec["path"])
        # A file inside a package is imported as the package's module (its relative imports
        # work); any other file as a module of its own, its folder leading sys.path so that its
        # sibling modules import as they would beside it.
        folder, stem = os.path.split(os.path.splitext(path)[0])
        dotted = [stem]
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            folder, package = os.path.split(folder)
            dotted.insert(0, package)
        if folder not in sys.path:
            sys.path.insert(0, folder)
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
