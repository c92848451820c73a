"""Writes gpumeter_pytest/_option_help.py from the built extension's option meanings (run at build
time by python/CMakeLists.txt, the extension imported alone): the helps of the options the pytest
plugin shares with gpumeter's other front ends, which it reads when pytest reads its options,
before anything may import the extension (importing gpumeter loads CUDA's libraries).

    python option_help.py MODULE_DIR OUTPUT
"""
import sys
from typing import Dict


def module_text(meanings: Dict[str, str]) -> str:
    """``_option_help.py``: the core's helps, by command-line name."""
    lines = ['"""The helps of the options the pytest plugin shares with gpumeter\'s other front '
             'ends, by',
             "their command-line name: the core's (option_meaning.hpp, exported as "
             "option_meanings()),",
             'written from it when the package is built (python/option_help.py). Do not edit."""',
             "from typing import Dict", "", "HELP: Dict[str, str] = {"]
    lines += [f"    {name!r}: {meanings[name]!r}," for name in sorted(meanings)]
    lines += ["}", ""]
    return "\n".join(lines)


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    import _gpumeter  # the extension alone: the package around it is not needed
    with open(sys.argv[2], "w") as f:
        f.write(module_text(_gpumeter.option_meanings()))


if __name__ == "__main__":
    main()
