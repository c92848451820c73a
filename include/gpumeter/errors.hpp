#pragma once
// Errors named by their cause. Each message says what happened and what to do; no number is
// produced when one is thrown: gpumeter fails closed rather than print a number it cannot stand
// behind.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/error_class.hpp"

namespace gpumeter {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// CUPTI dropped records: the iterations ran but their readings are gone. Retryable.
class RecordsLost : public Error {
 public:
  // `collector`: the tool that dropped them, as the trace names it ("CUPTI").
  RecordsLost(std::uint64_t dropped, int attempts, const std::string& collector = "the collector");
  std::uint64_t dropped() const { return dropped_; }
  int attempts() const { return attempts_; }

 private:
  std::uint64_t dropped_;
  int attempts_;
};

// A kernel whose launch carried no iteration id of this phase: launched from another thread.
class OffThreadLaunch : public Error {
 public:
  OffThreadLaunch(std::size_t n_orphans, const std::string& example_name, bool loss_ruled_out);
  // How many kernels carried no iteration id, and the name of one of them.
  std::size_t n_orphans() const { return n_orphans_; }
  const std::string& example_kernel() const { return example_kernel_; }
  // Whether the drop counter was live, so that lost records are ruled out as the cause.
  bool loss_ruled_out() const { return loss_ruled_out_; }

 private:
  std::size_t n_orphans_;
  std::string example_kernel_;
  bool loss_ruled_out_;
};

// An iteration to which no timed work was attributed: the call did not run on the device.
class AttributionError : public Error {
 public:
  AttributionError(std::size_t iteration, const std::string& why, bool loss_ruled_out);
  std::size_t iteration() const { return iteration_; }
  const std::string& why() const { return why_; }
  bool loss_ruled_out() const { return loss_ruled_out_; }

 private:
  std::size_t iteration_;
  std::string why_;
  bool loss_ruled_out_;
};

// Collection stopped while a phase ran: a canary of gpumeter's, or the kernel of a launch the
// collector saw succeed, left no record although no record was reported lost. Code in the process
// switched the activity records off (cuptiActivityDisable, cuptiUnsubscribe, cuptiFinalize) or took
// them; whatever it timed is not what ran, so nothing is reported.
class CollectionStopped : public Error {
 public:
  using Error::Error;
};

// Device work gpumeter has no record of overlapped a timed window: a kernel of an iteration
// waited long after its launch while nothing recorded ran. Nothing is reported.
class UnaccountedWork : public Error {
 public:
  using Error::Error;
};

class CuptiUnavailable : public Error {
 public:
  using Error::Error;
};
class InputsModified : public Error {
 public:
  using Error::Error;
};
class VerificationFailed : public Error {
 public:
  using Error::Error;
};
class MixedTimingMethods : public Error {
 public:
  using Error::Error;
};
// Rows measured with different statistics were asked to be compared: a device time and a wall-clock
// time are different quantities.
class IncomparableStatistics : public Error {
 public:
  using Error::Error;
};
// A call's work ran on a device other than the one measured: that device was neither flushed nor
// drained, and the record would name the wrong card.
class WrongDevice : public Error {
 public:
  WrongDevice(std::size_t iteration, const std::string& name, std::uint32_t ran_on,
              std::uint32_t measured);
  std::size_t iteration() const { return iteration_; }
  // The work that ran elsewhere (a kernel's or a copy's name), and the two device ids.
  const std::string& kernel() const { return kernel_; }
  std::uint32_t ran_on() const { return ran_on_; }
  std::uint32_t measured() const { return measured_; }

 private:
  std::size_t iteration_;
  std::string kernel_;
  std::uint32_t ran_on_;
  std::uint32_t measured_;
};
// The call returned its answer as an object that runs code of its own when it is read (a
// subclass of the framework's array or tensor type, a proxy, a lazy value): the check would run
// that code outside the timed window, where it could do the work the call skipped. Names the type.
class AnswerNotPlain : public Error {
 public:
  using Error::Error;
};
// A process other than this one held a compute context on the measured device while a phase
// ran, and was not there when the run began (or, where the run asked, belongs to this process's
// own session: a helper a candidate started). Work it did is not in any reading. Names it.
class OtherProcessOnDevice : public Error {
 public:
  OtherProcessOnDevice(std::string message, bool own_session)
      : Error(std::move(message)), own_session_(own_session) {}
  // Whether a process named belongs to this process's session (or descends from it).
  bool own_session() const { return own_session_; }

 private:
  bool own_session_ = false;
};
// CUPTI's timestamps were not nanoseconds (another CUPTI client in the process registered its own
// clock) and could not be converted by a scale gpumeter stands behind, or the unit changed while a
// phase ran. Nothing was measured.
class TimestampUnitMismatch : public Error {
 public:
  using Error::Error;
};
// A device that cannot be used: missing, no driver, a sticky CUDA error, a CUDA call that failed.
class DeviceError : public Error {
 public:
  using Error::Error;
};
// The device is in use by another process, or its lock is held by another run: names them, and how
// to go ahead anyway. Nothing was measured.
class DeviceBusy : public Error {
 public:
  using Error::Error;
};
// A record file that cannot be read: names the file and the problem.
class InvalidRecord : public Error {
 public:
  InvalidRecord(const std::string& path, const std::string& problem);
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};
// Records that are not the shards of one sweep were asked to be merged: a row in two of them, or,
// without allow_mixed, different devices, configurations, commits, timing methods or ceilings.
// Names the problem, and the record (its index among those given) where there is one.
class MergeRefused : public Error {
 public:
  MergeRefused(std::string problem, std::optional<std::size_t> record = std::nullopt)
      : Error(std::move(problem)), record_(record) {}
  std::optional<std::size_t> record() const { return record_; }

 private:
  std::optional<std::size_t> record_;
};
// Timing a program by its NVTX ranges: the collector lost records (CUPTI's activity records or
// its own range and launch events), or could not prove it lost none. Every range's number could be
// missing work, so none is reported.
class CollectorRecordsLost : public Error {
 public:
  // `records`: which records ("CUPTI activity records", "range and launch events"); `dropped`:
  // how many, nullopt when the counter was not proven live.
  CollectorRecordsLost(std::string records, std::optional<std::uint64_t> dropped);
  const std::string& records() const { return records_; }
  const std::optional<std::uint64_t>& dropped() const { return dropped_; }

 private:
  std::string records_;
  std::optional<std::uint64_t> dropped_;
};
// A collector's trace that cannot be true: a kernel ending before it starts, two launches with
// one correlation id, a thread's events going back in time. Nothing is reported from it.
class CorruptTrace : public Error {
 public:
  using Error::Error;
};
// A range closed that was not open: a pop with no push on that thread (and domain), or an end
// whose id no start opened. The thread's stack no longer says which range is which.
class RangeNotOpen : public Error {
 public:
  RangeNotOpen(std::uint64_t thread, std::string domain, bool process_wide, std::uint64_t id,
               Nanos host_ns);
  std::uint64_t thread() const { return thread_; }
  const std::string& domain() const { return domain_; }
  bool process_wide() const { return process_wide_; }  // an end (true) or a pop (false)
  std::uint64_t id() const { return id_; }             // the end's range id; 0 for a pop

 private:
  std::uint64_t thread_;
  std::string domain_;
  bool process_wide_;
  std::uint64_t id_;
};
// A range still open when the program ended (a push without its pop, a start without its end):
// its instance has no end, so it has no number. Names the first such range and how many there are.
class RangeLeftOpen : public Error {
 public:
  RangeLeftOpen(std::string name, std::string domain, std::uint64_t thread, bool process_wide,
                std::size_t n_open);
  const std::string& name() const { return name_; }
  const std::string& domain() const { return domain_; }
  std::uint64_t thread() const { return thread_; }  // the thread that opened it
  bool process_wide() const { return process_wide_; }
  std::size_t n_open() const { return n_open_; }

 private:
  std::string name_;
  std::string domain_;
  std::uint64_t thread_;
  bool process_wide_;
  std::size_t n_open_;
};
// A device activity whose correlation id matches no recorded launch: no thread, so no range, can
// be named for it. Names the first such activity and how many there are.
class LaunchNotFound : public Error {
 public:
  LaunchNotFound(std::uint64_t correlation_id, std::string kernel, std::size_t n_activities);
  std::uint64_t correlation_id() const { return correlation_id_; }
  const std::string& kernel() const { return kernel_; }
  std::size_t n_activities() const { return n_activities_; }

 private:
  std::uint64_t correlation_id_;
  std::string kernel_;
  std::size_t n_activities_;
};
// `gpumeter run`: a program that recorded no NVTX range (none matching the filters, or none at
// all): there is nothing to report a range of.
class NoRangesFound : public Error {
 public:
  using Error::Error;
};
// `gpumeter run`: calls that always launch a kernel (cudaLaunchKernel, cuLaunchKernel...) returned
// success but no kernel record came back: records were taken or lost (another CUPTI client that
// registered its own activity buffers, a kernel still running when the program was killed).
class KernelRecordsMissing : public Error {
 public:
  using Error::Error;
};
// `gpumeter run`: a process that began recording wrote no part (killed, crashed, or ended by
// _exit, which runs no exit handler); its ranges and kernels are unknown, so nothing is reported.
class PartsMissing : public Error {
 public:
  using Error::Error;
};
// `gpumeter run --repeat`: the runs of one command did not report the same ranges (a range with
// device work in some runs and none in others): its runs are not repetitions of one program, so
// no range is reported from them.
class ProgramRunsDiffer : public Error {
 public:
  using Error::Error;
};
// `gpumeter run`: one process's failure, with the process named; `cause` is the name of the
// error it raised (error_name()), so a record or a caller can tell which rule failed.
class ProgramProcessError : public Error {
 public:
  ProgramProcessError(long pid, std::string cause, const std::string& message);
  long pid() const { return pid_; }
  const std::string& cause() const { return cause_; }

 private:
  long pid_;
  std::string cause_;
};
// A bad option or argument given by the user.
class ConfigError : public Error {
 public:
  using Error::Error;
  // Names the argument ("budget", "flops"): the message reads "argument: problem".
  ConfigError(std::string argument, const std::string& problem);
  // The argument at fault, "" when the error was not raised for one.
  const std::string& argument() const { return argument_; }

 private:
  std::string argument_;
};
// Code of the user's (a benchmark's setup, a call, its reset, its output check) threw an
// exception that is not a gpumeter error. It fails that case only: its type and message are
// kept, and the other cases are measured.
class UserCodeError : public Error {
 public:
  // `step`: what was running ("the benchmark's setup", "iteration 3, the measured call");
  // `type`: the exception's type as its language names it ("std::runtime_error", "ValueError").
  UserCodeError(std::string step, std::string type, std::string message);
  // A binding's translation of another language's exception, before the core names the step
  // (run_user_code fills it in).
  UserCodeError(std::string type, std::string message);
  const std::string& step() const { return step_; }
  const std::string& type() const { return type_; }
  const std::string& message() const { return message_; }

 private:
  std::string step_;
  std::string type_;
  std::string message_;
};

// Runs code of the user's: the one rule for what it throws. A gpumeter error keeps its own cause
// (a check's VerificationFailed, a CUDA error named by DeviceError); anything else becomes
// UserCodeError naming `step`, the exception's type (demangled) and its message.
void run_user_code(const std::string& step, const std::function<void()>& code);

// The class name of a gpumeter error ("RecordsLost", ...), "Error" for the base, or
// "std::exception" for anything else: what a record states as a failure's cause.
const char* error_name(const std::exception& error);

}  // namespace gpumeter
