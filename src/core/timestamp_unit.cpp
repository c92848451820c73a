#include "timestamp_unit.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "gpumeter/format.hpp"

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

double probe_slope(const ClockProbe& shorter, const ClockProbe& longer) {
  const Nanos own = longer.own_ns - shorter.own_ns;
  if (own <= 0) return 0;
  return static_cast<double>(longer.reported - shorter.reported) / static_cast<double>(own);
}

UnitJudgement judge_phase_probes(const ClockProbe& first_short, const ClockProbe& first_long,
                                 const ClockProbe& last_long) {
  UnitJudgement j;
  for (const ClockProbe* p : {&first_short, &first_long, &last_long}) {
    if (p->own_ns <= 0 || p->reported <= 0) return j;  // a probe that did not run
  }
  j.slope = probe_slope(first_short, first_long);
  if (!(j.slope > 0)) return j;
  // The last probe, read with the first two's slope, must land where the long one did: the
  // same kernel, so the same fixed start-up cost in the same unit.
  const double expected = static_cast<double>(first_long.reported) +
                          j.slope * static_cast<double>(last_long.own_ns - first_long.own_ns);
  const double off = std::fabs(static_cast<double>(last_long.reported) - expected);
  if (off > kUnitTolerance * static_cast<double>(first_long.reported)) {
    j.finding = UnitFinding::changed_in_phase;
    return j;
  }
  j.finding = std::fabs(j.slope - 1.0) <= kUnitTolerance ? UnitFinding::nanoseconds
                                                         : UnitFinding::other_unit;
  return j;
}

std::optional<double> reliable_scale(const std::vector<ClockProbe>& shorts,
                                     const std::vector<ClockProbe>& longs, double phase_slope) {
  const std::size_t n = std::min(shorts.size(), longs.size());
  if (n < 2 || !(phase_slope > 0)) return std::nullopt;
  double lo = 0;
  double hi = 0;
  double sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double s = probe_slope(shorts[k], longs[k]);
    if (!(s > 0)) return std::nullopt;
    lo = k == 0 ? s : std::min(lo, s);
    hi = k == 0 ? s : std::max(hi, s);
    sum += s;
  }
  const double scale = sum / static_cast<double>(n);
  if (hi - lo > kScaleAgreement * scale) return std::nullopt;
  if (std::fabs(phase_slope - scale) > kUnitTolerance * scale) return std::nullopt;
  return scale;
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
  trace.timestamp_unit = TimestampUnit{scale, true};
}

std::string describe_probe(const ClockProbe& probe) {
  const double ratio = probe.own_ns > 0
                           ? static_cast<double>(probe.reported) / static_cast<double>(probe.own_ns)
                           : 0.0;
  return "a probe kernel that ran " + std::to_string(probe.own_ns) +
         " ns by the GPU's own clock lasted " + std::to_string(probe.reported) +
         " units in CUPTI's records (" + format_significant(ratio, 3) + " units per ns)";
}

}  // namespace detail
}  // namespace gpumeter
