#include "program_run.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <utility>

#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "part_format.hpp"

namespace gpumeter {
namespace {

using nlohmann::json;
namespace fmtp = program_part;

[[noreturn]] void corrupt(const std::string& where, const std::string& what) {
  throw CorruptTrace(where + ": " + what + " (not a part the collector writes; no range is " +
                     "reported)");
}

template <class T>
T number_at(const json& a, std::size_t i, const std::string& where) {
  if (i >= a.size() || !a[i].is_number_integer())
    corrupt(where, "field " + std::to_string(i) + " is not an integer");
  if (a[i].is_number_unsigned()) {
    const auto v = a[i].get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
      corrupt(where, "field " + std::to_string(i) + " is out of range");
    }
    return static_cast<T>(v);
  }
  const auto v = a[i].get<std::int64_t>();
  if (v < 0 ||
      static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
    corrupt(where, "field " + std::to_string(i) + " is out of range");
  }
  return static_cast<T>(v);
}

std::string text_at(const json& a, std::size_t i, const std::string& where) {
  if (i >= a.size() || !a[i].is_string())
    corrupt(where, "field " + std::to_string(i) + " is not a string");
  return a[i].get<std::string>();
}

const json& member(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) corrupt(where, std::string("no field '") + key + "'");
  return j.at(key);
}

// A collection read as empty when it is null or of another shape would hide a broken part.
const json& array_member(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_array()) corrupt(where, std::string("'") + key + "' is not an array");
  return v;
}

// A pid the collector wrote with getpid(): an integer, never a fraction read as its floor.
long pid_member(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_number_integer()) corrupt(where, std::string("'") + key + "' is not a pid");
  return v.get<long>();
}

// A thread id written as an object key: every character a decimal digit, within 64 bits.
std::uint64_t thread_id(const std::string& key, const std::string& where) {
  std::uint64_t id = 0;
  const char* end = key.data() + key.size();
  const auto [ptr, ec] = std::from_chars(key.data(), end, id);
  if (key.empty() || ec != std::errc() || ptr != end) {
    corrupt(where, "thread id '" + key + "' is not a decimal 64-bit number");
  }
  return id;
}

RangeEventKind range_kind(const std::string& s, const std::string& where) {
  if (s == fmtp::to_string(fmtp::RangeKind::push)) return RangeEventKind::push;
  if (s == fmtp::to_string(fmtp::RangeKind::pop)) return RangeEventKind::pop;
  if (s == fmtp::to_string(fmtp::RangeKind::start)) return RangeEventKind::start;
  if (s == fmtp::to_string(fmtp::RangeKind::end)) return RangeEventKind::end;
  corrupt(where, "unknown range event '" + s + "'");
}

ActivityKind device_kind(const std::string& s, const std::string& where) {
  if (s == fmtp::to_string(fmtp::DeviceKind::kernel)) return ActivityKind::kernel;
  if (s == fmtp::to_string(fmtp::DeviceKind::memcpy)) return ActivityKind::memcpy;
  if (s == fmtp::to_string(fmtp::DeviceKind::memset)) return ActivityKind::memset;
  corrupt(where, "unknown device record '" + s + "'");
}

std::uint64_t count_of(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    corrupt(where, std::string("'") + key + "' is not a count");
  }
  return v.get<std::uint64_t>();
}

// The range names a row may carry: an unnamed range reads as such, never as an empty name.
std::string row_case_name(const std::string& name) {
  return name.empty() ? "(unnamed range)" : name;
}

std::string engine_sentence(EngineThreads mode) {
  return mode == EngineThreads::adopt
             ? "launches of PyTorch's autograd engine threads (pt_autograd_N) count toward the "
               "ranges open on the one thread of their process that opens ranges (the thread "
               "that called backward() waits inside them meanwhile)"
             : "launches of PyTorch's autograd engine threads count only toward their own ranges "
               "(--engine-threads own)";
}

// The engine threads of `part` adopted by the one thread that pushes ranges.
std::vector<Adoption> engine_adoptions(const ProcessPart& part) {
  std::set<std::uint64_t> engines;
  for (const auto& [tid, name] : part.thread_names) {
    if (is_autograd_engine_thread(name)) engines.insert(tid);
  }
  if (engines.empty()) return {};
  std::set<std::uint64_t> launching;
  for (const LaunchEvent& l : part.trace.launches) {
    if (engines.count(l.thread) != 0) launching.insert(l.thread);
  }
  if (launching.empty()) return {};
  std::set<std::uint64_t> owners;
  for (const RangeEvent& e : part.trace.ranges) {
    if (e.kind == RangeEventKind::push && engines.count(e.thread) == 0) owners.insert(e.thread);
  }
  if (owners.empty()) return {};  // no range to adopt into: their kernels are outside
  if (owners.size() > 1) {
    std::string list;
    for (const std::uint64_t t : owners) list += (list.empty() ? "" : ", ") + std::to_string(t);
    throw ProgramProcessError(
        part.pid, "ConfigError",
        "PyTorch's autograd engine thread " + std::to_string(*launching.begin()) +
            " launched kernels while " + std::to_string(owners.size()) +
            " threads opened ranges (" + list +
            "): which thread's backward() it ran for is not known, so its kernels cannot be "
            "given to one thread's ranges. Open the ranges on one thread, or run with "
            "--engine-threads own (the engine's kernels then count only toward ranges opened "
            "on the engine thread itself, and are listed outside every range otherwise).");
  }
  std::vector<Adoption> adoptions;
  for (const std::uint64_t t : launching) {
    adoptions.push_back(Adoption{t, *owners.begin(), std::numeric_limits<Nanos>::min(),
                                 std::numeric_limits<Nanos>::max()});
  }
  return adoptions;
}

// A CUPTI client as a reader knows it: the PyTorch profiler lives in PyTorch's CUDA library.
std::string describe_cupti_client(const std::string& entry) {
  if (entry.find("libtorch") != std::string::npos || entry.find("kineto") != std::string::npos) {
    return "the PyTorch profiler (Kineto), from " + entry;
  }
  if (entry.find("nsys") != std::string::npos ||
      entry.find("ToolsInjection") != std::string::npos) {
    return "Nsight Systems, from " + entry;
  }
  return entry;
}

// A kernel as its source names it: CUPTI gives the mangled symbol, which nobody reads
// (_ZN2at6native13reduce_kernel...). A name that is not a C++ symbol is kept as it is.
std::string readable_kernel_name(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> plain(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && plain ? std::string(plain.get()) : name;
}

struct MergedRange {
  std::vector<RangeInstance> instances;
};

}  // namespace

bool is_autograd_engine_thread(std::string_view name) {
  return name.rfind("pt_autograd_", 0) == 0;
}

ProcessPart parse_part(std::string_view text, const std::string& where) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    corrupt(where, std::string("not JSON (") + e.what() + ")");
  }
  if (!j.is_object()) corrupt(where, "not an object");
  if (!j.contains("schema") || j["schema"] != fmtp::kSchema) corrupt(where, "not a part");
  if (!j.contains("version") || j["version"] != fmtp::kVersion) {
    corrupt(where, "a part of another version (written by another gpumeter)");
  }
  ProcessPart p;
  try {
    p.pid = pid_member(j, "pid", where);
    p.parent_pid = pid_member(j, "parent_pid", where);
    const std::string origin = member(j, "origin", where).get<std::string>();
    if (origin != fmtp::kOriginExec && origin != fmtp::kOriginFork) {
      corrupt(where, "unknown origin '" + origin + "'");
    }
    p.forked = origin == fmtp::kOriginFork;
    p.cupti = member(j, "cupti", where).get<bool>();
    p.cupti_problem = member(j, "cupti_problem", where).get<std::string>();
    for (const json& c : array_member(j, "foreign_cupti_clients", where)) {
      p.foreign_cupti_clients.push_back(c.get<std::string>());
    }
    p.lost_device_records = count_of(j, "lost_device_records", where);
    p.trace.dropped_host_events = count_of(j, "dropped_host_events", where);
    const json& dropped = member(j, "dropped_device_records", where);
    if (!dropped.is_null()) {
      p.trace.dropped_activity_records =
          count_of(j, "dropped_device_records", where) + p.lost_device_records;
    }
    const json& threads = member(j, "threads", where);
    if (!threads.is_object()) corrupt(where, "'threads' is not an object");
    for (const auto& [tid, name] : threads.items()) {
      p.thread_names[thread_id(tid, where)] = name.get<std::string>();
    }
    const json& ranges = array_member(j, "ranges", where);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const std::string w = where + ": ranges[" + std::to_string(i) + "]";
      const json& a = ranges[i];
      if (!a.is_array() || a.size() != 6) corrupt(w, "not a range event");
      RangeEvent e;
      e.kind = range_kind(text_at(a, 0, w), w);
      e.host_ns = number_at<Nanos>(a, 1, w);
      e.thread = number_at<std::uint64_t>(a, 2, w);
      e.id = number_at<std::uint64_t>(a, 3, w);
      e.name = text_at(a, 4, w);
      e.domain = text_at(a, 5, w);
      p.trace.ranges.push_back(std::move(e));
    }
    const json& launches = array_member(j, "launches", where);
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const std::string w = where + ": launches[" + std::to_string(i) + "]";
      const json& a = launches[i];
      if (!a.is_array() || a.size() != 6 || !a[5].is_boolean()) corrupt(w, "not a launch");
      LaunchEvent l;
      l.thread = number_at<std::uint64_t>(a, 0, w);
      l.correlation_id = number_at<std::uint64_t>(a, 1, w);
      p.enclosing.push_back(number_at<std::uint64_t>(a, 2, w));
      l.host_ns = number_at<Nanos>(a, 3, w);
      l.api = text_at(a, 4, w);
      p.capturing.push_back(a[5].get<bool>());
      p.trace.launches.push_back(std::move(l));
    }
    const json& device = array_member(j, "device", where);
    for (std::size_t i = 0; i < device.size(); ++i) {
      const std::string w = where + ": device[" + std::to_string(i) + "]";
      const json& a = device[i];
      if (!a.is_array() || a.size() != 8) corrupt(w, "not a device record");
      Activity act;
      act.kind = device_kind(text_at(a, 0, w), w);
      act.start_ns = number_at<Nanos>(a, 1, w);
      act.end_ns = number_at<Nanos>(a, 2, w);
      act.correlation_id = number_at<std::uint64_t>(a, 3, w);
      act.device = number_at<std::uint32_t>(a, 4, w);
      act.stream = number_at<std::uint32_t>(a, 5, w);
      act.graph_node = number_at<std::uint64_t>(a, 6, w);
      act.name = text_at(a, 7, w);
      p.trace.activities.push_back(std::move(act));
    }
  } catch (const json::exception& e) {
    corrupt(where, std::string("a field of the wrong type (") + e.what() + ")");
  }
  // A process without CUDA (a forked child, or one that only made NVTX calls) had no device
  // records to lose.
  if (!p.cupti && p.cupti_problem.empty() && p.trace.launches.empty()) {
    p.trace.dropped_activity_records = p.lost_device_records;
  }
  if (p.forked && p.trace.launches.empty() && p.trace.activities.empty()) {
    p.trace.dropped_activity_records = p.lost_device_records;
  }
  return p;
}

namespace {

// The pids of the markers and of the parts in `dir`.
struct DirListing {
  std::set<long> markers;
  std::map<long, std::filesystem::path> parts;
};

DirListing list_parts(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  DirListing listing;
  const auto pid_of = [](const std::string& digits) -> std::optional<long> {
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    return std::stol(digits);
  };
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string marker = program_part::marker_name(0);  // "started-0"
    const std::string marker_prefix = marker.substr(0, marker.size() - 1);
    if (name.rfind(marker_prefix, 0) == 0) {
      if (const auto pid = pid_of(name.substr(marker_prefix.size()))) listing.markers.insert(*pid);
    } else if (name.rfind("part-", 0) == 0 && name.size() > 10 &&
               name.compare(name.size() - 5, 5, ".json") == 0) {
      const auto pid = pid_of(name.substr(5, name.size() - 10));
      if (pid && name == program_part::part_name(*pid)) listing.parts[*pid] = entry.path();
    }
  }
  return listing;
}

}  // namespace

std::vector<long> missing_parts(const std::filesystem::path& dir) {
  const DirListing listing = list_parts(dir);
  std::vector<long> missing;
  for (const long pid : listing.markers) {
    if (listing.parts.count(pid) == 0) missing.push_back(pid);
  }
  return missing;
}

PartsFound read_parts(const std::filesystem::path& dir) {
  const DirListing listing = list_parts(dir);
  PartsFound found;
  for (const auto& [pid, path] : listing.parts) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    ProcessPart part = parse_part(text.str(), path.string());
    if (part.pid != pid) corrupt(path.string(), "it names process " + std::to_string(part.pid));
    found.parts.push_back(std::move(part));
  }
  found.missing = missing_parts(dir);
  return found;
}

ProgramReading read_program(const std::vector<ProcessPart>& parts, const ProgramOptions& options) {
  ProgramReading out;
  ProgramRun& run = out.program;
  run.command = options.command;
  run.range_regex = options.ranges.name_regex;
  run.domain = options.ranges.domain;
  run.engine_threads = engine_sentence(options.engine_threads);

  std::map<std::pair<std::string, std::string>, MergedRange> merged;  // (domain, name)
  std::map<std::tuple<long, std::uint64_t, std::string>, ProgramLaunchesWithoutWork> without;
  std::size_t kernel_launches_without = 0;
  std::string first_without;
  std::size_t range_events = 0;

  for (const ProcessPart& part : parts) {
    if (!part.cupti && !part.forked && !part.cupti_problem.empty()) {
      throw ProgramProcessError(
          part.pid, "CuptiUnavailable",
          "its device work was not recorded: " + part.cupti_problem +
              ". gpumeter run cannot share CUPTI with another client: run the program without "
              "it (no profiler context, not under nsys or ncu).");
    }
    if (!part.foreign_cupti_clients.empty()) {
      std::string names;
      for (const std::string& c : part.foreign_cupti_clients) {
        names += (names.empty() ? "" : "; ") + describe_cupti_client(c);
      }
      throw ProgramProcessError(
          part.pid, "CuptiUnavailable",
          "another CUPTI client ran in this process: " + names +
              ". CUPTI serves one subscriber and one set of activity buffers, so that client "
              "either lost its own trace or took gpumeter's records: the run is refused. Run the "
              "program without it (no profiler context).");
    }
    // A driver launch made inside a runtime launch is that launch: dropped, and a device record
    // carrying the driver call's id (where CUPTI gave it its own) is the runtime call's.
    ProcessPart own = part;
    {
      std::vector<LaunchEvent> kept;
      std::vector<bool> kept_capturing;
      std::unordered_map<std::uint64_t, std::uint64_t> runtime_of;
      for (std::size_t i = 0; i < own.trace.launches.size(); ++i) {
        const std::uint64_t outer = i < own.enclosing.size() ? own.enclosing[i] : 0;
        const LaunchEvent& l = own.trace.launches[i];
        if (outer == 0) {
          kept.push_back(l);
          kept_capturing.push_back(i < own.capturing.size() && own.capturing[i]);
        } else if (outer != l.correlation_id) {
          runtime_of[l.correlation_id] = outer;
        }
      }
      own.trace.launches = std::move(kept);
      own.capturing = std::move(kept_capturing);
      for (Activity& a : own.trace.activities) {
        const auto it = runtime_of.find(a.correlation_id);
        if (it != runtime_of.end()) a.correlation_id = it->second;
      }
    }
    RangeOptions o = options.ranges;
    o.adoptions.clear();
    RangeReport report;
    try {
      // Lost records before the engine-thread rule: every other failure could be their doing.
      check_collector_records(own.trace);
      if (options.engine_threads == EngineThreads::adopt) o.adoptions = engine_adoptions(own);
      report = attribute_ranges(own.trace, o);
    } catch (const ProgramProcessError&) {
      throw;
    } catch (const Error& e) {
      throw ProgramProcessError(part.pid, error_name(e), e.what());
    }
    for (const RangeStats& stats : report.ranges) {
      if (stats.domain.size() > kMaxNameBytes) {
        throw ConfigError("domain",
                          "an NVTX domain name of " + std::to_string(stats.domain.size()) +
                              " bytes is longer than the " + std::to_string(kMaxNameBytes) +
                              " a record's row parameter may hold: '" + stats.domain.substr(0, 60) +
                              "...'. Select the ranges to report with --domain.");
      }
    }
    range_events += part.trace.ranges.size();

    ProgramProcess process;
    process.pid = part.pid;
    process.parent_pid = part.parent_pid;
    process.origin = part.pid == options.command_pid ? ProcessOrigin::command
                     : part.forked                   ? ProcessOrigin::fork
                                                     : ProcessOrigin::exec;
    process.range_events = part.trace.ranges.size();
    process.launches = own.trace.launches.size();
    process.device_records = part.trace.activities.size();
    run.processes.push_back(process);

    for (RangeStats& stats : report.ranges) {
      MergedRange& m = merged[{stats.domain, stats.name}];
      m.instances.insert(m.instances.end(), stats.instances.begin(), stats.instances.end());
    }
    const auto thread_name = [&](std::uint64_t tid) {
      const auto it = part.thread_names.find(tid);
      return it != part.thread_names.end() ? it->second : std::string();
    };
    for (const OutsideKernels& k : report.outside) {
      run.outside.push_back(ProgramOutsideKernels{part.pid, k.thread, thread_name(k.thread),
                                                  readable_kernel_name(k.name), k.n_kernels,
                                                  k.total_ns, k.device_busy_ns});
    }
    // A copy or fill call whose copy or fill record came back did put work on the device.
    std::set<std::uint64_t> with_device_record;
    for (const Activity& a : own.trace.activities) with_device_record.insert(a.correlation_id);
    std::set<std::uint64_t> captured;  // launches made while a stream capture was under way
    for (std::size_t i = 0; i < own.trace.launches.size(); ++i) {
      if (i < own.capturing.size() && own.capturing[i]) {
        captured.insert(own.trace.launches[i].correlation_id);
      }
    }
    for (const LaunchWithoutKernel& l : report.launches_without_kernel) {
      if (with_device_record.count(l.correlation_id) != 0) continue;
      // A launch into a capturing stream is recorded into a graph and runs nothing then.
      const bool in_capture = captured.count(l.correlation_id) != 0;
      const std::string api = in_capture ? l.api + " (during a stream capture)" : l.api;
      ProgramLaunchesWithoutWork& w = without[{part.pid, l.thread, api}];
      w.pid = part.pid;
      w.thread = l.thread;
      w.api = api;
      w.kernel_launch_api = l.kernel_launch_api && !in_capture;
      ++w.n;
      if (w.kernel_launch_api) {
        if (kernel_launches_without == 0) {
          first_without = "process " + std::to_string(part.pid) + ", thread " +
                          std::to_string(l.thread) + ": " + l.api;
        }
        ++kernel_launches_without;
      }
    }
  }
  if (kernel_launches_without > 0) {
    throw KernelRecordsMissing(
        std::to_string(kernel_launches_without) +
        " kernel launch call(s) returned but no kernel record came back for them (first: " +
        first_without +
        "): records were lost or taken, so a range could be missing work and none is reported. "
        "Another CUPTI client in the program (the PyTorch profiler, a tool that registers its own "
        "activity buffers) takes the records: run without it.");
  }
  for (auto& [key, w] : without) run.launches_without_work.push_back(w);

  if (merged.empty()) {
    std::string filters;
    if (options.ranges.name_regex)
      filters += " matching --range '" + *options.ranges.name_regex + "'";
    if (options.ranges.domain) {
      filters += std::string(filters.empty() ? "" : " and") + " in domain '" +
                 *options.ranges.domain + "'";
    }
    std::size_t kernels = 0;
    for (const ProgramOutsideKernels& o : run.outside)
      kernels += static_cast<std::size_t>(o.n_kernels);
    throw NoRangesFound(
        "the program recorded no NVTX range" + filters + " (" + std::to_string(range_events) +
        " range event(s) in all, " + std::to_string(kernels) +
        " kernel(s) outside every range): there is nothing to report by range. Mark the parts "
        "to time with NVTX ranges (torch.cuda.nvtx.range, nvtx.annotate, nvtx3::scoped_range, "
        "nvtxRangePush/Pop), or check --range and --domain.");
  }

  for (auto& [key, m] : merged) {
    const auto& [domain, name] = key;
    ProgramRange g;
    g.domain = domain;
    g.name = row_case_name(name);
    g.instances = m.instances.size();
    std::vector<Sample> samples;
    for (const RangeInstance& inst : m.instances) {
      if (inst.n_kernels == 0 || !inst.latency_ns) continue;
      samples.emplace_back(inst.device_busy_ns, *inst.latency_ns, inst.n_kernels,
                           inst.uncounted_copy_ns);
    }
    g.with_device_work = samples.size();
    if (g.name.size() > kMaxNameBytes) {
      throw ConfigError("range", "a range name of " + std::to_string(g.name.size()) +
                                     " bytes is longer than the " + std::to_string(kMaxNameBytes) +
                                     " a record's row name may hold: '" + g.name.substr(0, 60) +
                                     "...'. Select the ranges to report with --range.");
    }
    run.ranges.push_back(g);
    if (samples.empty()) continue;
    Result r;
    r.row.case_name = g.name;
    if (!domain.empty()) r.row.params["domain"] = domain;
    r.row.implementation = options.implementation;
    r.count_copies = options.ranges.count_copies;
    Measurement& meas = r.measurement;
    meas.origin = RowOrigin::program_range;  // no ledger: gpumeter launches nothing in a program
    meas.method = TimingMethod::kernel_records;
    meas.reason =
        "NVTX ranges of an unmodified program (gpumeter run): each sample is one instance of the "
        "range, its kernels' union; the L2 was not flushed and calls were not isolated";
    meas.samples = samples;
    // The run is the unit that varies, not the instance: instances of one run share its state
    // (memory placement, clocks), as a pass's samples share a pass's (docs/program-runs.md).
    meas.pass_sizes = {samples.size()};
    meas.measure_iterations = samples.size();
    summarize_result(r, {});  // a program's rows declare no workload and meet no ceiling
    meas.estimate_ns = static_cast<Nanos>(r.summary.device_busy.median_ns);
    out.results.push_back(std::move(r));
  }
  return out;
}

ProgramReading merge_program_runs(std::vector<ProgramReading> runs) {
  if (runs.empty()) throw std::invalid_argument("merge_program_runs: no run");
  if (runs.size() > kMaxProgramRuns) throw std::invalid_argument("merge_program_runs: too many");
  if (runs.size() == 1) return std::move(runs.front());
  const std::size_t n = runs.size();
  const auto key_of = [](const Result& r) { return std::make_pair(r.row.params, r.row.case_name); };
  // Which runs gave each row device work: a row missing from some runs has no pass there.
  std::map<std::pair<Params, std::string>, std::vector<std::size_t>> present;
  for (std::size_t k = 0; k < n; ++k) {
    for (const Result& r : runs[k].results) present[key_of(r)].push_back(k + 1);
  }
  for (const auto& [key, in] : present) {
    if (in.size() == n) continue;
    std::string list;
    for (const std::size_t k : in) list += (list.empty() ? "" : ", ") + std::to_string(k);
    const auto domain = key.first.find("domain");
    throw ProgramRunsDiffer(
        "the range '" + key.second + "'" +
        (domain != key.first.end() ? " (domain '" + domain->second + "')" : std::string()) +
        " launched device work in run(s) " + list + " of " + std::to_string(n) +
        " but not in the others: the runs are not repetitions of one program, and a row needs "
        "one pass per run. Select ranges every run has with --range, or make the runs alike.");
  }

  ProgramReading out = std::move(runs.front());
  out.program.runs = n;
  for (std::size_t k = 1; k < n; ++k) {
    ProgramReading& run = runs[k];
    for (Result& r : run.results) {
      const auto it = std::find_if(out.results.begin(), out.results.end(),
                                   [&](const Result& o) { return key_of(o) == key_of(r); });
      Measurement& m = it->measurement;
      m.samples.insert(m.samples.end(), r.measurement.samples.begin(), r.measurement.samples.end());
      m.pass_sizes.push_back(r.measurement.samples.size());
      m.measure_iterations += r.measurement.measure_iterations;
    }
    ProgramRun& p = run.program;
    for (ProgramProcess& q : p.processes) q.run = k + 1;
    for (ProgramOutsideKernels& o : p.outside) o.run = k + 1;
    for (ProgramLaunchesWithoutWork& l : p.launches_without_work) l.run = k + 1;
    ProgramRun& into = out.program;
    into.processes.insert(into.processes.end(), p.processes.begin(), p.processes.end());
    into.outside.insert(into.outside.end(), p.outside.begin(), p.outside.end());
    into.launches_without_work.insert(into.launches_without_work.end(),
                                      p.launches_without_work.begin(),
                                      p.launches_without_work.end());
    for (const ProgramRange& g : p.ranges) {
      const auto it = std::find_if(
          into.ranges.begin(), into.ranges.end(),
          [&](const ProgramRange& o) { return o.domain == g.domain && o.name == g.name; });
      if (it == into.ranges.end()) {
        into.ranges.push_back(g);  // a range without device work, first seen in this run
      } else {
        it->instances += g.instances;
        it->with_device_work += g.with_device_work;
      }
    }
  }
  std::sort(out.program.ranges.begin(), out.program.ranges.end(),
            [](const ProgramRange& a, const ProgramRange& b) {
              return std::tie(a.domain, a.name) < std::tie(b.domain, b.name);
            });
  for (Result& r : out.results) {
    summarize_result(r, {});
    r.measurement.estimate_ns = static_cast<Nanos>(r.summary.device_busy.median_ns);
  }
  return out;
}

}  // namespace gpumeter
