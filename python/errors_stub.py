"""Writes gpumeter/_errors.pyi from the built extension's error catalogue (run at build time by
python/CMakeLists.txt, the extension imported alone): what type checkers read of the error
classes gpumeter/_errors.py makes from the same list at import.

    python errors_stub.py MODULE_DIR OUTPUT
"""
import sys
from typing import Any, List


def stub_text(catalogue: List[Any]) -> str:
    """``_errors.pyi``: what type checkers read of this module, from the same catalogue."""
    lines = ['"""gpumeter\'s errors (written from the core\'s catalogue when the package is built)."""',
             "from typing import Any, Dict, List, Optional, Tuple, Type", "",
             "class Error(Exception):", "    error_class: str", "    exit_code: int",
             "    fields: Tuple[Tuple[str, str], ...]",
             "    def __init__(self, message: str = ..., **fields: Any) -> None: ...", ""]
    for entry in catalogue:
        lines.append(f"class {entry.name}({entry.base}):")
        fields = [(str(n), str(t)) for n, t in entry.fields]
        for name, kind in fields:
            lines.append(f"    {name}: {kind}")
        args = "".join(f", {n}: {t}" + (" = ..." if t.startswith("Optional[") or t == "bool"
                                         else "") for n, t in fields)
        lines.append(f"    def __init__(self, message: str = ...{', *' + args if args else ''})"
                     " -> None: ...")
        lines.append("")
    # What `from ._errors import *` brings into the package, listed so type checkers see each name
    # (gpumeter/__init__.py names none of them).
    names = ["Error", "GpumeterWarning", "FallbackWarning"] + [e.name for e in catalogue]
    lines += ["__all__ = [" + ", ".join(f'"{n}"' for n in names) + "]", "",
              "ERRORS: List[type]", "",
              "class GpumeterWarning(UserWarning): ...", "",
              "class FallbackWarning(GpumeterWarning): ...", ""]
    return "\n".join(lines)


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    import _gpumeter  # the extension alone: the package around it is not needed
    with open(sys.argv[2], "w") as f:
        f.write(stub_text(_gpumeter.error_catalogue()))


if __name__ == "__main__":
    main()
