"""What ``gpumeter evaluate`` checks before anything runs: every option's value by the rule the
Python API and the programs apply (the core's, read through the extension, never spelled here),
and the reference's, the input generator's and every candidate's function found where the
candidates' interpreter would import it, without running any of their code (``_locate.py``). A
bad argument is one line naming it and what it may be, exit 2, nothing run.
"""

from __future__ import annotations

import argparse
import os
from typing import Dict, List, Optional, Sequence, Tuple

from gpumeter import _child, _gpumeter, _wire
from gpumeter._evaluate import UsageError


def _number(flag: str, text: str, rule: str) -> float:
    """The value of a numeric option's text by the core's reader and rule of that name (a
    fraction, 1% or 0.01; a duration, 10s, 500ms or bare seconds), as every program reads it;
    raises UsageError with the core's line."""
    problem = _gpumeter.number_option_problem(flag, text, rule)
    if problem:
        raise UsageError(problem)
    value, must = _gpumeter.read_number(text, rule)
    if value is None:  # the rule's problem above says the same; the reader is the one source
        raise UsageError(f"{flag} {text!r}: {must}")
    return float(value)


def check_options(args: argparse.Namespace) -> None:
    """Every numeric option by its rule, before anything runs; sets ``args.timeout``,
    ``args.budget`` (warm-up ms, measure ms), ``args.precision`` (a fraction),
    ``args.max_time`` (seconds) and ``args.device`` (an index) to their values. Raises UsageError naming the option and what it
    may be."""
    core = _gpumeter
    timeout = str(args.timeout)
    problem = core.number_option_problem("--timeout", timeout, "process_limit_seconds")
    if problem:
        raise UsageError(problem + " (a candidate's process is killed after that long; there is "
                         "no unlimited value)")
    args.timeout = _number("--timeout", timeout, "process_limit_seconds")
    # The run's target (run_target.hpp): the conflicts first, in evaluate's names, then each
    # value. A value given empty ("--budget ''") is refused by name, as the programs refuse it.
    for flag, text in (("--budget", args.budget), ("--precision", args.precision),
                       ("--max-time", args.max_time)):
        if text is not None and not text.strip():
            raise UsageError(f"{flag}: is empty (give it a value, or leave it out)")
    problem = core.run_target_problem(
        args.budget is not None, args.precision is not None, args.max_time is not None,
        "--budget", "--precision", "--max-time")
    if problem:
        raise UsageError(problem)
    if args.budget is not None:
        warmup, measure, problem = core.budget_problem("--budget", args.budget)
        if problem:
            raise UsageError(problem)
        args.budget = (warmup, measure)
    if args.precision is not None:
        args.precision = _number("--precision", args.precision, "precision")
    if args.max_time is not None:
        args.max_time = _number("--max-time", args.max_time, "max_time")
    # --device's text by the core's reader (its spec's rule), then the index it names.
    args.device = int(_number("--device", str(args.device), "device_index"))
    # B11: tolerances that pass every answer (the core's rule).
    problem = core.tolerance_problem(args.rtol, args.atol)
    if problem:
        raise UsageError(f"--{problem}")
    for flag, value in (("--flops", args.flops), ("--bytes", args.bytes)):
        # The core's rule of work per call (kWorkPerCall), as measure(flops=) and the programs'
        # Setup::flops take it: finite and >= 0 (0 is a call that computes or moves nothing).
        problem = core.value_problem(flag, value, "work_per_call") if value is not None else ""
        if problem:
            raise UsageError(problem)


def locate(specs: Sequence[Tuple[str, Dict[str, str]]], *, python: str,
           env: Dict[str, str], timeout_s: float) -> None:
    """Each ``(argument, spec)``'s function found where the candidates' interpreter imports from,
    by ``_locate.py`` in a process of that interpreter (no code of the specs runs); raises
    UsageError naming the first that is not there. Where the script cannot run (no such
    interpreter), nothing is refused here: the run says why it cannot start."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_locate.py")
    order = [{k: s[k] for k in ("module", "path", "attribute") if k in s} for _, s in specs]
    try:
        done = _child.run([python, script, _wire.order_argument({"specs": order})], env=env,
                          timeout_s=min(timeout_s, 120))
        problems = _wire.read_bounded(done.output.strip().splitlines()[-1], 2,
                                      "a list of problems") if done.rc == 0 else []
    except (OSError, ValueError, IndexError):
        return
    if not isinstance(problems, list):
        return
    for (argument, spec), problem in zip(specs, problems):
        if problem:
            raise UsageError(f"{argument} {spec['text']!r}: {problem}; nothing was run")


def spec_arguments(candidates: List[Dict[str, str]], reference: Optional[Dict[str, str]],
                   inputs: Optional[Dict[str, str]]) -> List[Tuple[str, Dict[str, str]]]:
    """The specs to locate, each with the argument it came from."""
    out: List[Tuple[str, Dict[str, str]]] = []
    if reference is not None:
        out.append(("--reference", reference))
    if inputs is not None:
        out.append(("--inputs", inputs))
    out += [("candidate", c) for c in candidates]
    return out
