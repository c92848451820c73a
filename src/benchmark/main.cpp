// gpumeter::main: the command line every benchmark program shares (B1), and the sweep it runs.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
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
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend_choice.hpp"
#include "gpumeter/benchmark.hpp"
#include "gpumeter/ceilings.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/device_lock.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/format.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/row_status.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/table.hpp"
#include "gpumeter/version.hpp"
#include "seconds_option.hpp"

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
  bool quiet = false;
  bool isolate = false;
  double timeout_s = 0;
  bool no_lock = false;
  bool allow_contended = false;
  double lock_timeout_s = kDefaultLockTimeoutS;
  // Hidden: a child of --isolate runs one case and writes its record here.
  long child_case = -1;
  std::string child_record;
  std::string child_ceilings;
};

std::string program_name(const char* argv0) {
  return fs::path(argv0 != nullptr ? argv0 : "benchmark").filename().string();
}

// One line for the user, controls shown, never obeyed.
void say(const std::string& program, const std::string& message) {
  std::cerr << program << ": " << inert_text(message) << '\n';
}

Budget parse_budget(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos) {
    throw ConfigError("--budget '" + text + "': expected WARMUP_MS,MEASURE_MS (e.g. 25,100)");
  }
  auto ms = [&](const std::string& part) {
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !(v > 0) || v > 1e6) {
      throw ConfigError("--budget '" + text + "': '" + part +
                        "' is not a positive number of milliseconds");
    }
    return static_cast<Nanos>(v * 1e6);
  };
  return Budget{ms(text.substr(0, comma)), ms(text.substr(comma + 1)),
                kMeasureBudget.min_iterations, kMeasureBudget.max_iterations};
}

// Fails before anything is measured when records cannot be written where asked.
void check_writable(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError("--out " + dir.string() + ": cannot create it (" + ec.message() + ")");
  std::string probe = (dir / ".gpumeter-write-test-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    throw ConfigError("--out " + dir.string() + ": cannot write there (" + std::strerror(errno) +
                      ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

// The record so far, replacing the previous checkpoint atomically: a crash keeps every case
// measured before it. Removed once the complete record is written.
fs::path partial_path(const fs::path& dir, const std::string& run_id) {
  return dir / ("gpumeter-" + run_id + ".partial.json");
}

void write_partial(const Record& record, const fs::path& dir, std::size_t done, std::size_t total) {
  Record partial = record;
  partial.comparisons = compare_results(partial.results);
  partial.deviations.push_back(partial_record_deviation(done, total));
  const std::string text = serialize(partial);
  const fs::path target = partial_path(dir, record.run_id);
  std::string tmp = (dir / (".gpumeter-" + record.run_id + ".partial.XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw Error("cannot write the partial record in " + dir.string());
  ::fchmod(fd, 0644);  // readable like the final record, not mkstemp's 0600
  bool ok = true;
  for (std::size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    at += static_cast<std::size_t>(n);
  }
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), target.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error("cannot write the partial record " + target.string());
  }
}

// Adds one case's record to the run's: its rows and failures, and its deviations once each.
// The first case's record brings the header (device, state, host, configuration).
void merge_into(Record& run, const Record& one, bool first) {
  if (first) {
    run.created_utc = one.created_utc;
    run.gpumeter_version = one.gpumeter_version;
    copy_measured_setup(one, run);
  }
  add_deviations_once(one, run);
  run.results.insert(run.results.end(), one.results.begin(), one.results.end());
  run.failures.insert(run.failures.end(), one.failures.begin(), one.failures.end());
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

// Measures one planned case in this process into a record of its own.
Record measure_case(Backend& backend, const PlannedCase& c, const RunOptions& run, int device) {
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
  if (failure) {
    Record r = run_cases(backend, {}, run);
    r.failures.push_back(*failure);
    return r;
  }
  return run_cases(backend, {planned}, run);
}

// --- isolation ----------------------------------------------------------------------------------

struct ChildResult {
  std::optional<Record> record;
  std::string failure_error;    // when no record: Crashed, Timeout
  std::string failure_message;  //
};

std::string last_line(const fs::path& log) {
  std::ifstream in(log);
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

ChildResult run_child(const std::vector<std::string>& args, const fs::path& record,
                      const fs::path& log, double timeout_s) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw Error(std::string("cannot start a process for the case: ") + std::strerror(rc));

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
      out.record = read_record(record);
      return out;
    } catch (const InvalidRecord& e) {
      // A child that failed before it could write (a DeviceError choosing its backend) said why
      // in its log.
      out.failure_error = kCrashed;
      const std::string said = last_line(log);
      out.failure_message = std::string("the case's process left no readable record: ") + e.what() +
                            (said.empty() ? "" : "; it last said: " + said);
      return out;
    }
  }
  out.failure_error = kCrashed;
  const std::string said = last_line(log);
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

// The ceilings of a sweep whose cases ran in processes of their own. Each case's process got
// the ceilings the first measured, or measured its own where none could be given (the first
// failed to): the sweep's are all of them joined, and every row's percentages are of those.
void join_case_ceilings(Record& run, const std::vector<Ceilings>& each) {
  if (const std::optional<Ceilings> joined = join_ceilings(each)) run.ceilings = *joined;
  for (Result& r : run.results) {
    const Measurement& m = r.measurement;
    r.summary = summarize(m.samples, m.method, m.retries, r.workload, run.ceilings);
  }
}

// The arguments a child gets: the parent's, less what only the parent does, plus its case.
std::vector<std::string> child_args(const std::vector<std::string>& argv, std::size_t k,
                                    const fs::path& record, const Ceilings& ceilings) {
  static const std::set<std::string> parent_only_flags{
      "--isolate", "--md", "--csv", "--quiet", "--no-lock", "--allow-contended"};
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
  out.push_back("--gpumeter-child-record=" + record.string());
  // The ceilings the first case measured, with their runs (a few KB of JSON): every case's
  // record then holds the same ceilings, and its percentages are of them.
  if (has_ceilings(ceilings))
    out.push_back("--gpumeter-child-ceilings=" + ceilings_to_json(ceilings));
  return out;
}

// --- the sweep
// ------------------------------------------------------------------------------------

int run_sweep(const Options& o, const std::vector<std::string>& argv,
              const std::vector<PlannedCase>& cases, const std::string& program) {
  const fs::path out_dir = o.out;
  check_writable(out_dir);
  Record run;
  run.run_id = new_run_id();
  run.argv = argv;
  const std::size_t n = cases.size();
  Progress progress(!o.quiet && ::isatty(STDERR_FILENO) != 0, n);
  const BackendChoice timing{o.timing, o.device, o.allow_events_fallback};

  // P1: the device's lock for the whole sweep, taken before anything touches the device. With
  // --isolate the parent holds it and its cases' processes run under it (they take none).
  std::unique_ptr<DeviceLock> lock;
  std::vector<std::string> lock_deviations;
  if (o.child_case < 0) {
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

  if (o.isolate) {
    run.deviations = lock_deviations;
    // Each case in a fresh process: a fault or a hang ends that case, not the sweep, and a
    // sticky CUDA error dies with its process.
    Ceilings ceilings;
    std::vector<Ceilings> case_ceilings;
    for (std::size_t k = 0; k < n; ++k) {
      progress.start(k, cases[k].label);
      const fs::path record =
          out_dir / (".gpumeter-" + run.run_id + "-case-" + std::to_string(k) + ".json");
      const fs::path log =
          out_dir / (".gpumeter-" + run.run_id + "-case-" + std::to_string(k) + ".log");
      const ChildResult child =
          run_child(child_args(argv, k, record, ceilings), record, log, o.timeout_s);
      std::error_code ec;
      fs::remove(record, ec);
      fs::remove(log, ec);
      if (child.record) {
        merge_into(run, *child.record, run.created_utc.empty());
        case_ceilings.push_back(child.record->ceilings);
        join_case_ceilings(run, case_ceilings);
        if (!has_ceilings(ceilings)) ceilings = child.record->ceilings;
      } else {
        run.failures.push_back(case_failure(cases[k], child.failure_error, child.failure_message));
      }
      write_partial(run, out_dir, k + 1, n);
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
    options.own_process = o.child_case >= 0;  // --isolate: this process measures one case
    for (std::size_t k = 0; k < n; ++k) {
      progress.start(k, cases[k].label);
      const Record one = measure_case(*backend, cases[k], options, o.device);
      merge_into(run, one, run.created_utc.empty());
      if (o.child_case < 0) write_partial(run, out_dir, k + 1, n);
    }
  }
  progress.finish();

  run.comparisons = compare_results(run.results);
  if (o.child_case >= 0) {
    // A child hands its record to the parent at the path it was given.
    std::ofstream(o.child_record) << serialize(run);
    return kExitOk;
  }
  // Never overwrites; the partial goes once the complete record exists.
  if (run.created_utc.empty()) {  // no case's process left a record: only failures to keep
    run.created_utc = utc_now_iso();
    run.gpumeter_version = version();
    run.device.kind = "none";
  }
  const fs::path path = write_record(run, out_dir);
  std::error_code ec;
  fs::remove(partial_path(out_dir, run.run_id), ec);

  // Everything printed is read back from the file: the record is the only source of tables.
  const std::vector<Record> records = read_records({path});
  const std::string text =
      o.csv ? render_csv(records) : render_markdown(records) + "\n" + render_comparisons(records);
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
  app.add_option("--device", o.device, "CUDA device index")->check(CLI::NonNegativeNumber);
  app.add_option("--axis", o.axes,
                 "Override an axis: name=v1,v2 or name=start:stop[:step] (repeatable)");
  app.add_option("--timing", o.timing,
                 "cupti (device time, the default with CUDA), events (CUDA event pairs) or host "
                 "(synchronized wall clock; the default without CUDA)")
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
  app.add_flag("--quiet", o.quiet, "Print nothing but errors (no progress, no table)");
  app.add_flag("--isolate", o.isolate,
               "Run each case in a fresh process: a fault or a hang fails that case only");
  app.add_option("--timeout", o.timeout_s,
                 "Seconds a case may run before it is stopped (needs "
                 "--isolate)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-lock", o.no_lock,
               "Do not take the device's exclusive lock (the record says so); by default the "
               "sweep holds it, after checking that no other process uses the device");
  app.add_flag("--allow-contended", o.allow_contended,
               "Measure even when other processes use the device (the record is marked "
               "contended)");
  app.add_option("--lock-timeout", o.lock_timeout_s,
                 "Seconds to wait for another run's device lock (default " +
                     format_shortest(kDefaultLockTimeoutS) + ")")
      ->check(seconds_option());
  app.add_option("--gpumeter-child", o.child_case)->group("");
  app.add_option("--gpumeter-child-record", o.child_record)->group("");
  app.add_option("--gpumeter-child-ceilings", o.child_ceilings)->group("");
  app.footer(
      "Exit codes: 0 every case measured (or skipped by its benchmark); 1 a case produced no "
      "number, or a row failed its null test (the record says why); 2 a usage error; 3 an internal "
      "error; 4 the device stayed "
      "busy or another run held its lock (nothing measured). The device lock is $GPU_LOCK, "
      "else /tmp/gpumeter-gpu-<uuid>.lock.");

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
    if (o.list) {
      for (std::size_t k = 0; k < cases.size(); ++k)
        std::cout << k << '\t' << cases[k].label << '\n';
      return kExitOk;
    }
    if (cases.empty()) throw ConfigError("no case matches --filter '" + o.filter + "'");
    if (o.child_case >= 0) {
      if (static_cast<std::size_t>(o.child_case) >= cases.size() || o.child_record.empty()) {
        throw ConfigError("internal: a child case out of the plan");
      }
      cases = {cases[static_cast<std::size_t>(o.child_case)]};
      o.quiet = true;
    }
    if (!o.budget.empty()) (void)parse_budget(o.budget);  // a bad budget is a usage error now
    check_timing_is_built(BackendChoice{o.timing, o.device, o.allow_events_fallback});
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
