// --devices (devices.hpp).
#include "devices.hpp"

#include <signal.h>
#include <time.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <string_view>
#include <utility>

#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/device_lock.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/version.hpp"
#include "spawn.hpp"
#include "sweep.hpp"
#include "temporary_file.hpp"

extern char** environ;  // NOLINT: the process's environment, handed on less the scheduler's

namespace gpumeter::program {
namespace {

namespace fs = std::filesystem;

// One device's process.
struct Part {
  HostDevice device;
  Shard shard;
  std::size_t cases = 0;  // dealt to it
  fs::path out;           // where its record goes
  pid_t pid = -1;
  std::optional<ChildExit> exit;
};

std::string device_name(const HostDevice& d) {
  return "device " + std::to_string(d.index) + (d.uuid.empty() ? "" : " (" + d.uuid + ")");
}

// The parent's environment less the scheduler's variables: the parent read them, and gives each
// process its shard; read again they would disagree with it.
std::vector<std::string> device_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry = *e;
    const std::string_view name = entry.substr(0, entry.find('='));
    bool scheduler = false;
    for (const char* v : kSchedulerVariables) scheduler = scheduler || name == v;
    if (!scheduler) out.emplace_back(entry);
  }
  return out;
}

// What a device's process left in its folder: its complete record, else the partial record a
// signal left, else the journal a kill left; nullopt when nothing.
std::optional<fs::path> part_record(const fs::path& dir) {
  std::optional<fs::path> partial;
  std::optional<fs::path> journal;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("gpumeter-", 0) != 0) continue;
    const auto ends = [&](std::string_view tail) {
      return name.size() > tail.size() &&
             name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends(".partial.jsonl")) {
      journal = entry.path();
    } else if (ends(".partial.json")) {
      partial = entry.path();
    } else if (ends(".json")) {
      return entry.path();
    }
  }
  return partial ? partial : journal;
}

// Each device's process started, then waited for; SIGINT, SIGTERM and SIGHUP are handed on to
// them (each writes the partial record of what it finished) and returned, 0 when none came.
int run_parts(std::vector<Part>& parts, const std::vector<std::string>& argv) {
  sigset_t stop;
  sigemptyset(&stop);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop, s);
  sigset_t before;
  // Held pending while the processes run, and read below; each process starts with none held.
  ::pthread_sigmask(SIG_BLOCK, &stop, &before);
  struct Restore {
    const sigset_t& mask;
    ~Restore() { ::pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore{before};

  const std::vector<std::string> environment = device_environment();
  for (Part& p : parts) {
    SpawnRequest request;
    request.argv = device_args(argv, p.device, p.shard, p.out.string());
    request.program = "/proc/self/exe";  // this very program, wherever it was found
    request.inherit_environment = false;
    request.environment = environment;
    // Not killed with this process: a device's process that outlives it finishes its shard and
    // writes its record, under its own lock.
    const Spawned spawned = spawn(request);
    if (spawned.pid < 0) {
      for (Part& q : parts) {
        if (q.pid > 0) ::kill(q.pid, SIGTERM);
      }
      for (Part& q : parts) {
        if (q.pid > 0) q.exit = wait_for_child(q.pid);
      }
      throw Error("cannot start the process of " + device_name(p.device) + ": " +
                  std::strerror(spawned.error));
    }
    p.pid = spawned.pid;
  }
  int stopped_by = 0;
  for (std::size_t running = parts.size(); running > 0;) {
    const timespec poll{0, 50'000'000};
    const int signal_number = ::sigtimedwait(&stop, nullptr, &poll);
    if (signal_number > 0) {
      if (stopped_by == 0) stopped_by = signal_number;
      for (const Part& p : parts) {
        if (!p.exit) ::kill(p.pid, signal_number);
      }
    }
    for (Part& p : parts) {
      if (p.exit) continue;
      p.exit = poll_child(p.pid);
      if (p.exit) --running;
    }
  }
  return stopped_by;
}

}  // namespace

std::vector<RowKey> case_keys(const std::vector<PlannedCase>& cases) {
  std::vector<RowKey> keys;
  keys.reserve(cases.size());
  for (const PlannedCase& c : cases) keys.push_back(RowKey{c.benchmark->name(), c.params, ""});
  return keys;
}

std::vector<std::string> device_args(const std::vector<std::string>& argv, const HostDevice& device,
                                     const Shard& shard, const std::string& out) {
  static const std::set<std::string> flags{"--quiet", "--md", "--csv", "--wide"};
  static const std::set<std::string> options{"--devices", "--device", "--shard", "--out",
                                             "--gpumeter-shard-origin"};
  std::vector<std::string> args{argv.front()};
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (flags.count(a) != 0) continue;
    if (options.count(a.substr(0, a.find('='))) != 0) {
      if (a.find('=') == std::string::npos) ++i;  // its value is the next argument
      continue;
    }
    args.push_back(a);
  }
  args.push_back("--device=" + std::to_string(device.index));
  args.push_back("--shard=" + std::to_string(shard.index) + "/" + std::to_string(shard.count));
  args.push_back("--out=" + out);
  args.push_back("--quiet");
  args.push_back("--gpumeter-shard-origin=" + shard.origin);
  return args;
}

int run_on_devices(const Options& o, const std::vector<std::string>& argv,
                   const std::vector<PlannedCase>& cases, const std::string& program,
                   const std::optional<Shard>& task, const std::vector<HostDevice>& devices) {
  if (const char* lock = std::getenv(kGpuLockEnv); lock != nullptr && *lock != '\0' && !o.no_lock) {
    throw ConfigError("--devices", std::string("runs one process per device, each under its own "
                                               "device lock, but ") +
                                       kGpuLockEnv + "=" + inert_text(lock) +
                                       " names one lock file for every device, so they would run "
                                       "one after another; unset it (each device then has a lock "
                                       "of its own) or pass --no-lock");
  }
  const std::vector<RowKey> keys = case_keys(cases);
  std::vector<Part> parts;
  std::vector<std::size_t> device_of(cases.size(), devices.size());
  for (std::size_t d = 0; d < devices.size(); ++d) {
    Part p;
    p.device = devices[d];
    p.shard = device_shard(task, d, devices.size());
    const ShardPlan plan = plan_shard(p.shard, keys);
    for (std::size_t k = 0; k < plan.cases.size(); ++k) {
      if (plan.cases[k].shard == p.shard.index) device_of[k] = d;
    }
    p.cases = own_cases(plan);
    parts.push_back(std::move(p));
  }
  if (o.list) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
      if (device_of[k] == devices.size()) continue;  // another task's
      std::cout << k << '\t' << cases[k].label << "\tdevice " << devices[device_of[k]].index
                << '\n';
    }
    return kExitOk;
  }

  const fs::path out_dir = o.out;
  try {
    prepare_output_directory(out_dir);
  } catch (const Error& e) {
    throw ConfigError("--out " + out_dir.string() + ": " + e.what());
  }
  const std::string run_id = new_run_id();
  // A task's shards are its output, beside every other task's; otherwise the parts go to a folder
  // of their own, and their merge beside it.
  const fs::path parts_dir = task ? out_dir : out_dir / ("gpumeter-" + run_id + ".devices");
  std::vector<Part> started;
  for (Part& p : parts) {
    if (p.cases == 0) {
      if (!o.quiet) {
        say(program,
            device_name(p.device) + ": " + shard_label(p.shard.index, p.shard.count) +
                " holds none of the " + cases_text(cases.size()) +
                // In an array task the dealing is over every task's devices.
                (task ? " (more shards than cases: " + std::to_string(task->count) + " tasks of " +
                            std::to_string(devices.size()) + " devices each make " +
                            std::to_string(p.shard.count) + " shards)"
                      : std::string(" (more devices than cases)")) +
                ": not started");
      }
      continue;
    }
    p.out = task ? parts_dir : parts_dir / ("device-" + std::to_string(p.device.index));
    if (!o.quiet) {
      say(program, device_name(p.device) + ": " + shard_label(p.shard.index, p.shard.count) + ", " +
                       std::to_string(p.cases) + " of the sweep's " + cases_text(cases.size()));
    }
    started.push_back(p);
  }
  const int stopped_by = run_parts(started, argv);

  // The first device whose process did not end well decides the exit code, after the merge.
  int failed_code = kExitOk;
  for (const Part& p : started) {
    const ChildExit& e = *p.exit;
    if (!e.signaled && e.code == kExitOk) continue;
    if (failed_code == kExitOk) failed_code = e.signaled ? kExitFailed : e.code;
    say(program, device_name(p.device) + ": its process " +
                     (e.signaled ? "was killed by signal " + std::to_string(e.signal)
                                 : "exited with code " + std::to_string(e.code)) +
                     (e.code == kExitFailed && !e.signaled
                          ? " (a case produced no number; the record says why)"
                          : "; its cases that did not run are failures of the merged record"));
  }
  if (stopped_by != 0) {
    say(program, "interrupted by signal " + std::to_string(stopped_by) + ": each device's record " +
                     "of what it finished is in " + parts_dir.string() +
                     "; gpumeter merge --allow-missing-shards joins them");
    return kExitSignalBase + stopped_by;
  }
  if (task) {
    if (!o.quiet) {
      say(program, "this task's " + std::to_string(started.size()) +
                       (started.size() == 1 ? " shard is in " : " shards are in ") +
                       out_dir.string() +
                       "; gpumeter merge of every task's shards gives the "
                       "whole sweep");
    }
    return failed_code;
  }

  // The devices' records, merged: the whole sweep, each row with its board.
  std::vector<Record> records;
  for (const Part& p : started) {
    const std::optional<fs::path> file = part_record(p.out);
    if (!file) continue;  // a missing shard: its cases become ShardMissing failures
    try {
      records.push_back(read_record(*file));
    } catch (const InvalidRecord& e) {
      say(program, device_name(p.device) + ": its record cannot be read: " + e.what());
      if (failed_code == kExitOk) failed_code = kExitInternal;
    }
  }
  if (records.empty()) {
    say(program, "no device left a record; nothing was measured");
    return failed_code == kExitOk ? kExitInternal : failed_code;
  }
  MergeOptions merge;
  merge.allow_missing_shards = failed_code != kExitOk;
  merge.run_id = run_id;
  merge.created_utc = utc_now_iso();
  merge.gpumeter_version = std::string(version());
  merge.argv = argv;
  Record merged;
  try {
    merged = merge_records(records, merge);
  } catch (const MergeRefused& e) {
    say(program, std::string("the devices' records, in ") + parts_dir.string() +
                     ", are not one sweep's: " + e.what());
    return exit_code_of_error(e);
  }
  std::string which;
  for (const Part& p : started) which += (which.empty() ? "" : ", ") + device_name(p.device);
  merged.deviations.push_back("spread over " + std::to_string(started.size()) +
                              " devices of this host (--devices), one process and device lock "
                              "each: " +
                              which + "; each device's record is in " + parts_dir.string());
  const fs::path path = write_record(merged, out_dir);
  const int code = finish_sweep(o, std::move(merged), path, program);
  return failed_code != kExitOk ? failed_code : code;
}

}  // namespace gpumeter::program
