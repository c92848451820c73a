"""gpumeter.main(): the gpumeter command from Python (``python -m gpumeter``), with the
subcommands drawn or judged in Python (plot, evaluate) run here."""

from __future__ import annotations

import sys
from typing import Optional, Sequence

from . import _evaluate, _gpumeter
from .plot import main as plot_main


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m gpumeter report|compare|merge|env|lock|plot|run|evaluate|history ...`: the
    gpumeter command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["evaluate"]:
        # Candidates in processes of their own, judged here; the C++ command's `evaluate` runs
        # this.
        return _evaluate.main(args[1:])
    if args[:1] == ["plot"]:
        # Drawn in Python (matplotlib); the C++ command's `plot` runs this.
        return plot_main(args[1:])
    rc, out, err = _gpumeter.cli(args)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return rc
