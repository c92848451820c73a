// `gpumeter run`: device time of an unmodified program, by its NVTX ranges (docs/program-runs.md).
#include "run.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "child_signals.hpp"
#include "command_options.hpp"
#include "env.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/session.hpp"
#include "part_format.hpp"
#include "program_run.hpp"
#include "spawn.hpp"
#include "table_format_option.hpp"

extern char** environ;

namespace gpumeter::cli {
namespace {

namespace fs = std::filesystem;

struct RunArguments {
  std::string range_regex;
  std::string domain;
  bool domain_given = false;
  std::string out = "gpumeter-runs";
  std::string label = "program";
  std::string engine_threads = "adopt";
  bool count_copies = false;
  bool keep_parts = false;
  TableFormatFlags table;  // as `gpumeter report`'s
  double child_wait_s = kDefaultChildWaitS;
  int device = 0;
  int repeat = 1;
  std::vector<std::string> command;
};

constexpr const char* kCollectorFile = "libgpumeter_collector.so";
constexpr const char* kGuardFile = "libgpumeter_cupti_guard.so";  // beside the collector

// Where the collector is: $GPUMETER_COLLECTOR; else beside the code of this command (the build
// tree's lib/, an installed prefix's lib/, the Python package's directory); else the build tree.
std::string find_collector() {
  if (const char* path = std::getenv(kCollectorEnv); path != nullptr && *path != 0) return path;
  std::vector<fs::path> candidates;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&find_collector), &info) != 0 && info.dli_fname != nullptr) {
    std::error_code ec;
    const fs::path self = fs::canonical(fs::path(info.dli_fname), ec);
    if (!ec) {
      const fs::path dir = self.parent_path();
      candidates = {dir / kCollectorFile, dir / "lib" / kCollectorFile,
                    dir.parent_path() / "lib" / kCollectorFile,
                    dir.parent_path() / "lib64" / kCollectorFile,
                    dir.parent_path().parent_path() / "lib" / kCollectorFile};
    }
  }
#ifdef GPUMETER_COLLECTOR_BUILD_PATH
  candidates.emplace_back(GPUMETER_COLLECTOR_BUILD_PATH);
#endif
  for (const fs::path& p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::canonical(p, ec).string();
  }
  return {};
}

// This environment, with the collector injected, and none of an enclosing run's variables.
// The guard that names other CUPTI clients is preloaded ahead of what LD_PRELOAD already holds.
std::vector<std::string> child_environment(const std::string& collector, const fs::path& parts) {
  std::vector<std::string> env;
  const std::string parts_key = std::string(program_part::kDirEnv) + "=";
  const fs::path guard = fs::path(collector).parent_path() / kGuardFile;
  std::string preload = guard.string();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    if (entry.rfind(parts_key, 0) == 0) continue;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      if (entry.size() > 11) preload += ":" + entry.substr(11);
      continue;
    }
    env.push_back(entry);
  }
  env.push_back("LD_PRELOAD=" + preload);
  env.push_back("CUDA_INJECTION64_PATH=" + collector);
  env.push_back("NVTX_INJECTION64_PATH=" + collector);
  env.push_back(parts_key + parts.string());
  return env;
}

// Waits up to `wait_s` for every process that owes a part to write it: a child that outlives the
// command (a daemon worker) gets that long, then is reported missing. Never waits longer.
void wait_for_parts(const fs::path& dir, double wait_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(wait_s));
  for (;;) {
    if (missing_parts(dir).empty()) return;
    if (std::chrono::steady_clock::now() >= deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string command_text(const std::vector<std::string>& command) {
  std::string s;
  for (const std::string& a : command) s += (s.empty() ? "" : " ") + inert_text(a);
  return s;
}

// The options that shape the readings, as given: the record says how it was made.
std::vector<std::string> command_line(const RunArguments& o) {
  std::vector<std::string> argv{"gpumeter", "run"};
  const auto add = [&argv](const char* name, const std::string& value) {
    argv.emplace_back(name);
    argv.push_back(value);
  };
  if (!o.range_regex.empty()) add("--range", o.range_regex);
  if (o.domain_given) add("--domain", o.domain);
  add("--label", o.label);
  add("--engine-threads", o.engine_threads);
  if (o.count_copies) argv.emplace_back("--count-copies");
  add("--device", std::to_string(o.device));
  add("--repeat", std::to_string(o.repeat));
  argv.emplace_back("--");
  argv.insert(argv.end(), o.command.begin(), o.command.end());
  return argv;
}

// The folders a run made (--out's missing chain, each run's parts-*), removed again when the run
// ends without a record: a failed run leaves nothing behind but parts worth reading. Only empty
// folders go (remove() refuses one that is not), deepest first.
struct MadeFolders {
  std::vector<fs::path> made;
  bool keep = false;
  MadeFolders() = default;
  MadeFolders(const MadeFolders&) = delete;
  MadeFolders& operator=(const MadeFolders&) = delete;
  ~MadeFolders() {
    if (keep) return;
    for (auto it = made.rbegin(); it != made.rend(); ++it) {
      std::error_code ec;
      fs::remove(*it, ec);
    }
  }
  // Creates `dir` and the folders above it that are missing, remembering each one made.
  void create(const fs::path& dir, std::error_code& ec) {
    std::vector<fs::path> missing;
    for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    fs::create_directories(dir, ec);
    if (ec) return;
    made.insert(made.end(), missing.rbegin(), missing.rend());
  }
};

// Why the command's failure gives no record, with its code: gpumeter run exits with it, so a 3
// (gpumeter's own code for an internal error) is said to be the command's.
std::string failed_command_text(const ChildExit& exit) {
  if (exit.signaled) {
    return "was ended by signal " + std::to_string(exit.signal) + " (gpumeter run exits " +
           std::to_string(exit.shell_code()) + ", 128+" + std::to_string(exit.signal) + ")";
  }
  return "exited with code " + std::to_string(exit.code) +
         " (gpumeter run exits with the command's code)";
}

int run_program(Io& io, const RunArguments& o) {
  MadeFolders folders;
  // Another tool injected into this environment (Nsight Systems sets both variables for the
  // programs it starts) would be displaced by the collector, or displace it.
  for (const char* name : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != 0) {
      print_error(io, "run",
                  std::string("another tool is injected into this environment (") + name + "=" +
                      value +
                      "): a profiler such as Nsight Systems sets it, and CUPTI serves one client. "
                      "Run gpumeter run outside that tool.");
      return kExitUsage;
    }
  }
  const std::string collector = find_collector();
  if (collector.empty()) {
    print_error(io, "run",
                std::string("cannot find the collector library ") + kCollectorFile +
                    " (this gpumeter was built without the CUDA backend, or the library was not "
                    "installed beside it); set " +
                    kCollectorEnv + " to its path");
    return kExitUsage;
  }
  if (!fs::is_regular_file(fs::path(collector).parent_path() / kGuardFile)) {
    print_error(io, "run",
                std::string("cannot find ") + kGuardFile + " beside the collector " + collector +
                    ": it names other CUPTI clients in the program, without which a profiler "
                    "could take the records unseen");
    return kExitUsage;
  }
  if (o.engine_threads != "adopt" && o.engine_threads != "own") {
    print_error(io, "run",
                "--engine-threads: expected adopt or own, got '" + o.engine_threads + "'");
    return kExitUsage;
  }
  ProgramOptions options;
  if (!o.range_regex.empty()) options.ranges.name_regex = o.range_regex;
  if (o.domain_given) options.ranges.domain = o.domain;
  options.ranges.count_copies = o.count_copies;
  options.engine_threads = o.engine_threads == "own" ? EngineThreads::own : EngineThreads::adopt;
  options.command = o.command;
  options.implementation = o.label;
  try {
    // The filter is checked before the program runs: a typo should not cost a training run.
    (void)attribute_ranges(RangeTrace{{}, {}, {}, 0, 0}, options.ranges);
  } catch (const ConfigError& e) {
    print_error(io, "run", std::string("--range: ") + e.what());
    return exit_code_of_error(e);
  } catch (const Error&) {
  }

  std::error_code ec;
  folders.create(o.out, ec);
  if (ec) {
    print_error(io, "run", "cannot create --out " + o.out + ": " + ec.message());
    return kExitUsage;
  }
  const std::string run_id = new_run_id();
  std::vector<fs::path> parts_dirs;
  std::vector<ProgramReading> readings;
  std::set<std::uint32_t> devices;
  bool any_command = false;
  try {
    for (int k = 1; k <= o.repeat; ++k) {
      const fs::path parts =
          fs::path(o.out) /
          ("parts-" + run_id + (o.repeat > 1 ? "-run" + std::to_string(k) : std::string()));
      fs::create_directory(parts, ec);
      if (ec) {
        print_error(io, "run", "cannot create " + parts.string() + ": " + ec.message());
        return kExitUsage;
      }
      folders.made.push_back(parts);
      parts_dirs.push_back(parts);
      const std::string which =
          o.repeat > 1 ? " (run " + std::to_string(k) + " of " + std::to_string(o.repeat) + ")"
                       : std::string();
      SpawnRequest request;
      request.argv = o.command;
      request.inherit_environment = false;
      request.environment = child_environment(collector, parts);
      request.default_signals = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
      io.out << std::flush;
      io.err << std::flush;
      ChildExit exit;
      long command_pid = 0;
      {
        SignalsWhileRunning signals;
        const Spawned spawned = spawn(request);
        if (spawned.pid < 0) {
          print_error(io, "run",
                      "cannot run '" + o.command.front() + "': " + std::strerror(spawned.error));
          return spawned.error == ENOENT ? kExitNotFound : kExitCannotRun;
        }
        signals.started(spawned.pid);
        command_pid = spawned.pid;
        try {
          exit = wait_for_child(spawned.pid);
        } catch (const Error& e) {
          print_error(io, "run", e.what());
          return kExitInternal;
        }
      }
      if (exit.shell_code() != 0) {
        // A program that failed may have stopped inside a range, so no range of it is trusted.
        std::error_code empty_ec;
        const bool has_parts = !fs::is_empty(parts, empty_ec) && !empty_ec;
        print_error(io, "run",
                    "the command (" + command_text(o.command) + ")" + which + " " +
                        failed_command_text(exit) +
                        ": no record is written, since a program that failed may have stopped "
                        "inside a range and its ranges would be cut short" +
                        (has_parts ? ". Its parts are in " + parts.string()
                                   : std::string(". It wrote no part")));
        if (has_parts) folders.keep = true;
        return exit.shell_code();
      }
      wait_for_parts(parts, o.child_wait_s);

      const PartsFound found = read_parts(parts);
      if (!found.missing.empty()) {
        std::string pids;
        for (const long pid : found.missing)
          pids += (pids.empty() ? "" : ", ") + std::to_string(pid);
        throw PartsMissing(
            std::to_string(found.missing.size()) +
            " process(es) began recording but wrote no part (" + pids + ") within " +
            format_shortest(o.child_wait_s) + " s of the command's end" + which +
            ": killed, crashed, still running, or ended through _exit (a forked worker that used "
            "NVTX or CUDA: Python's multiprocessing ends its children so). Their ranges are "
            "unknown, so none is reported. Parts are in " +
            parts.string());
      }
      for (const ProcessPart& p : found.parts) any_command = any_command || p.pid == command_pid;
      if (found.parts.empty()) {
        throw NoRangesFound(
            "the command made no CUDA or NVTX call in any process (no part was written)" + which +
            ": there is nothing to time. Is it a CUDA program, and does it mark its work with "
            "NVTX ranges?");
      }
      options.command_pid = command_pid;
      readings.push_back(read_program(found.parts, options));
      for (const ProcessPart& p : found.parts) {
        for (const Activity& a : p.trace.activities) devices.insert(a.device);
      }
    }
  } catch (const Error& e) {
    // A process's failure is named by the rule that failed (RangeLeftOpen...), not by its wrapper.
    const auto* in_process = dynamic_cast<const ProgramProcessError*>(&e);
    const bool nothing_recorded = dynamic_cast<const NoRangesFound*>(&e) != nullptr ||
                                  (in_process != nullptr && in_process->cause() == "NoRangesFound");
    if (nothing_recorded) {
      // Without a usable GPU a CUDA program has nothing to record: say that first (exit 5, as
      // every gpumeter program does), not only that no range was found.
      SessionOptions gpu;
      gpu.timing = Timing::cupti;
      gpu.device = o.device;
      if (const std::string why = Session::unusable_device(gpu); !why.empty()) {
        print_error(io, "run",
                    why +
                        "; the command recorded nothing to time, so no record is written "
                        "(gpumeter run times a program's CUDA work and has no host clock; "
                        "NoRangesFound: " +
                        e.what() + ")");
        return kExitNoDevice;
      }
    }
    print_error(io, "run",
                (in_process != nullptr ? in_process->cause() : std::string(error_name(e))) + ": " +
                    e.what());
    // A process's failure exits as the error it raised would.
    return in_process != nullptr ? exit_code_of_error(in_process->cause()) : exit_code_of_error(e);
  }

  Record record;
  try {
    ProgramReading reading = merge_program_runs(std::move(readings));
    const Environment env = read_environment(o.device);
    record = env.record;
    record.run_id = run_id;
    record.created_utc = utc_now_iso();
    record.argv = command_line(o);
    record.config.l2_flush = false;
    record.config.schedule = "program";
    record.results = std::move(reading.results);
    record.program = std::move(reading.program);
    record.deviations.push_back(
        "an unmodified program timed by its NVTX ranges: the L2 was not flushed between "
        "instances and nothing was isolated, so each reading is of the program as it ran, not of "
        "an isolated call");
    record.deviations.push_back(
        "the device state was read after the program ended, and no device lock was held while "
        "it ran (the program chose its devices)");
    record.deviations.push_back(
        o.repeat > 1
            ? "the command ran " + std::to_string(o.repeat) +
                  " times, one after another; each run is one pass of every row, so a comparison "
                  "judges the spread between runs"
            : std::string("the command ran once: one pass, so this record can be reported but "
                          "not compared (a comparison needs the spread between runs: --repeat)"));
    if (!any_command) {
      record.deviations.push_back(
          "the command's own process made no CUDA or NVTX call: the ranges are its children's");
    }
    if (devices.size() > 1 ||
        (devices.size() == 1 && static_cast<int>(*devices.begin()) != o.device)) {
      std::string list;
      for (const std::uint32_t d : devices) list += (list.empty() ? "" : ", ") + std::to_string(d);
      record.deviations.push_back("the program ran work on device(s) " + list +
                                  "; the record's device is --device " + std::to_string(o.device));
    }
  } catch (const Error& e) {
    print_error(io, "run", std::string(error_name(e)) + ": " + e.what());
    return exit_code_of_error(e);
  }

  // Its rows' flags and comparisons, as every record's (record.hpp): its rows are summarized.
  finish_record(record);
  fs::path written;
  try {
    written = write_record(record, o.out);
  } catch (const Error& e) {
    print_error(io, "run", e.what());
    return kExitUsage;
  }
  folders.keep = true;
  if (!o.keep_parts) {
    for (const fs::path& parts : parts_dirs) fs::remove_all(parts, ec);
  }
  // The table as `gpumeter report` renders it from the record, in the format asked for. CSV is
  // for machines: stdout holds the rows alone, and the record's path goes to stderr.
  const ReportFormat format = o.table.format();
  io.out << make_reporter(format)->render({record});
  if (o.table.csv) {
    io.err << "record: " << written.string() << "\n" << std::flush;
  } else {
    io.out << "\nrecord: " << written.string() << "\n";
  }
  io.out << std::flush;
  return kExitOk;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunArguments>();
  CLI::App* sub = app.add_subcommand(
      "run",
      "Run a program unmodified with gpumeter's collector injected, and report the device time "
      "of its NVTX ranges: per range name, its instances, device_busy (the union of the kernels "
      "launched inside each instance), latency, kernel count and their spread; kernels outside "
      "every range listed by thread and name. Writes a record (report, compare, merge and plot "
      "read it).");
  add_command_option(*sub, "--range", o->range_regex);
  add_command_option(*sub, "--domain", o->domain)->each([o](const std::string&) {
    o->domain_given = true;
  });
  add_command_option(*sub, "--out", o->out, RunArguments{}.out);
  add_command_option(*sub, "--label", o->label);
  add_command_option(*sub, "--engine-threads", o->engine_threads);
  add_command_flag(*sub, "--count-copies", o->count_copies);
  add_command_option(*sub, "--child-wait", o->child_wait_s, format_shortest(kDefaultChildWaitS));
  add_command_option(*sub, "--device", o->device);
  add_command_option(*sub, "--repeat", o->repeat);
  add_table_format_flags(*sub, o->table, "the record's path on stderr");
  add_command_flag(*sub, "--keep-parts", o->keep_parts);
  sub->add_option("COMMAND", o->command, "The program to run and its arguments (after --)")
      ->required();
  sub->positionals_at_end();
  sub->footer(
      exit_codes_help(
          {{kExitOk, "the record was written"},
           {kExitFailed,
            "the run produced no number gpumeter stands behind (records lost, a trace that cannot "
            "be true, a range left open or closed twice, a kernel without its launch, kernel "
            "records missing, a part missing, another CUPTI client, runs that differ): one line "
            "names it"},
           {kExitUsage,
            "bad arguments (including an engine thread whose ranges are ambiguous, a range name "
            "too long for a record, no collector, another tool already injected), or a program "
            "that recorded no NVTX range"},
           {kExitNoDevice, "no usable CUDA GPU here and nothing recorded (one line says so)"},
           {kExitCannotRun},
           {kExitNotFound}}) +
      " Otherwise the command's own code (128+N for signal N) when it failed, no record written "
      "(so a 3 there is the command's, not an internal error).");
  return {sub, [o](Io& io) { return run_program(io, *o); }};
}

}  // namespace gpumeter::cli
