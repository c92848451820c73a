"""Whether the functions a ``gpumeter evaluate`` run names exist, found without running any of
their code: run by ``gpumeter evaluate`` before anything is measured, as a script of its own in
the candidates' interpreter, environment and folder (``python _locate.py ORDER``), it finds each
module as an import would (the finders only: no module is executed) and reads the source's
syntax tree for the function's name. A name it cannot see bound (a module of compiled code, a
``from x import *``, names made at run time) is left to the run, which imports it where it may.

No candidate code runs here, and none in the evaluator's process: guarantee 13's reference alone
is still measured before any candidate code runs (docs/evaluation.md). Written for every Python
gpumeter supports, without gpumeter itself: the script runs in whatever interpreter ``--python``
names.
"""

import ast
import difflib
import importlib.machinery
import importlib.util
import json
import os
import sys
from typing import Any, Dict, List, Optional, Set, Tuple

# Names whose use lets a module bind names the syntax tree does not show.
_DYNAMIC_NAMES = {"globals", "vars", "locals", "exec", "eval", "setattr", "__import__"}
_DYNAMIC_ATTRIBUTES = {"__dict__", "modules", "setattr"}  # sys.modules, builtins.setattr


def _targets(node: ast.AST, into: Set[str]) -> None:
    if isinstance(node, ast.Name):
        into.add(node.id)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for e in node.elts:
            _targets(e, into)
    elif isinstance(node, ast.Starred):
        _targets(node.value, into)


def _bound(body: List[ast.stmt], into: Set[str], defined: List[Any]) -> bool:
    """The names a block of module-level statements binds (conditional ones included); False
    where one binds names the tree cannot show (``from x import *``)."""
    for s in body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            into.add(s.name)
            defined.append(s)
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                _targets(t, into)
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            _targets(s.target, into)
        elif isinstance(s, ast.Import):
            for a in s.names:
                into.add(a.asname or a.name.split(".")[0])
        elif isinstance(s, ast.ImportFrom):
            for a in s.names:
                if a.name == "*":
                    return False
                into.add(a.asname or a.name)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            _targets(s.target, into)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                if item.optional_vars is not None:
                    _targets(item.optional_vars, into)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and not isinstance(
                    s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not _bound(block, into, defined):
                    return False
        for handler in getattr(s, "handlers", []) or []:
            if handler.name:
                into.add(handler.name)
            if not _bound(handler.body, into, defined):
                return False
        for case in getattr(s, "cases", []) or []:  # match (3.10+): its captures are unseen
            return False
    return True


def _names(tree: ast.AST) -> Tuple[Optional[Set[str]], List[Any]]:
    """The module's names, or None where some are made at run time (any use of globals(),
    setattr, exec, sys.modules, a module __getattr__, a name declared global in a function)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _DYNAMIC_NAMES:
            return None, []
        if isinstance(node, ast.Attribute) and node.attr in _DYNAMIC_ATTRIBUTES:
            return None, []
        if isinstance(node, ast.Global):
            return None, []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == "__getattr__":
            return None, []
        if isinstance(node, ast.NamedExpr if hasattr(ast, "NamedExpr") else ()):
            return None, []
    names: Set[str] = set()
    defined: List[Any] = []
    if not isinstance(tree, ast.Module) or not _bound(tree.body, names, defined):
        return None, []
    return names, defined


def _problem_in(path: str, attribute: str) -> str:
    """Why ``attribute`` is not in the module whose source is ``path``, or "" (also where the
    source cannot say)."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return ""  # the import will say what is wrong with it
    names, defined = _names(tree)
    if names is None:
        return ""
    parts = attribute.split(".")
    if parts[0] not in names:
        functions = sorted(d.name for d in defined if not d.name.startswith("_"))
        close = difflib.get_close_matches(parts[0], sorted(names), n=1)
        said = f"no function {parts[0]!r} in {path}"
        if close:
            said += f" (did you mean {close[0]!r}?)"
        elif functions:
            shown = ", ".join(functions[:8]) + (", ..." if len(functions) > 8 else "")
            said += f" (its functions and classes: {shown})"
        elif not names:
            said += " (it binds no names)"
        return said
    if len(parts) > 1:
        classes = [d for d in defined if d.name == parts[0]]
        # One plain class, nothing else of that name: its body says what it has.
        if len(classes) == 1 and isinstance(classes[0], ast.ClassDef) and \
                not classes[0].bases and not classes[0].keywords and \
                not classes[0].decorator_list and \
                sum(1 for d in defined if d.name == parts[0]) == 1:
            members: Set[str] = set()
            if _bound(classes[0].body, members, []) and parts[1] not in members:
                return f"class {parts[0]!r} of {path} has no attribute {parts[1]!r}"
    return ""


def _module_problem(module: str, attribute: str) -> str:
    """Why ``module:attribute`` cannot be imported as named, or ""."""
    parts = module.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])  # the finders only: nothing is executed
    except (ImportError, ValueError):
        return ""
    if spec is None:
        return (f"no module {parts[0]!r} where {sys.executable} finds modules (the current "
                "folder, PYTHONPATH, its site-packages)")
    for i in range(1, len(parts)):
        places = spec.submodule_search_locations
        if not places:
            return f"{'.'.join(parts[:i])!r} is a module, not a package: no module " \
                   f"{'.'.join(parts[:i + 1])!r}"
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:i + 1]), list(places))
        if spec is None:
            return f"no module {'.'.join(parts[:i + 1])!r}"
    origin = spec.origin
    if not origin or not origin.endswith(".py"):
        return ""  # compiled, frozen or a namespace package: the import will say
    if spec.submodule_search_locations:
        # A package: an attribute may be a submodule its __init__ imports at run time.
        for place in spec.submodule_search_locations:
            first = attribute.split(".")[0]
            if os.path.exists(os.path.join(place, first + ".py")) or \
                    os.path.isdir(os.path.join(place, first)):
                return ""
    return _problem_in(origin, attribute)


def sources(spec: Dict[str, str]) -> List[str]:
    """The source files importing a parsed spec runs, found as ``problem`` finds them (nothing
    executed): its module's file and the ``__init__.py`` of every package above it. Files of
    compiled modules, and modules not found, are left out."""
    found: List[str] = []
    if spec.get("path"):
        path = os.path.abspath(spec["path"])
        found.append(path)
        folder = os.path.dirname(path)
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            found.append(os.path.join(folder, "__init__.py"))
            folder = os.path.dirname(folder)
        return found
    parts = spec["module"].split(".")
    try:
        found_spec = importlib.util.find_spec(parts[0])
        for i in range(len(parts)):
            if found_spec is None:
                break
            if found_spec.origin and found_spec.origin.endswith(".py"):
                found.append(os.path.abspath(found_spec.origin))
            places = found_spec.submodule_search_locations
            if i + 1 == len(parts) or not places:
                break
            found_spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:i + 2]),
                                                                  list(places))
    except (ImportError, ValueError):
        pass
    return found


def problem(spec: Dict[str, str]) -> str:
    """Why the function a parsed spec names (``{"module"|"path", "attribute"}``) cannot be
    found, or "" where it is, or where only importing it could tell."""
    if spec.get("path"):
        return _problem_in(spec["path"], spec["attribute"])
    return _module_problem(spec["module"], spec["attribute"])


def main() -> None:
    # As the candidates' processes see modules (B11): gpumeter's folder (PYTHONPATH), the
    # interpreter's own path, then the user's folders evaluate names (GPUMETER_USER_PATH, the
    # current folder last); this file's folder nowhere.
    if not getattr(sys.flags, "safe_path", False):
        del sys.path[0]
    for folder in os.environ.get("GPUMETER_USER_PATH", "").split(os.pathsep):
        if folder and folder not in sys.path:
            sys.path.append(folder)
    if "GPUMETER_USER_PATH" not in os.environ:
        sys.path.insert(0, os.getcwd())
    specs = json.loads(sys.argv[1])["specs"]  # _wire.order_argument's object
    sys.stdout.write(json.dumps([problem(s) for s in specs]) + "\n")


if __name__ == "__main__":
    main()
