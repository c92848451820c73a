#include "gpumeter/detail/host_clock.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"

namespace gpumeter {
namespace {

// A spread beyond this is stated as beyond it: its figure says nothing more.
constexpr double kWidestSpreadStated = 1000;

}  // namespace

bool measures_call_overhead(Statistic statistic, double median_ns) {
  return statistic == Statistic::synchronized_wall_clock && median_ns <= kHostCallOverheadFloorNs;
}

std::string call_overhead_words(double median_ns) {
  return "measures the call's overhead, not work (median " +
         format_significant(median_ns / 1000.0, 2) + " us, at or under the host clock's " +
         format_sig2(kHostCallOverheadFloorNs / 1000.0) + " us floor)";
}

bool statable(const RelativeDifference& d) {
  const auto ratio = [](double v) { return std::isfinite(v) && v > -1; };
  return ratio(d.estimate) && ratio(d.low) && ratio(d.high) && std::isfinite(d.smallest_detectable);
}

std::optional<double> pass_spread(const PassSamples& baseline, const PassSamples& candidate,
                                  const IntervalRules& rules) {
  std::optional<double> widest;
  for (const PassSamples* side : {&baseline, &candidate}) {
    if (side->size() < 2) continue;
    double lo = 0;
    double hi = 0;
    bool first = true;
    for (const std::vector<double>& pass : *side) {
      if (pass.empty()) return std::nullopt;
      const double level = pass_level(pass, rules);
      if (!(level > 0)) return std::nullopt;
      lo = first ? level : std::min(lo, level);
      hi = first ? level : std::max(hi, level);
      first = false;
    }
    const double spread = hi / lo - 1.0;
    if (!widest || spread > *widest) widest = spread;
  }
  return widest;
}

std::string spread_words(std::optional<double> spread, std::optional<double> load_average) {
  // Under 100% as a percent; from there as highest over lowest, which reads at once ("4.8x").
  std::string s;
  if (!spread) {
    s = "one pass a side: no spread to judge a difference by";
  } else if (*spread < 1) {
    s = "passes spread " + format_sig2(100.0 * *spread) + "%";
  } else if (std::isfinite(*spread) && *spread + 1 < kWidestSpreadStated) {
    s = "passes spread " + format_sig2(*spread + 1) + "x";
  } else {
    s = "passes over " + format_sig2(kWidestSpreadStated) + "x apart";
  }
  if (load_average) s += "; load average " + format_sig2(*load_average);
  return s;
}

RatioVerdict host_clock_verdict(const HostClockSides& sides) {
  const double b = sides.baseline_median_ns;
  const double k = sides.candidate_median_ns;
  if (!(b > 0) || !(k > 0) || !std::isfinite(b) || !std::isfinite(k)) {
    throw std::invalid_argument("host_clock_verdict: medians must be positive");
  }
  RatioVerdict v;
  v.speedup = b / k;
  v.spread = sides.spread;
  v.load_average = sides.load_average;
  v.by_passes = true;
  const bool faster = k <= b;
  // One division, so the floor is the same either way (no 1/1.5 round trip).
  const double factor = faster ? b / k : k / b;
  v.floor = sides.across_runs ? kAcrossRunsResolutionRatio : kResolutionRatio;
  const bool over_floor = factor >= v.floor;
  // The passes' interval excludes no difference, on the medians' side.
  const bool interval_agrees = sides.interval && statable(*sides.interval) &&
                               (faster ? sides.interval->faster() : sides.interval->slower());
  // The means printed beside point the same way (fast 27.7 us against 21.9 us is never
  // "faster", whatever the medians say).
  const bool means_known = sides.baseline_mean_ns > 0 && sides.candidate_mean_ns > 0;
  const bool means_agree =
      !means_known || (faster ? sides.candidate_mean_ns < sides.baseline_mean_ns
                              : sides.candidate_mean_ns > sides.baseline_mean_ns);
  // Two calls the clock reads at its floor differ, if at all, in the path into them.
  const bool both_overhead = sides.both_measure_call_overhead;
  if (over_floor && interval_agrees && means_agree && !both_overhead) {
    v.resolution = Resolution::directional_difference;
    v.wording = format_sig2(factor) + "x " + (faster ? "faster" : "slower");
    v.label = to_string(v.resolution);
    return v;
  }
  v.resolution = Resolution::no_measured_difference;
  v.wording = time_ratio_words(k / b);
  std::string why;
  if (!over_floor) {
    why = "under the " + format_sig2(v.floor) + "x floor of what the host clock claims" +
          (sides.across_runs ? " across two runs, whose passes were not interleaved" : "");
  } else if (both_overhead) {
    why = "both calls read at or under the host clock's " +
          format_sig2(kHostCallOverheadFloorNs / 1000.0) +
          " us floor: they measure the call's overhead, not work";
  } else if (!interval_agrees) {
    why = sides.interval && statable(*sides.interval)
              ? "the passes' interval includes no difference"
              : "the passes bound no interval";
  } else {
    why = "the means per call point the other way";
  }
  v.label = "no difference this machine can resolve now (" + why + "; " +
            spread_words(sides.spread, sides.load_average) + ")";
  return v;
}

HostClockSides host_clock_sides(const PassSamples& baseline, const PassSamples& candidate,
                                Nanos tick_ns, std::optional<double> load_average) {
  HostClockSides s;
  s.load_average = load_average;
  const auto all_of = [](const PassSamples& side) {
    std::vector<double> all;
    for (const std::vector<double>& pass : side) all.insert(all.end(), pass.begin(), pass.end());
    if (all.empty()) throw std::invalid_argument("host_clock_sides: a side with no samples");
    for (const double x : all) {
      if (!(x > 0) || !std::isfinite(x)) {
        throw std::invalid_argument("host_clock_sides: a time that is not positive");
      }
    }
    return all;
  };
  const std::vector<double> a = all_of(baseline);
  const std::vector<double> b = all_of(candidate);
  s.baseline_median_ns = quantile(a, 0.5);
  s.candidate_median_ns = quantile(b, 0.5);
  double ta = 0;
  double tb = 0;
  for (const double x : a) ta += x;
  for (const double x : b) tb += x;
  s.baseline_mean_ns = ta / static_cast<double>(a.size());
  s.candidate_mean_ns = tb / static_cast<double>(b.size());
  s.spread = pass_spread(baseline, candidate);
  if (baseline.size() >= 2 && candidate.size() >= 2) {
    const RelativeDifference d = relative_difference(
        baseline, candidate, std::max<Nanos>(1, tick_ns), kHostClockIntervalRules);
    if (statable(d)) s.interval = d;
  }
  return s;
}

RatioVerdict compare_host_passes(const PassSamples& baseline, const PassSamples& candidate,
                                 Nanos tick_ns, std::optional<double> load_average) {
  return host_clock_verdict(host_clock_sides(baseline, candidate, tick_ns, load_average));
}

RatioVerdict compare_host_readings(const std::vector<double>& baseline,
                                   const std::vector<double>& candidate) {
  const auto passes = [](const std::vector<double>& readings) {
    PassSamples out;
    for (const double x : readings) out.push_back({x});
    return out;
  };
  return compare_host_passes(passes(baseline), passes(candidate), 1);
}

}  // namespace gpumeter
