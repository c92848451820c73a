"""gpumeter's errors and warnings, each named by its cause and carrying its fields.

When one of these errors is raised, no number was produced: gpumeter fails closed rather than
report a time it cannot stand behind. The C++ core raises them with the fields below filled in;
its message (``str(error)``) says what happened and what to do.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Type


def _restore(cls: Type[Error], args: Tuple[Any, ...], state: Dict[str, Any]) -> Error:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class Error(Exception):
    """Base class of every error gpumeter raises; ``str(error)`` is its message.

    Catch ``gpumeter.Error`` to handle any failure to measure. No number was produced for what
    raised it. Errors keep their fields through ``pickle`` (multiprocessing, test workers).
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(message)

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_restore, (type(self), self.args, dict(self.__dict__)))


class RecordsLost(Error):
    """CUPTI dropped activity records in every attempt: the iterations ran, their readings are gone.

    gpumeter measures the phase again with a 4x larger buffer, 3 attempts in all, before it
    raises this. Retryable: lower the host's load.

    Attributes:
        dropped: records dropped in the last attempt.
        attempts: attempts made.
    """

    dropped: int
    attempts: int

    def __init__(self, message: str, *, dropped: int, attempts: int) -> None:
        super().__init__(message)
        self.dropped = dropped
        self.attempts = attempts


class OffThreadLaunch(Error):
    """Kernels ran that no iteration of the measurement launched: another thread launched them.

    gpumeter tags each iteration on the calling thread and attributes every kernel by that tag;
    a kernel launched from another thread (PyTorch's autograd engine, a library's worker) has
    none and is refused, never absorbed. For PyTorch's backward,
    ``torch.autograd.set_multithreading_enabled(False)`` brings it onto the calling thread.

    Attributes:
        n_kernels: how many kernels carried no iteration id.
        example_kernel: the name of one of them.
        loss_ruled_out: whether lost records are ruled out as the cause (the drop counter was
            proven live).
    """

    n_kernels: int
    example_kernel: str
    loss_ruled_out: bool

    def __init__(self, message: str, *, n_kernels: int, example_kernel: str,
                 loss_ruled_out: bool) -> None:
        super().__init__(message)
        self.n_kernels = n_kernels
        self.example_kernel = example_kernel
        self.loss_ruled_out = loss_ruled_out


class AttributionError(Error):
    """An iteration to which no device work was attributed: the call ran nothing on the device.

    Attributes:
        iteration: the iteration's index within its phase.
        why: what was missing.
        loss_ruled_out: whether lost records are ruled out as the cause.
    """

    iteration: int
    why: str
    loss_ruled_out: bool

    def __init__(self, message: str, *, iteration: int, why: str, loss_ruled_out: bool) -> None:
        super().__init__(message)
        self.iteration = iteration
        self.why = why
        self.loss_ruled_out = loss_ruled_out


class WrongDevice(Error):
    """The call's work ran on a device other than the one measured (flushed, drained, recorded).

    Attributes:
        iteration: the iteration in which it ran.
        kernel: the name of the work that ran elsewhere.
        ran_on: the device id it ran on.
        measured: the device id measured.
    """

    iteration: int
    kernel: str
    ran_on: int
    measured: int

    def __init__(self, message: str, *, iteration: int, kernel: str, ran_on: int,
                 measured: int) -> None:
        super().__init__(message)
        self.iteration = iteration
        self.kernel = kernel
        self.ran_on = ran_on
        self.measured = measured


class CuptiUnavailable(Error):
    """CUPTI cannot be used: missing, or held by another client (a profiler, ncu, Nsight).

    CUPTI serves one client per process. While PyTorch's profiler runs, gpumeter refuses; after
    its context ends, gpumeter measures again. ``allow_events_fallback=True`` times with CUDA
    events instead (a different statistic, never compared with CUPTI's).
    """


class CollectionStopped(Error):
    """CUPTI stopped recording while a phase ran: one of gpumeter's canary kernels, or the kernel
    of a launch CUPTI saw succeed, left no record although none was reported lost.

    Code in the process switched CUPTI's activity records off (``cuptiActivityDisable``,
    ``cuptiUnsubscribe``, ``cuptiFinalize``) or took them: what would have been timed is not what
    ran, so nothing is reported.
    """


class UnaccountedWork(Error):
    """Device work gpumeter has no record of overlapped a timed window: a kernel of an iteration
    started long after its launch returned while the device ran nothing recorded (records
    switched off around a launch, or another process's work). Nothing is reported.
    """


class InputsModified(Error):
    """An implementation changed the shared ``inputs`` of a comparison (checked before timing)."""


class VerificationFailed(Error):
    """An implementation's output differs from the first implementation's: checked before timing,
    and with ``fresh_inputs`` also while timed (the message names the iteration).

    Raise it from your own ``verify(name, output, reference)`` to refuse an output.
    """


class AnswerNotPlain(Error):
    """An implementation returned its answer as an object that runs code of its own when read (a
    subclass of ``torch.Tensor`` or ``numpy.ndarray``, a proxy, a lazy value): the check would run
    that code outside the timed window, where it could do the work the call skipped. Return the
    framework's plain type (``torch.Tensor``, ``numpy.ndarray``, ``cupy.ndarray``, a Warp array, or
    a tuple or list of them), computed inside the call. Raised while the call is timed."""


class OtherProcessOnDevice(Error):
    """A process other than this one held a compute context on the measured device while a
    measurement phase ran (read from NVML before and after each measured phase), and was not
    there when the run began: work it did is in no reading. ``own_session`` says whether it
    belongs to this process's session (a helper the code under test started)."""

    own_session: bool

    def __init__(self, message: str, *, own_session: bool = False) -> None:
        super().__init__(message)
        self.own_session = own_session


class MixedTimingMethods(Error):
    """The passes of one implementation were timed by different methods and cannot be merged."""


class IncomparableStatistics(Error):
    """Rows measured with different statistics (device time, wall clock) were to be compared."""


class TimestampUnitMismatch(Error):
    """CUPTI's timestamps were not nanoseconds and could not be converted by a checked scale.

    Another CUPTI client in the process registered its own clock, or the unit changed while a
    phase ran (three times). Nothing was measured.
    """


class DeviceError(Error):
    """A device that cannot be used: missing, no driver, a sticky CUDA error, a failed CUDA call.

    The message names the CUDA error.
    """


class DeviceBusy(Error):
    """Another process computes on the device, or another run holds its lock.

    The message names the processes or the lock's holder. ``allow_contended=True`` measures
    anyway (the record is marked contended); ``lock=False`` skips the lock (recorded too).
    """


class InvalidRecord(Error):
    """A record that cannot be read: missing, truncated, altered, oversized or not a record.

    Attributes:
        path: the file (or the name given to the text) that was read.
        problem: what is wrong with it.
    """

    path: str
    problem: str

    def __init__(self, message: str, *, path: str, problem: str) -> None:
        super().__init__(message)
        self.path = path
        self.problem = problem


class ConfigError(Error):
    """A bad argument or option: raised before anything is measured.

    Attributes:
        argument: the argument at fault (``"budget"``, ``"flops"``, ``"implementations"``), or
            None when the error is not about one argument.
    """

    argument: Optional[str]

    def __init__(self, message: str, *, argument: Optional[str] = None) -> None:
        super().__init__(message)
        self.argument = argument


class UserCodeError(Error):
    """Your code (a measured call, a reset, a check, a ``scaled`` hook) raised an exception.

    The exception itself is this error's ``__cause__``, with its traceback into your code.
    No number was produced for the case.

    Attributes:
        step: what was running ("iteration 3, the measured call", "its output check").
        exception_type: the exception's type as Python names it ("ValueError", "mod.MyError").
        exception_message: ``str()`` of the exception.
    """

    step: str
    exception_type: str
    exception_message: str

    def __init__(self, message: str, *, step: str, exception_type: str,
                 exception_message: str) -> None:
        super().__init__(message)
        self.step = step
        self.exception_type = exception_type
        self.exception_message = exception_message


class GpumeterWarning(UserWarning):
    """Base class of gpumeter's warnings: a measurement was made, with something to know."""


class FallbackWarning(GpumeterWarning):
    """The measurement fell back from what was asked: the host clock instead of the GPU's device
    time (``timing="auto"`` found no usable GPU), or CUDA events instead of CUPTI
    (``allow_events_fallback=True``). The record's deviations say so too.

    Turn it into an error with ``warnings.simplefilter("error", gpumeter.FallbackWarning)``.
    """
