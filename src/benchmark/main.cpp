// gpumeter::main: the command line every benchmark program shares (B1), and the sweep it runs.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstddef>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend_choice.hpp"
#include "gpumeter/benchmark.hpp"
#include "gpumeter/calibration.hpp"
#include "gpumeter/ceilings.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/device_lock.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/format.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/row_status.hpp"
#include "gpumeter/run_recorder.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/table.hpp"
#include "gpumeter/version.hpp"
#include "number_option.hpp"
#include "temporary_file.hpp"

extern char** environ;

namespace gpumeter {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kExitOk = 0;
constexpr int kExitCaseFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInternal = 3;
constexpr int kExitBusy = 4;  // the device stayed busy, or another run held its lock (P1)
// The program measures GPU work and no CUDA device is usable here: said once, nothing measured.
constexpr int kExitNoDevice = 5;

// Failure names the runtime gives cases it could not measure, beside the library's errors.
constexpr const char* kSkipped = kSkippedFailure;
constexpr const char* kCrashed = kCrashedFailure;
constexpr const char* kTimeout = kTimeoutFailure;

struct Options {
  bool list = false;
  std::string filter;
  int device = 0;
  std::vector<std::string> axes;
  std::string timing;
  bool allow_events_fallback = false;
  std::string budget;
  std::string out = "gpumeter-results";
  bool md = false;
  bool csv = false;
  bool wide = false;
  bool quiet = false;
  bool isolate = false;
  double timeout_s = 0;
  bool no_lock = false;
  bool allow_contended = false;
  double lock_timeout_s = kDefaultLockTimeoutS;
  // Hidden: a child of --isolate runs one case and writes its record to a descriptor it
  // inherited; it holds the parent's lock descriptor (when there is one) for as long as it lives.
  long child_case = -1;
  int child_record_fd = -1;
  int child_lock_fd = -1;
  std::string child_ceilings;
};

std::string program_name(const char* argv0) {
  return fs::path(argv0 != nullptr ? argv0 : "benchmark").filename().string();
}

// One line for the user, controls shown, never obeyed.
void say(const std::string& program, const std::string& message) {
  std::cerr << program << ": " << inert_text(message) << '\n';
}

// Each part by the rule every numeric option follows (number_option.hpp).
Budget parse_budget(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos) {
    throw ConfigError("--budget must be WARMUP_MS,MEASURE_MS (e.g. 25,100), got '" + text + "'");
  }
  // The budget's rule is the core's (budget_ms_valid: above 0, at most kMaxBudgetMs); its words
  // are every numeric option's.
  constexpr NumberRule kBudgetMs{0, true, kMaxBudgetMs, false, " ms"};
  auto ms = [&](const std::string& part, const char* name) {
    const std::string problem = number_problem(name, part, kBudgetMs);
    if (!problem.empty()) throw ConfigError(problem);
    return budget_ns_from_ms(std::strtod(part.c_str(), nullptr));
  };
  return Budget{ms(text.substr(0, comma), "--budget's warm-up"),
                ms(text.substr(comma + 1), "--budget's measurement"), kMeasureBudget.min_iterations,
                kMeasureBudget.max_iterations};
}

// Fails before anything is measured when records cannot be written where asked, and removes
// the temporaries of earlier runs there that were killed while writing.
void check_output_directory(const fs::path& dir) {
  try {
    prepare_output_directory(dir);
  } catch (const Error& e) {
    throw ConfigError("--out " + dir.string() + ": " + e.what());
  }
}

// A record no case has contributed to yet (every case failed, or none finished) still says when
// and by what it was made.
void complete_header(Record& run) {
  if (!run.created_utc.empty()) return;
  run.created_utc = utc_now_iso();
  run.gpumeter_version = version();
  run.device.kind = "none";
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

// --- isolation ----------------------------------------------------------------------------------

struct ChildResult {
  std::optional<Record> record;
  std::string failure_error;    // when no record: Crashed, Timeout
  std::string failure_message;  //
};

// Closes a descriptor on every path out.
struct Descriptor {
  int fd = -1;
  explicit Descriptor(int f) : fd(f) {}
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
};

// All of a file read from its start, at most `limit` bytes (nullopt when longer).
std::optional<std::string> read_descriptor(int fd, std::size_t limit) {
  std::string text;
  char buffer[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (text.size() + static_cast<std::size_t>(n) > limit) return std::nullopt;
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  return text;
}

// The last line a case's process wrote to its log (its stdout and stderr).
std::string last_line(int log_fd) {
  struct stat st {};
  if (::fstat(log_fd, &st) != 0) return "";
  constexpr off_t kTail = 64 * 1024;
  const off_t from = st.st_size > kTail ? st.st_size - kTail : 0;
  std::string text(static_cast<std::size_t>(st.st_size - from), '\0');
  const ssize_t n = ::pread(log_fd, text.data(), text.size(), from);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  std::istringstream in(text);
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Where a case's process finds what its parent gives it (above 0 to 2, which it keeps).
constexpr int kChildRecordFd = 3;
constexpr int kChildLockFd = 4;
// Copies of a descriptor are moved up here in the parent first, so that placing one at
// kChildRecordFd never closes another the child still has to be given.
constexpr int kAboveChildFds = 10;
// A case's process whose parent died before it could ask to die with it: it runs nothing.
constexpr int kExitOrphaned = 125;

// Runs one case in a fresh process of this program (`args`), its record written to an unnamed
// file in `dir` and its output to another, so a kill of either process leaves no file behind.
// The process dies with this one (PR_SET_PDEATHSIG: a hung case is not left running on the
// device) and holds a copy of `lock_fd` (when >= 0), so the device lock is held until it has
// exited even when this process is killed first.
ChildResult run_child(const std::vector<std::string>& args, const fs::path& dir, int lock_fd,
                      double timeout_s, SweepState& state) {
  const auto moved_up = [](int fd) {
    const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kAboveChildFds);
    ::close(fd);
    return high;
  };
  const Descriptor record(moved_up(anonymous_file(dir)));
  const Descriptor log(moved_up(anonymous_file(dir)));
  const Descriptor lock(lock_fd >= 0 ? ::fcntl(lock_fd, F_DUPFD_CLOEXEC, kAboveChildFds) : -1);
  if (record.fd < 0 || log.fd < 0 || (lock_fd >= 0 && lock.fd < 0)) {
    throw Error(std::string("cannot prepare a process for the case: ") + std::strerror(errno));
  }
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0)
    throw Error(std::string("cannot start a process for the case: ") + std::strerror(errno));
  if (pid == 0) {
    // The child, until exec: async-signal-safe calls only (this process may have threads).
    // Killed when the thread that forked it ends, which is the sweep's, for the whole sweep.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The parent may have died between fork and prctl; then no signal would ever come.
    if (::getppid() != parent) ::_exit(kExitOrphaned);
    // Ctrl-C reaches the whole process group: the parent handles it, and kills this process
    // itself once it has written what was measured.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, nullptr);
    ::sigaction(SIGHUP, &ignore, nullptr);
    if (::dup2(log.fd, STDOUT_FILENO) < 0 || ::dup2(log.fd, STDERR_FILENO) < 0 ||
        ::dup2(record.fd, kChildRecordFd) < 0 ||
        (lock.fd >= 0 && ::dup2(lock.fd, kChildLockFd) < 0)) {
      ::_exit(kExitOrphaned);
    }
    ::execve("/proc/self/exe", argv.data(), environ);
    ::_exit(127);
  }
  {
    std::lock_guard<std::mutex> guard(state.mutex);
    state.child = pid;
  }
  struct Forget {  // the process is reaped below on every path
    SweepState& state;
    ~Forget() {
      std::lock_guard<std::mutex> guard(state.mutex);
      state.child = 0;
    }
  } forget{state};

  ChildResult out;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw Error("waitpid failed for a case's process");
    if (timeout_s > 0 && Clock::now() > deadline) {
      ::kill(pid, SIGKILL);  // a hung kernel does not answer politely
      ::waitpid(pid, &status, 0);
      out.failure_error = kTimeout;
      out.failure_message = "the case ran longer than --timeout " +
                            format_significant(timeout_s, 3) +
                            " s and its process was killed; nothing of it was measured";
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
    try {
      const std::optional<std::string> text = read_descriptor(record.fd, kMaxRecordBytes);
      if (!text) throw InvalidRecord("the case's record", "larger than a record may be");
      out.record = parse_record(*text, "the case's record");
      return out;
    } catch (const InvalidRecord& e) {
      // A child that failed before it could write (a DeviceError choosing its backend) said why
      // in its log.
      out.failure_error = kCrashed;
      const std::string said = last_line(log.fd);
      out.failure_message = std::string("the case's process left no readable record: ") + e.what() +
                            (said.empty() ? "" : "; it last said: " + said);
      return out;
    }
  }
  out.failure_error = kCrashed;
  const std::string said = last_line(log.fd);
  if (WIFSIGNALED(status)) {
    out.failure_message = "the case's process was killed by signal " +
                          std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                          ")";
  } else {
    out.failure_message =
        "the case's process exited with code " + std::to_string(WEXITSTATUS(status));
  }
  if (!said.empty()) out.failure_message += "; it last said: " + said;
  return out;
}

bool has_ceilings(const Ceilings& c) {
  return c.flops_per_s || c.bytes_per_s;
}

// The arguments a child gets: the parent's, less what only the parent does, plus its case.
std::vector<std::string> child_args(const std::vector<std::string>& argv, std::size_t k,
                                    bool with_lock, const Ceilings& ceilings) {
  static const std::set<std::string> parent_only_flags{
      "--isolate", "--md", "--csv", "--wide", "--quiet", "--no-lock", "--allow-contended"};
  static const std::set<std::string> parent_only_options{"--timeout", "--out", "--lock-timeout"};
  std::vector<std::string> out{argv.front()};
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::string key = a.substr(0, a.find('='));
    if (parent_only_flags.count(a) != 0) continue;
    if (parent_only_options.count(key) != 0) {
      if (a.find('=') == std::string::npos) ++i;  // its value is the next argument
      continue;
    }
    out.push_back(a);
  }
  out.push_back("--gpumeter-child=" + std::to_string(k));
  out.push_back("--gpumeter-child-record-fd=" + std::to_string(kChildRecordFd));
  if (with_lock) out.push_back("--gpumeter-child-lock-fd=" + std::to_string(kChildLockFd));
  // The ceilings the first case measured, with their runs (a few KB of JSON): every case's
  // record then holds the same ceilings, and its percentages are of them.
  if (has_ceilings(ceilings))
    out.push_back("--gpumeter-child-ceilings=" + ceilings_to_json(ceilings));
  return out;
}

// A case's process keeps the descriptors its parent gave it to itself: a program the case's
// own code starts does not get them (and so cannot hold the device lock past the case).
void keep_child_descriptors(const Options& o) {
  for (const int fd : {o.child_record_fd, o.child_lock_fd}) {
    if (fd >= 0 && ::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
      throw ConfigError("internal: descriptor " + std::to_string(fd) + " was not given");
    }
  }
}

void write_child_record(int fd, const std::string& text) {
  for (std::string_view left = text; !left.empty();) {
    const ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(std::string("cannot hand the case's record over: ") + std::strerror(errno));
    left.remove_prefix(static_cast<std::size_t>(n));
  }
}

// --- the sweep
// ------------------------------------------------------------------------------------

int run_sweep(const Options& o, const std::vector<std::string>& argv,
              const std::vector<PlannedCase>& cases, const std::string& program) {
  const fs::path out_dir = o.out;
  const bool parent = o.child_case < 0;
  if (parent) check_output_directory(out_dir);
  Record header;
  header.run_id = new_run_id();
  header.argv = argv;
  const std::size_t n = cases.size();
  Progress progress(!o.quiet && ::isatty(STDERR_FILENO) != 0, n);
  const BackendChoice timing{o.timing, o.device, o.allow_events_fallback};
  // P1: the device's lock for the whole sweep, taken before anything touches the device. With
  // --isolate the parent holds it and its cases' processes run under it (they take none, and
  // each holds a copy of the parent's descriptor while it lives).
  std::unique_ptr<DeviceLock> lock;
  std::vector<std::string> lock_deviations;
  if (parent) {
    if (o.no_lock) {
      lock_deviations.push_back(
          "device lock not taken (--no-lock): nothing kept other runs off the device");
    } else {
      DeviceLockOptions lo;
      lo.timeout_s = o.lock_timeout_s;
      lo.allow_contended = o.allow_contended;
      lock = std::make_unique<DeviceLock>(o.device, cuda_device_uuid(o.device), lo);
      lock_deviations = lock->deviations();
      if (lock->contended() && !lock->inherited()) {
        say(program, "going ahead on a busy device (--allow-contended): " + lock->contention());
      }
    }
  }

  SweepState state;
  state.program = program;
  state.dir = out_dir;
  state.total = n;
  // The record kept as the sweep goes: the header once, each case as it finishes, the journal
  // on disk appended to at most once a second (a kill keeps what was finished).
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

  header.deviations = lock_deviations;  // each case's record repeats them: kept once
  state.early = header;
  complete_header(state.early);
  std::optional<Interruption> interruption;
  if (parent) interruption.emplace(state);
  if (o.isolate) {
    // Each case in a fresh process: a fault or a hang ends that case, not the sweep, and a
    // sticky CUDA error dies with its process. The cases' processes read the device; the header
    // says what they found once the first has.
    recorder.begin(state.early);
    const int lock_fd = lock ? lock->fd() : -1;
    Ceilings ceilings;
    std::vector<Ceilings> case_ceilings;
    std::string joined_json = ceilings_to_json(state.early.ceilings);
    bool have_setup = false;
    for (std::size_t k = 0; k < n; ++k) {
      starting(k);
      ChildResult child = run_child(child_args(argv, k, lock_fd >= 0, ceilings), out_dir, lock_fd,
                                    o.timeout_s, state);
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
    std::unique_ptr<Backend> backend;
    RunOptions options;
    options.argv = argv;
    options.budget = o.budget.empty() ? kMeasureBudget : parse_budget(o.budget);
    ChosenBackend chosen = choose_backend(timing, o.child_ceilings.empty());
    backend = std::move(chosen.backend);
    options.ceilings = o.child_ceilings.empty()
                           ? chosen.ceilings
                           : ceilings_from_json(o.child_ceilings, "--gpumeter-child-ceilings");
    options.deviations = lock_deviations;
    options.deviations.insert(options.deviations.end(), chosen.deviations.begin(),
                              chosen.deviations.end());
    options.own_process = !parent;  // --isolate: this process measures one case
    // The header once per run: host, device, its state, commit, configuration.
    Record measured = run_header(*backend, options);
    measured.run_id = header.run_id;
    RunFindings findings;
    if (!parent) {
      // A child measures its one case and hands its record to the parent through the
      // descriptor it was given.
      CaseOutcome one = measure_case(*backend, cases.front(), options, o.device, findings);
      for (Result& r : one.results) {
        const Measurement& m = r.measurement;
        r.summary = summarize(m.samples, m.method, m.retries, r.workload, measured.ceilings);
      }
      measured.results = std::move(one.results);
      measured.failures = std::move(one.failures);
      for (std::string& d : findings.deviations()) measured.deviations.push_back(std::move(d));
      measured.comparisons = compare_results(measured.results);
      write_child_record(o.child_record_fd, serialize(measured));
      return kExitOk;
    }
    recorder.begin(std::move(measured));
    for (std::size_t k = 0; k < n; ++k) {
      starting(k);
      CaseOutcome one = measure_case(*backend, cases[k], options, o.device, findings);
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
  const std::vector<Record> records{recorder.take_record()};
  const TableLayout layout = o.wide ? TableLayout::wide : TableLayout::narrow;
  const std::string text =
      o.csv ? render_csv(records)
            : render_markdown(records, layout) + "\n" + render_comparisons(records, layout);
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
  return failed + null_failed > 0 ? kExitCaseFailed : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
  Options o;
  CLI::App app{program +
                   ": gpumeter benchmarks. Each case (a benchmark at one value of each of its "
                   "axes) runs its implementations in A B C C B A order; the record is "
                   "written case by case, then the table is printed from it.",
               program};
  app.set_version_flag("--version", program + " (gpumeter " + std::string(version()) + ")");
  app.add_flag("--list", o.list, "List the cases the other options select, and exit");
  app.add_option("--filter", o.filter, "Only cases whose label matches this regular expression");
  check_number(app.add_option("--device", o.device, "CUDA device index"), kDeviceIndex);
  app.add_option("--axis", o.axes,
                 "Override an axis: name=v1,v2, name=start:stop[:step], or on an integer axis "
                 "name=2^a:2^b[:factor] (repeatable)");
  app.add_option("--timing", o.timing,
                 "cupti (device time, the default with CUDA; without a usable GPU the program "
                 "exits 5), events (CUDA event pairs) or host (synchronized wall clock, for host "
                 "work; the default without CUDA)")
      ->check(CLI::IsMember({"cupti", "events", "host"}));
  app.add_flag("--allow-events-fallback", o.allow_events_fallback,
               "Time with CUDA events when CUPTI cannot be used (rows say so)");
  app.add_option("--budget", o.budget,
                 "WARMUP_MS,MEASURE_MS per implementation (default " +
                     format_shortest(to_ms(kMeasureBudget.warmup_ns)) + "," +
                     format_shortest(to_ms(kMeasureBudget.measure_ns)) + ")");
  app.add_option("--out", o.out, "Directory for the record (default gpumeter-results)");
  auto* md = app.add_flag("--md", o.md, "Print the markdown table (the default)");
  auto* csv = app.add_flag("--csv", o.csv, "Print CSV instead of markdown");
  md->excludes(csv);
  app.add_flag("--wide", o.wide,
               "Print every column (the record and CSV always hold them); by default the table "
               "holds the columns a reader decides with");
  app.add_flag("--quiet", o.quiet, "Print nothing but errors (no progress, no table)");
  app.add_flag("--isolate", o.isolate,
               "Run each case in a fresh process: a fault or a hang fails that case only");
  check_number(app.add_option("--timeout", o.timeout_s,
                              "Seconds a case may run before it is stopped (needs --isolate)"),
               kLimitSeconds);
  app.add_flag("--no-lock", o.no_lock,
               "Do not take the device's exclusive lock (the record says so); by default the "
               "sweep holds it, after checking that no other process uses the device");
  app.add_flag("--allow-contended", o.allow_contended,
               "Measure even when other processes use the device (the record is marked "
               "contended)");
  check_number(app.add_option("--lock-timeout", o.lock_timeout_s,
                              "Seconds to wait for another run's device lock (default " +
                                  format_shortest(kDefaultLockTimeoutS) + ")"),
               kWaitSeconds);
  app.add_option("--gpumeter-child", o.child_case)->group("");
  app.add_option("--gpumeter-child-record-fd", o.child_record_fd)->group("");
  app.add_option("--gpumeter-child-lock-fd", o.child_lock_fd)->group("");
  app.add_option("--gpumeter-child-ceilings", o.child_ceilings)->group("");
  app.footer(
      "Exit codes: 0 every case measured (or skipped by its benchmark); 1 a case produced no "
      "number, or a row failed its null test (the record says why); 2 a usage error; 3 an internal "
      "error; 4 the device stayed busy or another run held its lock (nothing measured); 5 no "
      "usable CUDA GPU for a program that measures GPU work (nothing measured); 128+N signal N "
      "(Ctrl-C: 130) stopped the sweep, and the cases finished before it are in the partial "
      "record it names. The device lock is $GPU_LOCK, else /tmp/gpumeter-gpu-<uuid>.lock.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    say(program, e.what());
    std::cerr << "Run '" << program << " --help' for the options.\n";
    return kExitUsage;
  }
  try {
    if (o.timeout_s > 0 && !o.isolate) {
      throw ConfigError(
          "--timeout needs --isolate: a case running in this process cannot be "
          "stopped without losing the process");
    }
    std::vector<const Benchmark*> benchmarks;
    for (const auto& b : registry().benchmarks()) benchmarks.push_back(b.get());
    if (benchmarks.empty()) throw ConfigError("this program registers no benchmark");
    std::vector<PlannedCase> cases = plan_cases(benchmarks, o.axes, o.filter);
    // The same answer with --list as without: a filter that selects nothing is a usage error.
    if (cases.empty()) throw ConfigError("no case matches --filter '" + o.filter + "'");
    if (o.list) {
      for (std::size_t k = 0; k < cases.size(); ++k)
        std::cout << k << '\t' << cases[k].label << '\n';
      return kExitOk;
    }
    if (o.child_case >= 0) {
      if (static_cast<std::size_t>(o.child_case) >= cases.size() || o.child_record_fd < 0) {
        throw ConfigError("internal: a child case out of the plan");
      }
      keep_child_descriptors(o);
      cases = {cases[static_cast<std::size_t>(o.child_case)]};
      o.quiet = true;
    }
    if (!o.budget.empty()) (void)parse_budget(o.budget);  // a bad budget is a usage error now
    const BackendChoice choice{o.timing, o.device, o.allow_events_fallback};
    check_timing_is_built(choice);
    if (o.child_case < 0) {
      // Said once, before the lock or any case: every case would fail without a device.
      if (const std::string why = unusable_device(choice); !why.empty()) {
        say(program, "needs a CUDA GPU, and none is usable here; nothing was measured: " + why);
        return kExitNoDevice;
      }
    }
    return run_sweep(o, std::vector<std::string>(argv, argv + argc), cases, program);
  } catch (const ConfigError& e) {
    say(program, e.what());
    std::cerr << "Run '" << program << " --help' for the options.\n";
    return kExitUsage;
  } catch (const DeviceBusy& e) {
    say(program, std::string(error_name(e)) + ": " + e.what());
    return kExitBusy;
  } catch (const Error& e) {
    say(program, std::string(error_name(e)) + ": " + e.what());
    return kExitCaseFailed;
  } catch (const std::exception& e) {
    say(program, std::string("internal error: ") + e.what());
    return kExitInternal;
  }
}

}  // namespace gpumeter
