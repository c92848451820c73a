"""gpumeter for Python: time GPU work (PyTorch, Triton, CuPy, JAX, your own kernels) with the
same C++ core as gpumeter's C++ API and benchmark programs: CUPTI device time attributed by
identity, the A B C C B A order, calibrated comparisons, fail-closed errors and JSON records.

    import gpumeter
    r = gpumeter.measure(lambda: torch.mm(a, b), flops=2 * n**3)
    print(r.device_busy.median_us, r.tflops)

    c = gpumeter.compare({"eager": f, "compiled": torch.compile(f)}, inputs=[x])
    print(c.comparisons[0])          # "compiled is 31% faster than eager (99% interval ...)"
    gpumeter.write_record(c)         # gpumeter-results/gpumeter-<run id>.json

Results are typed objects (Result, CompareResult, Comparison, Record); every sentence they hold
comes from the C++ core. Errors are classes named by cause under gpumeter.Error, with their
fields; a measurement that fell back from what was asked warns with gpumeter.FallbackWarning.
Work that another thread launches (PyTorch's autograd engine) is refused as OffThreadLaunch: see
gpumeter.OffThreadLaunch for the fix.

Warp candidates are resolved through Warp's own device lookup before timing, and one on Warp's CPU
device is refused as WrongDevice: declare one with gpumeter.warp(fn, device="cuda:0"), or let
gpumeter see its launches. gpumeter.candidate(fn, runtime="cupy") declares any other runtime.
Importing gpumeter turns JAX's allocator preallocation off unless JAX has started already.
"""

from __future__ import annotations

# The package by concern: _loader (the CUDA libraries, then the extension: first), _checks (the
# arguments), _core (the glue to the C++ core's run), _answers and _inputs (what a call returns
# and what it is given), _measure (measure, compare), _records (records, env), _phases, _sweep,
# _evaluate, plot and _cli (the command). This module re-exports what a user calls.
from . import _loader  # noqa: F401  (first: the extension needs the libraries it finds)
# Every error and warning, by the one catalogue (_errors.__all__; _errors.pyi lists them for type
# checkers): a new error touches no line here.
from ._errors import *  # noqa: F401,F403
from . import _errors
from . import _gpumeter, _runtimes
from ._runtimes import Candidate, Runtime, RuntimeInfo, candidate, warp
from ._gpumeter import (
    Budget,
    CeilingRun,
    Ceilings,
    ClockReading,
    ClockSummary,
    CompareResult,
    Comparison,
    DeviceIdentity,
    DeviceState,
    Failure,
    HostIdentity,
    Ledger,
    MemoryUse,
    NullTest,
    RatioVerdict,
    Record,
    RelativeDifference,
    Result,
    RowFlags,
    RowKey,
    RunConfig,
    Sample,
    Spread,
    Summary,
    TimestampCheck,
    PrecisionOutcome,
    PhaseReading,
    MeasuredTotal,
    CandidateRuntime,
    TotalTerm,
    TotalAtN,
    TotalN,
    Crossover,
    GrowthRegime,
    Growth,
    SweepAnalysis,
)
from ._measure import Timing, compare, measure
from ._records import env, read_record, release_cupti, write_record
from ._phases import PhasesResult, phases
from ._sweep import SweepResult, sweep
from ._cli import main

__version__: str = _gpumeter.version()
__all__ = [
    # what you call
    "measure", "compare", "write_record", "read_record", "env", "release_cupti", "main",
    "warp", "candidate", "Candidate", "Runtime", "RuntimeInfo", "phases", "sweep",
    "PhasesResult", "SweepResult", "PhaseReading", "MeasuredTotal", "CandidateRuntime",
    "TotalTerm", "TotalAtN", "TotalN", "Crossover", "GrowthRegime", "Growth", "SweepAnalysis",
    # what comes back
    "Result", "CompareResult", "Comparison", "Record", "Summary", "Spread", "Sample",
    "ClockReading", "ClockSummary", "RowKey", "RowFlags", "MemoryUse", "Ledger", "TimestampCheck",
    "PrecisionOutcome", "NullTest",
    "RelativeDifference", "RatioVerdict", "HostIdentity", "DeviceIdentity", "DeviceState",
    "Ceilings", "CeilingRun", "RunConfig", "Budget", "Failure", "Timing",
]
__all__ += _errors.__all__  # every error and warning

# JAX reads its allocator's settings once, when its first backend starts: set before that, a JAX
# candidate never preallocates 75% of the GPU that the other candidates then lack.
_runtimes.prepare_jax_environment()
