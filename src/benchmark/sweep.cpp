// The sweep (sweep.hpp).
#include "sweep.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "checkpoint.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/device_backends.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/row_status.hpp"
#include "gpumeter/run_recorder.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/session.hpp"
#include "isolate.hpp"
#include "temporary_file.hpp"

namespace gpumeter::program {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Failure names the runtime gives cases it could not measure, beside the library's errors.
constexpr const char* kSkipped = kSkippedFailure;

// the temporaries of earlier runs there that were killed while writing.
void check_output_directory(const fs::path& dir) {
  try {
    prepare_output_directory(dir);
  } catch (const Error& e) {
    throw ConfigError("--out " + dir.string() + ": " + e.what());
  }
}

Failure case_failure(const PlannedCase& c, std::string error, std::string message) {
  return Failure{RowKey{c.benchmark->name(), c.params, ""}, std::move(error), std::move(message)};
}

// The progress line, on a terminal only: a pipe or a CI log gets none.
class Progress {
 public:
  Progress(bool enabled, std::size_t total) : enabled_(enabled), total_(total) {}
  void start(std::size_t k, const std::string& label) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    std::string left = "estimating time left";
    if (k > 0) {
      const double each = elapsed / static_cast<double>(k);
      left = "about " +
             std::to_string(static_cast<long>(each * static_cast<double>(total_ - k) + 0.5)) +
             " s left";
    }
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s (%s)", k + 1, total_, inert_text(label).c_str(),
                 left.c_str());
    std::fflush(stderr);
  }
  void finish() {
    if (!enabled_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  std::size_t total_;
  Clock::time_point start_ = Clock::now();
};

// Measures one planned case in this process: its rows (summarized by whoever keeps the record)
// or its failure. The run's header is read once, not per case.
CaseOutcome measure_case(Backend& backend, const PlannedCase& c, const RunOptions& run, int device,
                         RunFindings& findings) {
  std::map<std::string, AxisKind> kinds;
  for (const Axis& a : c.benchmark->axes()) kinds[a.name] = a.kind;
  Setup setup(c.benchmark->name(), c.params, kinds, device);
  std::optional<Failure> failure;
  Case planned;
  try {
    run_user_code("the benchmark's setup", [&] { c.benchmark->function()(setup); });
    if (setup.skipped()) {
      failure = case_failure(c, kSkipped, setup.skip_reason());
    } else {
      planned = setup.to_case();  // a setup that declared no implementation fails its case only
    }
  } catch (const Error& e) {
    failure = case_failure(c, error_name(e), e.what());
  }
  if (failure) return CaseOutcome{{}, {*failure}};
  return run_case(backend, planned, run, findings);
}

// --- interruption -------------------------------------------------------------------------------

// What an interruption needs of the sweep, under one mutex: the sweep updates it after each
// case; the thread that handles a signal reads it.
struct SweepState {
  std::mutex mutex;
  std::string program;
  fs::path dir;
  // The run's record: the recorder once begun, before that the header alone.
  RunRecorder* recorder = nullptr;
  Record early;
  std::size_t done = 0;
  std::size_t total = 0;
  std::string current;  // the label of the case running, "" between cases
  pid_t child = 0;      // the process running it (--isolate), 0 when none
  fs::path complete;    // the complete record, once written
};

int g_signal_pipe_write = -1;

extern "C" void on_interrupt(int signal_number) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(signal_number);
  (void)!::write(g_signal_pipe_write, &byte, 1);
  errno = saved;
}

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(signal_number);
  }
}

// SIGINT (Ctrl-C), SIGTERM and SIGHUP during a sweep: the record of the cases finished so far is
// written as the partial record, one line says where, and the program exits 128+N as a process
// ended by signal N does. A handler can do none of that safely, so it only writes the signal's
// number into a pipe; a thread reads it and does the rest, while the sweep's own thread may be
// inside a measurement.
class Interruption {
 public:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

  explicit Interruption(SweepState& state) : state_(state) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw Error("cannot make the pipe that handles Ctrl-C");
    read_fd_ = fds[0];
    g_signal_pipe_write = fds[1];
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      // A signal ignored when the program started stays ignored (nohup's SIGHUP, a shell's
      // SIGINT for a background job): the caller asked not to be stopped by it.
      ::sigaction(kSignals[i], nullptr, &previous_[i]);
      if (previous_[i].sa_handler != SIG_IGN) ::sigaction(kSignals[i], &action, nullptr);
    }
    watcher_ = std::thread([this] { watch(); });
  }
  ~Interruption() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], &previous_[i], nullptr);
    }
    const unsigned char stop = 0;
    (void)!::write(g_signal_pipe_write, &stop, 1);
    watcher_.join();
    ::close(g_signal_pipe_write);
    g_signal_pipe_write = -1;
    ::close(read_fd_);
  }
  Interruption(const Interruption&) = delete;
  Interruption& operator=(const Interruption&) = delete;

 private:
  void watch() {
    unsigned char byte = 0;
    while (::read(read_fd_, &byte, 1) < 0 && errno == EINTR) {
    }
    if (byte == 0) return;  // the sweep is over
    const int signal_number = byte;
    std::lock_guard<std::mutex> lock(state_.mutex);
    // The case's process first: the device lock is held until it has exited.
    if (state_.child > 0) {
      ::kill(state_.child, SIGKILL);
      ::waitpid(state_.child, nullptr, 0);
    }
    const std::string name = signal_name(signal_number);
    std::string said;
    if (!state_.complete.empty()) {
      said = "the complete record was written: " + state_.complete.string();
    } else {
      std::string note = std::string(kPartialRecordMark) + "interrupted by " + name + " after " +
                         std::to_string(state_.done) + " of " + std::to_string(state_.total) +
                         " cases";
      if (!state_.current.empty()) note += ", while measuring " + state_.current;
      try {
        fs::path path;
        if (state_.recorder->begun()) {
          path = state_.recorder->write_partial(note);
        } else {
          RunRecorder early(state_.dir, state_.total);
          early.begin(state_.early);
          path = early.write_partial(note);
        }
        said = "the record of the " + std::to_string(state_.done) + " of " +
               std::to_string(state_.total) + " cases finished before it is " + path.string() +
               " (a partial record)";
      } catch (const std::exception& e) {
        said = std::string("the partial record could not be written: ") + e.what();
      }
    }
    if (::isatty(STDERR_FILENO) != 0) std::fputs("\r\033[K", stderr);  // the progress line
    say(state_.program, "interrupted by " + name + ": " + said);
    std::fflush(stderr);
    std::_Exit(128 + signal_number);
  }

  SweepState& state_;
  int read_fd_ = -1;
  struct sigaction previous_[std::size(kSignals)]{};
  std::thread watcher_;
};

// A case that crashes the process it is measured in (without --isolate: abort, a segfault): one
// line naming the case and the journal that keeps the cases finished before it, then the process
// dies of its signal as it would have (exit 128+N to a shell; a parent sees the signal). Only
// write() and raise() run in the handler: the line is made before each case.
class CrashLine {
 public:
  static constexpr int kSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};

  CrashLine() {
    struct sigaction action {};
    action.sa_handler = on_crash;
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], &action, &previous_[i]);
    }
  }
  ~CrashLine() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], &previous_[i], nullptr);
    }
    g_crash_length = 0;
  }
  CrashLine(const CrashLine&) = delete;
  CrashLine& operator=(const CrashLine&) = delete;

  // The line said if the case about to run crashes the process ("" while none runs).
  static void set(const std::string& program, const std::string& label, std::size_t done,
                  const fs::path& journal) {
    const std::string head = program + ": the process crashed (signal ";
    const std::string tail =
        ") measuring case " + label + ": the " + std::to_string(done) +
        " case(s) finished before it are in the journal " + journal.string() +
        ", which gpumeter report reads; --isolate measures each case in a process of its own, "
        "where a crash is that case's row and the sweep goes on\n";
    g_crash_length = 0;  // no torn line while it is rewritten
    const std::size_t n = std::min(head.size(), sizeof g_crash_head - 1);
    head.copy(g_crash_head, n);
    g_crash_head_length = n;
    const std::size_t m = std::min(tail.size(), sizeof g_crash_tail - 1);
    tail.copy(g_crash_tail, m);
    g_crash_length = m;
  }

 private:
  static void on_crash(int signal_number) {
    if (g_crash_length > 0) {
      char digits[8];
      std::size_t k = sizeof digits;
      int v = signal_number;
      do {
        digits[--k] = static_cast<char>('0' + v % 10);
        v /= 10;
      } while (v > 0 && k > 0);
      (void)!::write(STDERR_FILENO, g_crash_head, g_crash_head_length);
      (void)!::write(STDERR_FILENO, digits + k, sizeof digits - k);
      (void)!::write(STDERR_FILENO, g_crash_tail, g_crash_length);
    }
    ::raise(signal_number);  // SA_RESETHAND: the default action, as without this handler
  }

  static inline char g_crash_head[512];
  static inline std::size_t g_crash_head_length = 0;
  static inline char g_crash_tail[4096];
  static inline volatile std::size_t g_crash_length = 0;
  struct sigaction previous_[std::size(kSignals)]{};
};

}  // namespace

// --- the sweep ----------------------------------------------------------------------------------

int run_sweep(const Options& o, const std::vector<std::string>& argv,
              const std::vector<PlannedCase>& cases, const std::string& program,
              std::optional<ShardPlan> shard) {
  const fs::path out_dir = o.out;
  const bool parent = o.child_case < 0;
  if (parent) check_output_directory(out_dir);
  Record header;
  header.run_id = new_run_id();
  header.argv = argv;
  header.shard = std::move(shard);
  const std::size_t n = cases.size();
  Progress progress(!o.quiet && ::isatty(STDERR_FILENO) != 0, n);

  // P1: the device's lock for the whole sweep, taken before anything touches the device. With
  // --isolate the parent holds it and its cases' processes run under it (they take none, and
  // each holds a copy of the parent's descriptor while it lives).
  Session session(session_options(o, parent));
  if (const DeviceLock* lock = session.lock(); lock != nullptr) {
    if (lock->contended() && !lock->inherited()) {
      say(program, "going ahead on a busy device (--allow-contended): " + lock->contention());
    }
  }

  SweepState state;
  state.program = program;
  state.dir = out_dir;
  state.total = n;
  // The record kept as the sweep goes: the header once, each case as it finishes, the journal
  // on disk (a kill keeps what was finished).
  RunRecorder recorder(out_dir, n);
  state.recorder = &recorder;
  auto checkpoint = [&](std::size_t done) {
    recorder.checkpoint();
    std::lock_guard<std::mutex> guard(state.mutex);
    state.done = done;
    state.current.clear();
  };
  auto starting = [&](std::size_t k) {
    progress.start(k, cases[k].label);
    std::lock_guard<std::mutex> guard(state.mutex);
    state.current = cases[k].label;
  };

  header.deviations =
      session.deviations();  // the lock's; each case's record repeats them: kept once
  state.early = header;
  complete_header(state.early);
  std::optional<Interruption> interruption;
  if (parent) interruption.emplace(state);
  if (o.isolate) {
    // Each case in a fresh process: a fault or a hang ends that case, not the sweep, and a
    // sticky CUDA error dies with its process. The cases' processes read the device; the header
    // says what they found once the first has.
    recorder.begin(state.early);
    const int lock_fd = session.lock() != nullptr ? session.lock()->fd() : -1;
    Ceilings ceilings;
    std::vector<Ceilings> case_ceilings;
    std::string joined_json = ceilings_to_json(state.early.ceilings);
    bool have_setup = false;
    for (std::size_t k = 0; k < n; ++k) {
      starting(k);
      ChildResult child = run_child(child_args(argv, k, lock_fd >= 0, ceilings), out_dir, lock_fd,
                                    o.timeout_s, [&state](pid_t pid) {
                                      std::lock_guard<std::mutex> guard(state.mutex);
                                      state.child = pid;
                                    });
      if (child.record) {
        Record& one = *child.record;
        if (!have_setup) {
          recorder.set_measured_setup(one);
          joined_json = ceilings_to_json(one.ceilings);
          have_setup = true;
        }
        for (const std::string& d : one.deviations) recorder.add_deviation(d);
        // The sweep's ceilings are those of every case's process joined, and every row's
        // percentages are of them.
        case_ceilings.push_back(one.ceilings);
        if (const std::optional<Ceilings> joined = join_ceilings(case_ceilings)) {
          std::string text = ceilings_to_json(*joined);
          if (text != joined_json) {
            recorder.set_ceilings(*joined);
            joined_json = std::move(text);
          }
        }
        if (!has_ceilings(ceilings)) ceilings = one.ceilings;
        recorder.add(std::move(one.results), std::move(one.failures));
      } else {
        recorder.add({}, {case_failure(cases[k], child.failure_error, child.failure_message)});
      }
      checkpoint(k + 1);
    }
  } else {
    RunOptions options;
    options.argv = argv;
    options.budget = o.budget.empty() ? kMeasureBudget : parse_budget(o.budget);
    options.precision = parse_precision(o);
    Backend& backend = session.backend();
    if (!o.child_ceilings.empty()) {
      session.use_ceilings(ceilings_from_json(o.child_ceilings, "--gpumeter-child-ceilings"));
    }
    options.ceilings = session.ceilings();
    // The session's: its lock's, its backend's (a stand-in device) and its ceilings'.
    options.deviations = session.deviations();
    options.own_process = !parent;  // --isolate: this process measures one case
    // The header once per run: host, device, its state, commit, configuration.
    Record measured = run_header(backend, options);
    measured.run_id = header.run_id;
    measured.shard = header.shard;
    RunFindings findings;
    if (!parent) {
      // A child measures its one case and hands its record to the parent through the
      // descriptor it was given.
      CaseOutcome one = measure_case(backend, cases.front(), options, o.device, findings);
      measured.results = std::move(one.results);
      measured.failures = std::move(one.failures);
      fill_boards(measured);
      for (std::string& d : findings.deviations()) measured.deviations.push_back(std::move(d));
      finish(measured);
      write_child_record(o.child_record_fd, serialize(measured));
      return kExitOk;
    }
    recorder.begin(std::move(measured));
    CrashLine crash_line;
    for (std::size_t k = 0; k < n; ++k) {
      starting(k);
      CrashLine::set(program, cases[k].label, k, recorder.journal_path());
      CaseOutcome one = measure_case(backend, cases[k], options, o.device, findings);
      recorder.add(std::move(one.results), std::move(one.failures));
      checkpoint(k + 1);
    }
    for (const std::string& d : findings.deviations()) recorder.add_deviation(d);
  }
  progress.finish();

  // Never overwrites; the journal goes once the complete record exists. An interruption now
  // waits for both, and names the complete record.
  fs::path path;
  {
    std::lock_guard<std::mutex> guard(state.mutex);
    path = recorder.finish();
    state.complete = path;
  }
  interruption.reset();

  // Everything printed is the record just written, as written: serialized once, not read back.
  return finish_sweep(o, recorder.take_record(), path, program);
}

namespace {

// A program of GPU work run with --timing host (the option the no-GPU line names) where no GPU is
// usable: every case fails with a DeviceError, and the run says that its work needs a GPU, in
// the no-GPU line's terms (exit 5), not only that cases produced no number. "" otherwise.
std::string gpu_work_without_gpu(const Record& record, int device) {
  if (!record.results.empty()) return "";
  const Failure* first = nullptr;
  for (const Failure& f : record.failures) {
    if (f.error == kSkipped) continue;
    if (f.error != "DeviceError") return "";
    if (first == nullptr) first = &f;
  }
  if (first == nullptr) return "";
  const DeviceBackends* vendor = device_backends();
  const std::string unusable = vendor == nullptr
                                   ? "this gpumeter was built without a device backend"
                                   : vendor->unusable(device);
  if (unusable.empty()) return "";
  return "every case failed with a DeviceError (" + row_label(first->row) + ": " + first->message +
         ") and no GPU is usable here (" + unusable +
         "): this program's work is GPU work, which the host clock cannot run; nothing was "
         "measured; run it where a CUDA GPU is usable";
}

}  // namespace

int finish_sweep(const Options& o, Record record, const fs::path& path,
                 const std::string& program) {
  const std::vector<Record> records{std::move(record)};
  const std::string text = make_reporter(o.table.format())->render(records);
  if (!o.quiet) std::cout << text << std::flush;
  if (!o.quiet) say(program, "record: " + path.string());
  std::size_t failed = 0;
  for (const Failure& f : records.front().failures) failed += f.error != kSkipped ? 1 : 0;
  std::size_t null_failed = 0;
  for (const NullTestOutcome& t : null_tests(records.front().results)) {
    null_failed += t.failed() ? 1 : 0;
  }
  if (failed > 0) {
    say(program, std::to_string(failed) + " case(s) produced no number; the record says why");
  }
  if (null_failed > 0) {
    say(program, std::to_string(null_failed) +
                     " row(s) failed the null test: their times are not their work's");
  }
  if (const std::string why = gpu_work_without_gpu(records.front(), o.device); !why.empty()) {
    say(program, why);
    return kExitNoDevice;
  }
  return failed + null_failed > 0 ? kExitFailed : kExitOk;
}

}  // namespace gpumeter::program
