#pragma once
// gpumeter's one catalogue of errors: every error class errors.hpp defines, each once, with its
// class (what it says about the work: error_class.hpp), the exit code a program that ends on it
// returns (exit_codes.hpp), its Python base class, its fields (each: its Python name, how the
// C++ error gives it, its Python type) and its Python documentation. error_name(), the class table
// (error_table()), exit_code_of_error(), the binding's translation and every Python error class
// (gpumeter/_errors.py makes them from the binding's list) are made from this list, so a new
// error is written here once, beside its C++ class.
//
// GPUMETER_ERRORS(X, F, NO_FIELDS) calls X(Name, error class, exit code, Python base, FIELDS,
// doc) for each error, where FIELDS is NO_FIELDS or a sequence of F(python_name, expression on
// `e`, "Python type").
#include <exception>
#include <string_view>

#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"

// clang-format off
#define GPUMETER_ERRORS(X, F, NO_FIELDS) \
  /* Its answer is wrong, or it changed its inputs. */ \
  X(VerificationFailed, wrong, kExitFailed, "Error", NO_FIELDS, \
    "An implementation's output differs from the first implementation's: checked before " \
    "timing,\n" \
    "and with ``fresh_inputs`` also while timed (the message names the iteration).\n" \
    "\n" \
    "Raise it from your own ``verify(name, output, reference)`` to refuse an output.") \
  X(InputsModified, wrong, kExitFailed, "Error", NO_FIELDS, \
    "An implementation changed the shared ``inputs`` of a comparison (checked before timing).") \
  /* What ran is there, but not as the call's own: launched elsewhere, moved out of the call, */ \
  /* hidden from the collection, or an answer that runs code when read. */ \
  X(OffThreadLaunch, refused, kExitFailed, "Error", \
    F(n_kernels, e.n_orphans(), "int") \
    F(example_kernel, e.example_kernel(), "str") \
    F(loss_ruled_out, e.loss_ruled_out(), "bool") \
    , \
    "Kernels ran that no iteration of the measurement launched: another thread launched them.\n" \
    "\n" \
    "gpumeter tags each iteration on the calling thread and attributes every kernel by that " \
    "tag;\n" \
    "a kernel launched from another thread (PyTorch's autograd engine, a library's worker) " \
    "has\n" \
    "none and is refused, never absorbed. For PyTorch's backward,\n" \
    "``torch.autograd.set_multithreading_enabled(False)`` brings it onto the calling thread.\n" \
    "\n" \
    "Attributes:\n" \
    "    n_kernels: how many kernels carried no iteration id.\n" \
    "    example_kernel: the name of one of them.\n" \
    "    loss_ruled_out: whether lost records are ruled out as the cause (the drop counter " \
    "was\n" \
    "        proven live).") \
  X(AttributionError, refused, kExitFailed, "Error", \
    F(iteration, e.iteration(), "int") \
    F(why, e.why(), "str") \
    F(loss_ruled_out, e.loss_ruled_out(), "bool") \
    , \
    "An iteration to which no device work was attributed: the call ran nothing on the device.\n" \
    "\n" \
    "Attributes:\n" \
    "    iteration: the iteration's index within its phase.\n" \
    "    why: what was missing.\n" \
    "    loss_ruled_out: whether lost records are ruled out as the cause.") \
  X(WrongDevice, refused, kExitFailed, "Error", \
    F(iteration, e.iteration(), "int") \
    F(kernel, e.kernel(), "str") \
    F(ran_on, e.ran_on(), "int") \
    F(measured, e.measured(), "int") \
    , \
    "The call's work ran on a device other than the one measured (flushed, drained, " \
    "recorded).\n" \
    "\n" \
    "Attributes:\n" \
    "    iteration: the iteration in which it ran.\n" \
    "    kernel: the name of the work that ran elsewhere.\n" \
    "    ran_on: the device id it ran on.\n" \
    "    measured: the device id measured.") \
  X(CollectionStopped, refused, kExitFailed, "Error", NO_FIELDS, \
    "CUPTI stopped recording while a phase ran: one of gpumeter's canary kernels, or the " \
    "kernel\n" \
    "of a launch CUPTI saw succeed, left no record although none was reported lost.\n" \
    "\n" \
    "Code in the process switched CUPTI's activity records off (``cuptiActivityDisable``,\n" \
    "``cuptiUnsubscribe``, ``cuptiFinalize``) or took them: what would have been timed is not " \
    "what\n" \
    "ran, so nothing is reported.") \
  X(UnaccountedWork, refused, kExitFailed, "Error", NO_FIELDS, \
    "Device work gpumeter has no record of overlapped a timed window: a kernel of an " \
    "iteration\n" \
    "started long after its launch returned while the device ran nothing recorded (records\n" \
    "switched off around a launch, or another process's work). Nothing is reported.") \
  X(AnswerNotPlain, refused, kExitFailed, "Error", NO_FIELDS, \
    "An implementation returned its answer as an object that runs code of its own when read " \
    "(a\n" \
    "subclass of ``torch.Tensor`` or ``numpy.ndarray``, a proxy, a lazy value): the check " \
    "would run\n" \
    "that code outside the timed window, where it could do the work the call skipped. Return " \
    "the\n" \
    "framework's plain type (``torch.Tensor``, ``numpy.ndarray``, ``cupy.ndarray``, a Warp " \
    "array, or\n" \
    "a tuple or list of them), computed inside the call. Raised while the call is timed.") \
  X(OtherProcessOnDevice, refused, kExitFailed, "Error", \
    F(own_session, e.own_session(), "bool") \
    , \
    "A process other than this one held a compute context on the measured device while a\n" \
    "measurement phase ran (read from NVML before and after each measured phase), and was not\n" \
    "there when the run began: work it did is in no reading. ``own_session`` says whether it\n" \
    "belongs to this process's session (a helper the code under test started).") \
  /* The measurement's own means failed: records, CUPTI, its clock, the device's occupancy. */ \
  X(RecordsLost, not_measured, kExitFailed, "Error", \
    F(dropped, e.dropped(), "int") \
    F(attempts, e.attempts(), "int") \
    , \
    "CUPTI dropped activity records in every attempt: the iterations ran, their readings are " \
    "gone.\n" \
    "\n" \
    "gpumeter measures the phase again with a 4x larger buffer, 3 attempts in all, before it\n" \
    "raises this. Retryable: lower the host's load.\n" \
    "\n" \
    "Attributes:\n" \
    "    dropped: records dropped in the last attempt.\n" \
    "    attempts: attempts made.") \
  X(CuptiUnavailable, not_measured, kExitFailed, "Error", NO_FIELDS, \
    "CUPTI cannot be used: missing, or held by another client (a profiler, ncu, Nsight).\n" \
    "\n" \
    "CUPTI serves one client per process. While PyTorch's profiler runs, gpumeter refuses; " \
    "after\n" \
    "its context ends, gpumeter measures again. ``allow_events_fallback=True`` times with " \
    "CUDA\n" \
    "events instead (a different statistic, never compared with CUPTI's).") \
  X(TimestampUnitMismatch, not_measured, kExitFailed, "Error", NO_FIELDS, \
    "CUPTI's timestamps were not nanoseconds and could not be converted by a checked scale.\n" \
    "\n" \
    "Another CUPTI client in the process registered its own clock, or the unit changed while " \
    "a\n" \
    "phase ran (three times). Nothing was measured.") \
  X(DeviceBusy, not_measured, kExitBusy, "Error", NO_FIELDS, \
    "Another process computes on the device, or another run holds its lock.\n" \
    "\n" \
    "The message names the processes or the lock's holder. ``allow_contended=True`` measures\n" \
    "anyway (the record is marked contended); ``lock=False`` skips the lock (recorded too).") \
  X(MixedTimingMethods, not_measured, kExitFailed, "Error", NO_FIELDS, \
    "The passes of one implementation were timed by different methods and cannot be merged.") \
  X(IncomparableStatistics, not_measured, kExitFailed, "Error", NO_FIELDS, \
    "Rows measured with different statistics (device time, wall clock) were to be compared.") \
  /* A record that cannot be read, or records that cannot be merged, is input the command */ \
  /* cannot use: a usage error (exit_codes.hpp), as it is for `gpumeter compare/report/merge`. */ \
  X(InvalidRecord, not_measured, kExitUsage, "Error", \
    F(path, e.path(), "str") \
    F(problem, e.problem(), "str") \
    , \
    "A record that cannot be read: missing, truncated, altered, oversized or not a record.\n" \
    "\n" \
    "Attributes:\n" \
    "    path: the file (or the name given to the text) that was read.\n" \
    "    problem: what is wrong with it.") \
  X(CollectorRecordsLost, not_measured, kExitFailed, "Error", \
    F(records, e.records(), "str") \
    F(dropped, e.dropped(), "Optional[int]") \
    , \
    "Timing a program by its NVTX ranges (``gpumeter run``): the collector lost records " \
    "(CUPTI's\n" \
    "activity records or its own range and launch events), or could not prove it lost none. " \
    "Any\n" \
    "range's number could be missing work, so none is reported.\n" \
    "\n" \
    "Attributes:\n" \
    "    records: which records were lost (\"CUPTI activity records\", \"range and launch " \
    "events\").\n" \
    "    dropped: how many, or None when the counter was not proven live.") \
  X(CorruptTrace, not_measured, kExitFailed, "Error", NO_FIELDS, \
    "A collector's trace that cannot be true: a kernel ending before it starts, two launches " \
    "with\n" \
    "one correlation id, a thread's events going back in time. Nothing is reported from it.") \
  X(LaunchNotFound, not_measured, kExitFailed, "Error", \
    F(correlation_id, e.correlation_id(), "int") \
    F(kernel, e.kernel(), "str") \
    F(n_activities, e.n_activities(), "int") \
    , \
    "A device activity whose correlation id matches no recorded launch: no thread, so no " \
    "range, can\n" \
    "be named for it. Names the first such activity and how many there are.\n" \
    "\n" \
    "Attributes:\n" \
    "    correlation_id: the first such activity's correlation id.\n" \
    "    kernel: its name.\n" \
    "    n_activities: how many activities matched no launch.") \
  X(KernelRecordsMissing, not_measured, kExitFailed, "Error", NO_FIELDS, \
    "``gpumeter run``: calls that always launch a kernel returned success but no kernel record " \
    "came\n" \
    "back: records were taken or lost (another CUPTI client that registered its own activity\n" \
    "buffers, a kernel still running when the program was killed). Nothing is reported.") \
  X(PartsMissing, not_measured, kExitFailed, "Error", NO_FIELDS, \
    "``gpumeter run``: a process that began recording wrote no part (killed, crashed, or ended " \
    "by\n" \
    "``_exit``, which runs no exit handler); its ranges and kernels are unknown, so nothing " \
    "is\n" \
    "reported.") \
  /* The case's own code, its set-up or its program. */ \
  X(UserCodeError, failed, kExitFailed, "Error", \
    F(step, e.step(), "str") \
    F(exception_type, e.type(), "str") \
    F(exception_message, e.message(), "str") \
    , \
    "Your code (a measured call, a reset, a check, a ``scaled`` hook) raised an exception.\n" \
    "\n" \
    "The exception itself is this error's ``__cause__``, with its traceback into your code.\n" \
    "No number was produced for the case.\n" \
    "\n" \
    "Attributes:\n" \
    "    step: what was running (\"iteration 3, the measured call\", \"its output check\").\n" \
    "    exception_type: the exception's type as Python names it (\"ValueError\", " \
    "\"mod.MyError\").\n" \
    "    exception_message: ``str()`` of the exception.") \
  X(DeviceError, failed, kExitFailed, "Error", NO_FIELDS, \
    "A device that cannot be used: missing, no driver, a sticky CUDA error, a failed CUDA " \
    "call.\n" \
    "\n" \
    "The message names the CUDA error.") \
  X(ConfigError, failed, kExitUsage, "Error", \
    F(argument, e.argument(), "Optional[str]") \
    , \
    "A bad argument or option: raised before anything is measured.\n" \
    "\n" \
    "Attributes:\n" \
    "    argument: the argument at fault (``\"budget\"``, ``\"flops\"``, " \
    "``\"implementations\"``), or\n" \
    "        None when the error is not about one argument.") \
  X(MergeRefused, failed, kExitUsage, "Error", \
    F(record, e.record(), "Optional[int]") \
    , \
    "Records that are not the shards of one sweep were asked to be merged: a row in two of " \
    "them, or,\n" \
    "without ``allow_mixed``, different devices, configurations, commits, timing methods or " \
    "ceilings.\n" \
    "\n" \
    "Attributes:\n" \
    "    record: the index (among those given) of the record at fault, or None where there is " \
    "none.") \
  X(RangeNotOpen, failed, kExitFailed, "Error", \
    F(thread, e.thread(), "int") \
    F(domain, e.domain(), "str") \
    F(process_wide, e.process_wide(), "bool") \
    F(id, e.id(), "int") \
    , \
    "A range closed that was not open: a pop with no push on that thread (and domain), or an " \
    "end\n" \
    "whose id no start opened. The thread's stack no longer says which range is which.\n" \
    "\n" \
    "Attributes:\n" \
    "    thread: the thread that closed it.\n" \
    "    domain: its NVTX domain (\"\" for the default domain).\n" \
    "    process_wide: an end (True) or a pop (False).\n" \
    "    id: the end's range id; 0 for a pop.") \
  X(RangeLeftOpen, failed, kExitFailed, "Error", \
    F(name, e.name(), "str") \
    F(domain, e.domain(), "str") \
    F(thread, e.thread(), "int") \
    F(process_wide, e.process_wide(), "bool") \
    F(n_open, e.n_open(), "int") \
    , \
    "A range still open when the program ended (a push without its pop, a start without its " \
    "end):\n" \
    "its instance has no end, so it has no number. Names the first such range and how many " \
    "there are.\n" \
    "\n" \
    "Attributes:\n" \
    "    name: the range's name.\n" \
    "    domain: its NVTX domain (\"\" for the default domain).\n" \
    "    thread: the thread that opened it.\n" \
    "    process_wide: a start/end range (True) or a push/pop range (False).\n" \
    "    n_open: how many ranges were left open.") \
  X(NoRangesFound, failed, kExitUsage, "Error", NO_FIELDS, \
    "``gpumeter run``: a program that recorded no NVTX range (none matching the filters, or " \
    "none at\n" \
    "all): there is no range to report a number for.") \
  X(ProgramRunsDiffer, failed, kExitFailed, "Error", NO_FIELDS, \
    "``gpumeter run --repeat``: the runs of one command did not report the same ranges (a " \
    "range\n" \
    "with device work in some runs and none in others): they are not repetitions of one " \
    "program, so\n" \
    "no range is reported from them.") \
  X(ProgramProcessError, failed, kExitFailed, "Error", \
    F(pid, e.pid(), "int") \
    F(cause, e.cause(), "str") \
    , \
    "``gpumeter run``: one process of the program failed; the message names the process.\n" \
    "\n" \
    "Attributes:\n" \
    "    pid: the process's id.\n" \
    "    cause: the name of the error it raised (\"CorruptTrace\", ...), so a caller can tell " \
    "which\n" \
    "        rule failed.")
// clang-format on

namespace gpumeter {

// The exit code a program returns when an error ends it, by the error's name (error_name()) or
// the error itself: the catalogue's (a bad argument kExitUsage, a busy device kExitBusy, another
// of gpumeter's errors kExitFailed: no number was produced), kExitFailed for a name the catalogue
// does not know, kExitInternal for an exception that is not gpumeter's ("std::exception").
int exit_code_of_error(std::string_view error_name);
int exit_code_of_error(const std::exception& error);

}  // namespace gpumeter
