#include "timestamp_unit.hpp"

#include <algorithm>
#include <cmath>

#include "gpumeter/detail/format.hpp"

namespace gpumeter {

void TimestampCheck::add(const TimestampUnit& phase) {
  ++phases;
  if (!phase.converted) return;
  min_scale = converted == 0 ? phase.scale : std::min(min_scale, phase.scale);
  max_scale = converted == 0 ? phase.scale : std::max(max_scale, phase.scale);
  ++converted;
}

void TimestampCheck::add(const TimestampCheck& other) {
  if (other.converted > 0) {
    min_scale = converted == 0 ? other.min_scale : std::min(min_scale, other.min_scale);
    max_scale = converted == 0 ? other.max_scale : std::max(max_scale, other.max_scale);
  }
  phases += other.phases;
  converted += other.converted;
}

std::optional<TimestampCheck> combine(const std::optional<TimestampCheck>& a,
                                      const std::optional<TimestampCheck>& b) {
  if (!a) return b;
  if (!b) return a;
  TimestampCheck out = *a;
  out.add(*b);
  return out;
}

namespace detail {

UnitJudgement judge_phase_probes(const ClockProbe& first, const ClockProbe& last) {
  UnitJudgement j;
  for (const ClockProbe* p : {&first, &last}) {
    if (p->own_ns() <= 0 || p->reported() <= 0) return j;  // a probe that did not run
  }
  const Nanos own_span = (last.own_start - first.own_start) + (last.own_end - first.own_end);
  // Both the starts and the ends at least kMinProbeSpanNs apart (a little less: a span is read
  // from the end of the first probe's clock readings).
  if (own_span < kMinProbeSpanNs) return j;
  const Nanos reported_span =
      (last.reported_start - first.reported_start) + (last.reported_end - first.reported_end);
  j.slope = static_cast<double>(reported_span) / static_cast<double>(own_span);
  if (!(j.slope > 0)) {  // the records ran backwards between probes that both ran forwards
    j.finding = UnitFinding::changed_in_phase;
    return j;
  }
  for (const ClockProbe* p : {&first, &last}) {
    const double off =
        std::fabs(static_cast<double>(p->reported()) / j.slope - static_cast<double>(p->own_ns()));
    if (off > static_cast<double>(kProbeStartupAllowanceNs)) {
      j.finding = UnitFinding::changed_in_phase;
      return j;
    }
  }
  j.finding = std::fabs(j.slope - 1.0) <= kUnitTolerance ? UnitFinding::nanoseconds
                                                         : UnitFinding::other_unit;
  return j;
}

void convert_timestamps(Trace& trace, double scale) {
  if (trace.activities.empty()) {
    trace.timestamp_unit = TimestampUnit{scale, true};
    return;
  }
  Nanos origin = trace.activities.front().start_ns;
  for (const Activity& a : trace.activities) origin = std::min(origin, a.start_ns);
  const auto convert = [&](Nanos t) {
    return origin + static_cast<Nanos>(std::llround(static_cast<double>(t - origin) / scale));
  };
  for (Activity& a : trace.activities) {
    a.start_ns = convert(a.start_ns);
    a.end_ns = convert(a.end_ns);
  }
  if (trace.kernel_launches) {
    for (KernelLaunch& l : *trace.kernel_launches) {
      if (l.returned_ns > 0) l.returned_ns = convert(l.returned_ns);
    }
  }
  trace.timestamp_unit = TimestampUnit{scale, true};
}

std::string describe_probe(const ClockProbe& probe) {
  const double ratio = probe.own_ns() > 0 ? static_cast<double>(probe.reported()) /
                                                static_cast<double>(probe.own_ns())
                                          : 0.0;
  return "a probe kernel that ran " + std::to_string(probe.own_ns()) +
         " ns by the GPU's own clock lasted " + std::to_string(probe.reported()) +
         " units in CUPTI's records (" + format_significant(ratio, 3) + " units per ns)";
}

}  // namespace detail
}  // namespace gpumeter
