#include "attribute.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace {

bool is_copy(ActivityKind kind) {
  return kind == ActivityKind::memcpy || kind == ActivityKind::memset;
}

struct Claimed {
  std::vector<Interval> counted;  // what device_busy and latency are made of
  std::vector<Interval> copies;   // copies and fills not counted (T7)
  int kernels = 0;
};

}  // namespace

Nanos union_length(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  Nanos total = 0;
  bool open = false;
  Interval run{0, 0};
  for (const Interval& iv : intervals) {
    if (open && iv.start_ns <= run.end_ns) {
      run.end_ns = std::max(run.end_ns, iv.end_ns);
      continue;
    }
    if (open) total += run.end_ns - run.start_ns;
    run = iv;
    open = true;
  }
  if (open) total += run.end_ns - run.start_ns;
  return total;
}

Nanos span_length(const std::vector<Interval>& intervals) {
  Nanos first = intervals.front().start_ns;
  Nanos last = intervals.front().end_ns;
  for (const Interval& iv : intervals) {
    first = std::min(first, iv.start_ns);
    last = std::max(last, iv.end_ns);
  }
  return last - first;
}

void check_hidden_work(const Trace& trace, std::size_t n_iterations) {
  if (!trace.kernel_launches || trace.device_shared) return;
  std::unordered_map<std::uint64_t, Nanos> returned;
  for (const KernelLaunch& l : *trace.kernel_launches) {
    if (l.returned_ns <= 0) continue;
    Nanos& r = returned[l.correlation_id];
    r = std::max(r, l.returned_ns);
  }
  if (returned.empty()) return;
  // Every recorded activity, the harness's too, merged into busy spans in time order.
  std::vector<Interval> busy;
  busy.reserve(trace.activities.size());
  for (const Activity& a : trace.activities) busy.push_back({a.start_ns, a.end_ns});
  std::sort(busy.begin(), busy.end(),
            [](const Interval& x, const Interval& y) { return x.start_ns < y.start_ns; });
  std::vector<Interval> spans;
  for (const Interval& iv : busy) {
    if (!spans.empty() && iv.start_ns <= spans.back().end_ns) {
      spans.back().end_ns = std::max(spans.back().end_ns, iv.end_ns);
    } else {
      spans.push_back(iv);
    }
  }
  // The longest stretch of [from, to] in no span.
  const auto longest_idle = [&](Nanos from, Nanos to) {
    auto it = std::upper_bound(spans.begin(), spans.end(), from,
                               [](Nanos t, const Interval& s) { return t < s.end_ns; });
    Nanos longest = 0;
    Nanos cursor = from;
    for (; it != spans.end() && it->start_ns < to; ++it) {
      longest = std::max(longest, it->start_ns - cursor);
      cursor = std::max(cursor, it->end_ns);
    }
    return std::max(longest, to - cursor);
  };
  for (const Activity& a : trace.activities) {
    if (a.kind != ActivityKind::kernel) continue;
    const auto id = trace.external_id_of.find(a.correlation_id);
    if (id == trace.external_id_of.end() || id->second >= n_iterations) continue;
    const auto launch = returned.find(a.correlation_id);
    if (launch == returned.end() || a.start_ns - launch->second <= kHiddenWorkNs) continue;
    const Nanos idle = longest_idle(launch->second, a.start_ns);
    if (idle <= kHiddenWorkNs) continue;
    throw UnaccountedWork(
        "iteration " + std::to_string(id->second) + ": kernel '" + a.name + "' started " +
        format_significant(static_cast<double>(a.start_ns - launch->second) / 1000.0, 3) +
        " us after its launch returned, and for " +
        format_significant(static_cast<double>(idle) / 1000.0, 3) +
        " us of that the device ran nothing gpumeter has a record of. The device was busy with "
        "work whose records were switched off (code in the call switching " +
        trace.names.tool +
        "'s records off around a launch) "
        "or with another process's work; it overlaps the timed window, so nothing is reported.");
  }
}

std::string switched_off_by(const CollectorNames& names) {
  return names.switched_off_by.empty() ? std::string() : " (" + names.switched_off_by + ")";
}

std::size_t canaries_seen(const Trace& trace) {
  if (trace.canaries_launched == 0) return 0;
  std::size_t seen = 0;
  for (const Activity& a : trace.activities) {
    if (a.kind != ActivityKind::kernel || a.name != trace.canary_name) continue;
    const auto found = trace.external_id_of.find(a.correlation_id);
    if (found != trace.external_id_of.end() && found->second == kPrepareId) ++seen;
  }
  return seen;
}

void check_collection(const Trace& trace, std::size_t n_iterations) {
  if (trace.canaries_launched > 0) {
    const std::size_t seen = canaries_seen(trace);
    if (seen < trace.canaries_launched) {
      throw CollectionStopped(
          "collection stopped while the phase ran: " + std::to_string(seen) + " of the " +
          std::to_string(trace.canaries_launched) +
          " canary kernels gpumeter launched around the iterations left a record, and none was "
          "reported lost. Code in the process switched " +
          trace.names.tool + "'s activity records off" + switched_off_by(trace.names) +
          " or took them, so what would be timed is not what ran; nothing is reported. Remove "
          "that code from the call.");
    }
  }
  if (!trace.kernel_launches) return;
  // Per iteration: launches through the runtime API, through the driver API, and kernels seen.
  struct Count {
    std::size_t runtime = 0;
    std::size_t driver = 0;
    std::size_t kernels = 0;
  };
  std::vector<Count> counts(n_iterations);
  const auto iteration_of = [&](std::uint64_t correlation) -> std::optional<std::size_t> {
    const auto found = trace.external_id_of.find(correlation);
    if (found == trace.external_id_of.end() || found->second >= n_iterations) return std::nullopt;
    return static_cast<std::size_t>(found->second);
  };
  for (const KernelLaunch& l : *trace.kernel_launches) {
    if (const auto i = iteration_of(l.correlation_id)) {
      ++(l.runtime_api ? counts[*i].runtime : counts[*i].driver);
    }
  }
  for (const Activity& a : trace.activities) {
    if (a.kind != ActivityKind::kernel) continue;
    if (const auto i = iteration_of(a.correlation_id)) ++counts[*i].kernels;
  }
  for (std::size_t i = 0; i < n_iterations; ++i) {
    const Count& c = counts[i];
    const std::size_t launches = std::max(c.runtime, c.driver);
    if (c.kernels >= launches) continue;
    throw CollectionStopped(
        "collection stopped while the phase ran: iteration " + std::to_string(i) + " made " +
        std::to_string(launches) + " kernel launches that succeeded, but only " +
        std::to_string(c.kernels) +
        " kernel records came back, and none was reported lost. Code in the call switched " +
        trace.names.tool +
        "'s kernel records off around a launch, so its time is not in the sample; nothing is "
        "reported. Remove that code from the call.");
  }
}

std::vector<Sample> attribute(const Trace& trace, std::size_t n_iterations,
                              const AttributionOptions& options, Ledger* ledger) {
  // Lost records first: every other failure could be their consequence (T6).
  if (trace.dropped_records.has_value() && *trace.dropped_records > 0) {
    throw RecordsLost(*trace.dropped_records, 1, trace.names.tool);
  }
  const bool loss_ruled_out = trace.dropped_records.has_value();
  // Then a collection that stopped: work it did not record would read as an empty iteration.
  check_collection(trace, n_iterations);
  check_hidden_work(trace, n_iterations);
  Ledger tally;
  tally.iterations = n_iterations;
  tally.canaries_launched = trace.canaries_launched;
  tally.canaries_seen = trace.canaries_launched;  // check_collection proved every one

  std::vector<Claimed> claimed(n_iterations);
  // B11: the harness's work by role, whose device time the ledger keeps.
  std::vector<Interval> inputs;
  std::vector<Interval> resets;
  std::vector<Interval> checks;
  std::size_t n_orphans = 0;
  std::string orphan_name;
  const Activity* wrong_device = nullptr;
  std::size_t wrong_iteration = 0;
  for (const Activity& a : trace.activities) {
    const auto found = trace.external_id_of.find(a.correlation_id);
    const std::optional<HarnessRole> role =
        found != trace.external_id_of.end() ? harness_role(found->second) : std::nullopt;
    if (role) {
      ++tally.harness_records;
      const Interval iv{a.start_ns, std::max(a.start_ns, a.end_ns)};
      if (*role == HarnessRole::inputs) {
        ++tally.inputs_records;
        inputs.push_back(iv);
      } else if (*role == HarnessRole::reset) {
        ++tally.reset_records;
        resets.push_back(iv);
      } else if (*role == HarnessRole::check) {
        ++tally.check_records;
        checks.push_back(iv);
      }
      continue;
    }
    if (found == trace.external_id_of.end() || found->second >= n_iterations) {
      ++tally.unaccounted_records;
      if (n_orphans++ == 0) orphan_name = a.name.empty() ? to_string(a.kind) : a.name;
      continue;
    }
    ++tally.iteration_records;
    if (a.end_ns < a.start_ns) {
      throw AttributionError(found->second,
                             "activity '" + a.name + "' ends before it starts (start " +
                                 std::to_string(a.start_ns) + " ns, end " +
                                 std::to_string(a.end_ns) +
                                 " ns): a corrupt record, so no number is reported.",
                             loss_ruled_out);
    }
    if (trace.measured_device && a.device != *trace.measured_device && !wrong_device) {
      wrong_device = &a;
      wrong_iteration = found->second;
    }
    Claimed& c = claimed[found->second];
    const Interval iv{a.start_ns, a.end_ns};
    if (is_copy(a.kind) && !options.count_copies) {
      c.copies.push_back(iv);
      continue;
    }
    c.counted.push_back(iv);
    if (a.kind == ActivityKind::kernel) ++c.kernels;
  }
  if (n_orphans > 0) throw OffThreadLaunch(n_orphans, orphan_name, loss_ruled_out);
  if (wrong_device != nullptr) {
    throw WrongDevice(
        wrong_iteration,
        wrong_device->name.empty() ? to_string(wrong_device->kind) : wrong_device->name,
        wrong_device->device, *trace.measured_device);
  }

  std::vector<Sample> samples;
  samples.reserve(n_iterations);
  for (std::size_t i = 0; i < n_iterations; ++i) {
    const Claimed& c = claimed[i];
    if (c.counted.empty()) {
      const std::string why =
          c.copies.empty()
              ? "no device work was attributed to the call: it did not run on the device "
                "(nothing launched, work done on the CPU, or launched on another device). "
                "Check that the call launches its work on the measured device."
              : "the call only copied or filled memory, and this case does not count copies. "
                "Set count_copies on the case if the copy is the work being measured.";
      throw AttributionError(i, why, loss_ruled_out);
    }
    Sample s;
    s.device_busy_ns = union_length(c.counted);
    s.latency_ns = span_length(c.counted);
    if (trace.counts_kernels) s.n_kernels = c.kernels;
    s.uncounted_copy_ns = union_length(c.copies);
    samples.push_back(s);
  }
  tally.inputs_busy_ns = union_length(std::move(inputs));
  tally.reset_busy_ns = union_length(std::move(resets));
  tally.check_busy_ns = union_length(std::move(checks));
  if (ledger != nullptr) *ledger += tally;
  return samples;
}

}  // namespace gpumeter
