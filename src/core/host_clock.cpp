#include "gpumeter/host_clock.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"

namespace gpumeter {
namespace {

// A spread beyond this is stated as beyond it: its figure says nothing more.
constexpr double kWidestSpreadStated = 1000;

// What a verdict across runs read against the yardsticks says of itself.
constexpr std::string_view kAgainstYardstickWords =
    "each row read against the yardstick timed beside it";

// Why rows of two runs are not read against yardsticks, or "" where they can be.
std::string why_no_yardstick(const PassSamples& baseline,
                             const std::optional<YardstickReading>& base_yardstick,
                             const PassSamples& candidate,
                             const std::optional<YardstickReading>& cand_yardstick) {
  if (!base_yardstick && !cand_yardstick) return "neither row has a yardstick";
  if (!base_yardstick) return "the base row has no yardstick";
  if (!cand_yardstick) return "the new row has no yardstick";
  if (base_yardstick->work != cand_yardstick->work) {
    return "the two rows' yardsticks are different work";
  }
  if (base_yardstick->pass_ns.size() != baseline.size() ||
      cand_yardstick->pass_ns.size() != candidate.size()) {
    return "a yardstick's passes are not the row's";
  }
  return "";
}

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
  v.against_yardstick = sides.across_runs && sides.against_yardstick;
  const bool faster = k <= b;
  // One division, so the floor is the same either way (no 1/1.5 round trip).
  const double factor = faster ? b / k : k / b;
  v.floor = !sides.across_runs        ? kResolutionRatio
            : sides.against_yardstick ? kAcrossRunsYardstickRatio
                                      : kAcrossRunsResolutionRatio;
  const bool over_floor = factor >= v.floor;
  // The passes' interval excludes no difference, on the medians' side.
  const bool interval_agrees = sides.interval && statable(*sides.interval) &&
                               (faster ? sides.interval->faster() : sides.interval->slower());
  // The means printed beside point the same way (fast 27.7 us against 21.9 us is never
  // "faster", whatever the medians say).
  const auto agree = [faster](double base_mean, double cand_mean) {
    if (!(base_mean > 0) || !(cand_mean > 0)) return true;  // not known: no direction check
    return faster ? cand_mean < base_mean : cand_mean > base_mean;
  };
  // Read against a yardstick, the means so read and the means as measured, which are printed.
  const bool means_agree = agree(sides.baseline_mean_ns, sides.candidate_mean_ns) &&
                           agree(sides.printed_baseline_mean_ns, sides.printed_candidate_mean_ns);
  // Two calls the clock reads at its floor differ, if at all, in the path into them.
  const bool both_overhead = sides.both_measure_call_overhead;
  if (over_floor && interval_agrees && means_agree && !both_overhead) {
    v.resolution = Resolution::directional_difference;
    v.wording = format_sig2(factor) + "x " + (faster ? "faster" : "slower");
    v.label = to_string(v.resolution);
    if (sides.against_yardstick) v.label += ", " + std::string(kAgainstYardstickWords);
    return v;
  }
  v.resolution = Resolution::no_measured_difference;
  v.wording = time_ratio_words(k / b);
  std::string why;
  if (!over_floor) {
    why = "under the " + format_sig2(v.floor) + "x floor of what the host clock claims";
    if (sides.against_yardstick) {
      why += " across two runs, " + std::string(kAgainstYardstickWords);
    } else if (sides.across_runs) {
      why += " across two runs, whose passes were not interleaved" +
             (sides.no_yardstick.empty() ? "" : " (" + sides.no_yardstick + ")");
    }
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

PassSamples read_against_yardstick(const PassSamples& passes,
                                   const std::vector<double>& yardstick_pass_ns, double scale_ns) {
  if (passes.size() != yardstick_pass_ns.size()) {
    throw std::invalid_argument("read_against_yardstick: a yardstick level per pass");
  }
  if (!(scale_ns > 0) || !std::isfinite(scale_ns)) {
    throw std::invalid_argument("read_against_yardstick: a scale that is not positive");
  }
  PassSamples out;
  out.reserve(passes.size());
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const double level = yardstick_pass_ns[i];
    if (!(level > 0) || !std::isfinite(level)) {
      throw std::invalid_argument("read_against_yardstick: a yardstick level that is not positive");
    }
    std::vector<double> pass;
    pass.reserve(passes[i].size());
    for (const double x : passes[i]) pass.push_back(x * (scale_ns / level));
    out.push_back(std::move(pass));
  }
  return out;
}

HostClockSides host_clock_sides_across_runs(
    const PassSamples& baseline, const std::optional<YardstickReading>& baseline_yardstick,
    const PassSamples& candidate, const std::optional<YardstickReading>& candidate_yardstick,
    Nanos tick_ns, std::optional<double> load_average) {
  const std::string why_not =
      why_no_yardstick(baseline, baseline_yardstick, candidate, candidate_yardstick);
  if (!why_not.empty()) {
    HostClockSides s = host_clock_sides(baseline, candidate, tick_ns, load_average);
    s.across_runs = true;
    s.no_yardstick = why_not;
    return s;
  }
  // Both sides on the scale of the baseline's yardstick: its times stay near what was measured,
  // and the timestamp step keeps its meaning.
  const double scale = quantile(baseline_yardstick->pass_ns, 0.5);
  const HostClockSides measured = host_clock_sides(baseline, candidate, tick_ns, load_average);
  HostClockSides s =
      host_clock_sides(read_against_yardstick(baseline, baseline_yardstick->pass_ns, scale),
                       read_against_yardstick(candidate, candidate_yardstick->pass_ns, scale),
                       tick_ns, load_average);
  s.across_runs = true;
  s.against_yardstick = true;
  s.printed_baseline_mean_ns = measured.baseline_mean_ns;
  s.printed_candidate_mean_ns = measured.candidate_mean_ns;
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
