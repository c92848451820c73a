#include "gpumeter/ranges.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attribute.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/pattern.hpp"

namespace gpumeter {
namespace {

// One range instance while it is being built.
struct Instance {
  std::string domain;
  std::string name;
  std::uint64_t thread = 0;
  bool process_wide = false;
  Nanos open_ns = 0;
  Nanos close_ns = 0;
  bool closed = false;
  bool selected = false;  // passes the domain and name filters
  std::vector<Interval> counted;
  std::vector<Interval> uncounted;  // copies and fills without count_copies
  int n_kernels = 0;
};

void check_records_of(const RangeTrace& trace) {
  // Lost records first: every other failure could be their consequence (T6). An unknown counter
  // fails too: unlike a measured call, a whole program's ranges have no other check that their
  // kernels all arrived.
  if (!trace.dropped_activity_records || *trace.dropped_activity_records > 0) {
    throw CollectorRecordsLost("CUPTI activity records", trace.dropped_activity_records);
  }
  if (!trace.dropped_host_events || *trace.dropped_host_events > 0) {
    throw CollectorRecordsLost("range and launch events", trace.dropped_host_events);
  }
}

void check_consistent(const RangeTrace& trace) {
  for (const Activity& a : trace.activities) {
    if (a.end_ns < a.start_ns) {
      throw CorruptTrace("activity '" + a.name + "' (correlation id " +
                         std::to_string(a.correlation_id) + ") ends before it starts (start " +
                         std::to_string(a.start_ns) + " ns, end " + std::to_string(a.end_ns) +
                         " ns): a corrupt record, so no range is reported.");
    }
  }
  // Each thread's events are recorded in the order it made them, so its clock readings cannot go
  // back: if they do, the order that pairs its pushes with its pops is not known.
  std::unordered_map<std::uint64_t, Nanos> last_of;
  for (const RangeEvent& e : trace.ranges) {
    const auto [it, first] = last_of.try_emplace(e.thread, e.host_ns);
    if (!first && e.host_ns < it->second) {
      throw CorruptTrace("thread " + std::to_string(e.thread) +
                         "'s range events go back in time (" + std::to_string(it->second) +
                         " ns, then " + std::to_string(e.host_ns) +
                         " ns): their order is not known, so no range is reported.");
    }
    it->second = e.host_ns;
  }
}

// CUPTI correlation id -> the launch's index. Two launches with one id cannot both be true.
std::unordered_map<std::uint64_t, std::size_t> launches_by_id(const RangeTrace& trace) {
  std::unordered_map<std::uint64_t, std::size_t> launch_of;
  for (std::size_t i = 0; i < trace.launches.size(); ++i) {
    const auto [it, inserted] = launch_of.try_emplace(trace.launches[i].correlation_id, i);
    if (!inserted) {
      throw CorruptTrace("two launches carry correlation id " +
                         std::to_string(trace.launches[i].correlation_id) + " ('" +
                         trace.launches[it->second].api + "' and '" + trace.launches[i].api +
                         "'): a corrupt trace, so no range is reported.");
    }
  }
  return launch_of;
}

// The core's bounded matcher (pattern.hpp): a long or deeply nested pattern is refused in one
// line, never a signal from a recursing engine.
std::optional<NamePattern> name_filter(const RangeOptions& options) {
  if (!options.name_regex) return std::nullopt;
  return NamePattern(*options.name_regex, "name_regex");
}

void check_adoptions(const RangeOptions& options) {
  for (const Adoption& a : options.adoptions) {
    if (a.end_ns < a.begin_ns) {
      throw ConfigError("adoptions", "the adoption of thread " + std::to_string(a.from_thread) +
                                         " by thread " + std::to_string(a.to_thread) +
                                         " ends before it begins (" + std::to_string(a.begin_ns) +
                                         " ns, " + std::to_string(a.end_ns) + " ns)");
    }
  }
}

// Pairs opens with closes: push with pop on each thread's stack of its domain, start with end by
// id across the process. Events are taken in host-time order, each thread's in the order it made
// them (a stable sort keeps it for equal readings).
std::vector<Instance> pair_ranges(const RangeTrace& trace) {
  std::vector<std::size_t> order(trace.ranges.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return trace.ranges[a].host_ns < trace.ranges[b].host_ns;
  });
  std::vector<Instance> instances;
  std::map<std::pair<std::uint64_t, std::string>, std::vector<std::size_t>> stacks;
  std::unordered_map<std::uint64_t, std::size_t> started;
  for (const std::size_t i : order) {
    const RangeEvent& e = trace.ranges[i];
    const bool process_wide = e.kind == RangeEventKind::start || e.kind == RangeEventKind::end;
    if (e.kind == RangeEventKind::push || e.kind == RangeEventKind::start) {
      if (process_wide && started.count(e.id) > 0) {
        throw CorruptTrace("range id " + std::to_string(e.id) + " was started twice ('" +
                           instances[started[e.id]].name + "', then '" + e.name +
                           "') without an end between: a corrupt trace, so no range is "
                           "reported.");
      }
      Instance inst;
      inst.domain = e.domain;
      inst.name = e.name;
      inst.thread = e.thread;
      inst.process_wide = process_wide;
      inst.open_ns = e.host_ns;
      instances.push_back(std::move(inst));
      if (process_wide) {
        started[e.id] = instances.size() - 1;
      } else {
        stacks[{e.thread, e.domain}].push_back(instances.size() - 1);
      }
      continue;
    }
    std::size_t closing = 0;
    if (process_wide) {
      const auto found = started.find(e.id);
      if (found == started.end()) throw RangeNotOpen(e.thread, e.domain, true, e.id, e.host_ns);
      closing = found->second;
      started.erase(found);
    } else {
      std::vector<std::size_t>& stack = stacks[{e.thread, e.domain}];
      if (stack.empty()) throw RangeNotOpen(e.thread, e.domain, false, 0, e.host_ns);
      closing = stack.back();
      stack.pop_back();
    }
    instances[closing].close_ns = e.host_ns;
    instances[closing].closed = true;
  }
  std::size_t n_open = 0;
  const Instance* first_open = nullptr;
  for (const Instance& inst : instances) {
    if (inst.closed) continue;
    if (n_open++ == 0) first_open = &inst;
  }
  if (first_open != nullptr) {
    throw RangeLeftOpen(first_open->name, first_open->domain, first_open->thread,
                        first_open->process_wide, n_open);
  }
  return instances;
}

// The selected instances each launch belongs to. A sweep over host time: at equal readings opens
// come before launches and launches before closes, so a range covers [open, close] with both ends
// included (a launch stamped with its range's open or close reading is inside it).
std::vector<std::vector<std::size_t>> members_of_launches(const RangeTrace& trace,
                                                          const std::vector<Instance>& instances,
                                                          const RangeOptions& options) {
  enum Phase { open = 0, launch = 1, close = 2 };
  struct Point {
    Nanos ns;
    Phase phase;
    std::size_t index;  // an instance's, or a launch's
  };
  std::vector<Point> points;
  points.reserve(2 * instances.size() + trace.launches.size());
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (!instances[i].selected) continue;
    points.push_back({instances[i].open_ns, open, i});
    points.push_back({instances[i].close_ns, close, i});
  }
  for (std::size_t i = 0; i < trace.launches.size(); ++i) {
    points.push_back({trace.launches[i].host_ns, launch, i});
  }
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.ns != b.ns ? a.ns < b.ns : a.phase < b.phase;
  });

  std::unordered_map<std::uint64_t, std::vector<const Adoption*>> adopted_by;
  for (const Adoption& a : options.adoptions) adopted_by[a.from_thread].push_back(&a);

  std::unordered_map<std::uint64_t, std::vector<std::size_t>> open_on;  // push/pop, by thread
  std::vector<std::size_t> open_everywhere;                             // start/end
  std::vector<std::vector<std::size_t>> members(trace.launches.size());
  const auto erase = [](std::vector<std::size_t>& v, std::size_t i) {
    v.erase(std::find(v.begin(), v.end(), i));
  };
  for (const Point& p : points) {
    if (p.phase != launch) {
      const Instance& inst = instances[p.index];
      std::vector<std::size_t>& set = inst.process_wide ? open_everywhere : open_on[inst.thread];
      if (p.phase == open) {
        set.push_back(p.index);
      } else {
        erase(set, p.index);
      }
      continue;
    }
    const LaunchEvent& l = trace.launches[p.index];
    std::vector<std::size_t>& m = members[p.index];
    m = open_everywhere;
    const auto own = open_on.find(l.thread);
    if (own != open_on.end()) m.insert(m.end(), own->second.begin(), own->second.end());
    const auto adoptions = adopted_by.find(l.thread);
    if (adoptions != adopted_by.end()) {
      for (const Adoption* a : adoptions->second) {
        if (l.host_ns < a->begin_ns || l.host_ns > a->end_ns) continue;
        const auto theirs = open_on.find(a->to_thread);
        if (theirs != open_on.end())
          m.insert(m.end(), theirs->second.begin(), theirs->second.end());
      }
      // A thread adopted twice at once, or by itself, must not count a kernel twice in a range.
      std::sort(m.begin(), m.end());
      m.erase(std::unique(m.begin(), m.end()), m.end());
    }
  }
  return members;
}

}  // namespace

const char* to_string(RangeEventKind kind) {
  switch (kind) {
    case RangeEventKind::push:
      return "push";
    case RangeEventKind::pop:
      return "pop";
    case RangeEventKind::start:
      return "start";
    case RangeEventKind::end:
      return "end";
  }
  return "unknown";
}

bool is_kernel_launch_api(std::string_view api) {
  // The runtime's and the driver's kernel launches (cudaLaunchKernel, cudaLaunchKernelExC,
  // cuLaunchKernelEx, cudaLaunchCooperativeKernel, ..., with their _ptsz variants) all carry
  // "Launch" then "Kernel"; a graph launch does not (a graph may hold copies only).
  const std::size_t launch = api.find("Launch");
  if (launch == std::string_view::npos) return false;
  return api.find("Kernel", launch) != std::string_view::npos;
}

bool is_copy_or_fill_api(std::string_view api) {
  // cudaMemcpyAsync, cudaMemsetAsync, cuMemcpyHtoDAsync_v2, cuMemsetD32Async, cudaMemcpy2D, ...
  return api.find("Memcpy") != std::string_view::npos ||
         api.find("Memset") != std::string_view::npos;
}

void check_collector_records(const RangeTrace& trace) {
  check_records_of(trace);
}

RangeReport attribute_ranges(const RangeTrace& trace, const RangeOptions& options) {
  check_records_of(trace);
  check_consistent(trace);
  const std::unordered_map<std::uint64_t, std::size_t> launch_of = launches_by_id(trace);
  const std::optional<NamePattern> regex = name_filter(options);
  check_adoptions(options);

  std::vector<Instance> instances = pair_ranges(trace);
  for (Instance& inst : instances) {
    inst.selected =
        (!options.domain || inst.domain == *options.domain) && (!regex || regex->search(inst.name));
  }
  const std::vector<std::vector<std::size_t>> members =
      members_of_launches(trace, instances, options);

  struct Outside {
    int n_kernels = 0;
    Nanos total_ns = 0;
    std::vector<Interval> intervals;
  };
  std::map<std::pair<std::uint64_t, std::string>, Outside> outside;
  std::vector<bool> has_kernel(trace.launches.size(), false);
  std::size_t n_unmatched = 0;
  const Activity* unmatched = nullptr;
  for (const Activity& a : trace.activities) {
    const auto found = launch_of.find(a.correlation_id);
    if (found == launch_of.end()) {
      if (n_unmatched++ == 0) unmatched = &a;
      continue;
    }
    // A fill or copy call's work is a fill or a copy, whatever record it came back as (a driver
    // may fill with a kernel of its own): the call says what the user asked the device for.
    const bool kernel =
        a.kind == ActivityKind::kernel && !is_copy_or_fill_api(trace.launches[found->second].api);
    if (a.kind == ActivityKind::kernel) has_kernel[found->second] = true;
    const Interval iv{a.start_ns, a.end_ns};
    const std::vector<std::size_t>& m = members[found->second];
    // T7: a copy or a fill is kept apart from the kernels: counted toward device_busy only with
    // count_copies, never toward the kernel count, and its time shown as uncounted otherwise.
    if (!kernel && !options.count_copies) {
      for (const std::size_t i : m) instances[i].uncounted.push_back(iv);
      continue;
    }
    for (const std::size_t i : m) {
      instances[i].counted.push_back(iv);
      if (kernel) ++instances[i].n_kernels;
    }
    if (m.empty()) {
      Outside& o = outside[{trace.launches[found->second].thread,
                            a.name.empty() ? std::string(to_string(a.kind)) : a.name}];
      if (kernel) ++o.n_kernels;
      o.total_ns += a.end_ns - a.start_ns;
      o.intervals.push_back(iv);
    }
  }
  if (unmatched != nullptr) {
    throw LaunchNotFound(unmatched->correlation_id,
                         unmatched->name.empty() ? to_string(unmatched->kind) : unmatched->name,
                         n_unmatched);
  }

  RangeReport report;
  std::map<std::pair<std::string, std::string>, RangeStats> by_name;
  for (const Instance& inst : instances) {
    if (!inst.selected) continue;
    RangeStats& stats = by_name[{inst.domain, inst.name}];
    stats.domain = inst.domain;
    stats.name = inst.name;
    RangeInstance out;
    out.thread = inst.thread;
    out.process_wide = inst.process_wide;
    out.open_ns = inst.open_ns;
    out.close_ns = inst.close_ns;
    out.n_kernels = inst.n_kernels;
    if (!inst.counted.empty()) {
      out.device_busy_ns = union_length(inst.counted);
      out.latency_ns = span_length(inst.counted);
    }
    if (!inst.uncounted.empty()) out.uncounted_copy_ns = union_length(inst.uncounted);
    stats.instances.push_back(out);
  }
  for (auto& [key, stats] : by_name) {
    std::vector<double> busy;
    std::vector<double> latency;
    for (const RangeInstance& inst : stats.instances) {
      if (!inst.latency_ns) continue;
      busy.push_back(static_cast<double>(inst.device_busy_ns));
      latency.push_back(static_cast<double>(*inst.latency_ns));
    }
    stats.n_with_kernels = busy.size();
    if (!busy.empty()) {
      stats.device_busy = spread_of(busy);
      stats.latency = spread_of(latency);
    }
    report.ranges.push_back(std::move(stats));
  }
  for (auto& [key, o] : outside) {
    OutsideKernels k;
    k.thread = key.first;
    k.name = key.second;
    k.n_kernels = o.n_kernels;
    k.total_ns = o.total_ns;
    k.device_busy_ns = union_length(std::move(o.intervals));
    report.outside.push_back(std::move(k));
  }
  for (std::size_t i = 0; i < trace.launches.size(); ++i) {
    if (has_kernel[i]) continue;
    const LaunchEvent& l = trace.launches[i];
    report.launches_without_kernel.push_back(
        {l.thread, l.correlation_id, l.host_ns, l.api, is_kernel_launch_api(l.api)});
  }
  return report;
}

}  // namespace gpumeter
