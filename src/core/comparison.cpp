#include "gpumeter/comparison.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "gpumeter/clock_state.hpp"
#include "gpumeter/format.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {
namespace {

// Records of schema version 2 and before marked a null test as a case of two rows (1x and 4x
// the work) with this param; those rows are not two implementations and were never compared.
constexpr const char* kLegacyNullTestParam = "null_test_scale";

// Each pass's device_busy samples, split by the result's pass sizes. Empty when the sizes do
// not add up to the samples (a record reader refuses such a result before this is reached).
PassSamples passes_of(const Measurement& m) {
  PassSamples passes;
  std::size_t at = 0;
  for (const std::size_t n : m.pass_sizes) {
    if (at + n > m.samples.size()) return {};
    std::vector<double> pass;
    pass.reserve(n);
    for (std::size_t i = at; i < at + n; ++i) {
      pass.push_back(static_cast<double>(m.samples[i].device_busy_ns));
    }
    passes.push_back(std::move(pass));
    at += n;
  }
  if (at != m.samples.size()) return {};
  return passes;
}

std::string statistic_name(const Result& r) {
  return std::string(to_string(statistic_of(r.measurement.method)));
}

// The interval rule for two results, or why it cannot be applied.
std::optional<RelativeDifference> difference_of(const Result& base, const Result& cand,
                                                std::string& why_not) {
  const PassSamples a = passes_of(base.measurement);
  const PassSamples b = passes_of(cand.measurement);
  if (a.size() < 2 || b.size() < 2) {
    why_not =
        "each side needs at least two passes (an A B B A comparison in one run); a lone "
        "measurement, or a record without pass boundaries (schema version 1), gives no "
        "pass-to-pass spread to judge a difference by";
    return std::nullopt;
  }
  const Nanos tick =
      std::max(base.measurement.timestamp_tick_ns, cand.measurement.timestamp_tick_ns);
  try {
    return relative_difference(a, b, tick);
  } catch (const std::invalid_argument&) {
    why_not = "a pass whose level is not a positive time";
    return std::nullopt;
  }
}

}  // namespace

Comparison compare_rows(const Result& base, const Result& cand) {
  Comparison c;
  c.baseline = base.row;
  c.candidate = cand.row;
  c.statistic = statistic_of(base.measurement.method);
  c.rule = rule_for(c.statistic);
  c.baseline_clock = base.summary.clock;
  c.candidate_clock = cand.summary.clock;
  // P6: a row whose time may not be its work's is not set against another.
  for (const Result* r : {&base, &cand}) {
    if (const std::optional<NullTestOutcome> n = null_test_of(*r); n && n->failed()) {
      c.refusal = r->row.implementation + "'s null test failed (" + describe(*n) +
                  "), so its time may not be its work's";
      return c;
    }
  }
  if (statistic_of(base.measurement.method) != statistic_of(cand.measurement.method)) {
    c.refusal = base.row.implementation + " is " + statistic_name(base) + " and " +
                cand.row.implementation + " is " + statistic_name(cand) +
                "; two different statistics are never compared";
    return c;
  }
  std::string why_not;
  c.difference = difference_of(base, cand, why_not);
  if (c.rule == ComparisonRule::relative_difference) {
    if (!c.difference) c.refusal = why_not;
    return c;
  }
  // Wall clock: the 1.5x rule on the medians; the interval, where there is one, is the finer
  // statement P5 allows under it.
  const double b = base.summary.device_busy.median_ns;
  const double k = cand.summary.device_busy.median_ns;
  if (!(b > 0) || !(k > 0)) {
    c.refusal = "a median of zero";
    c.difference.reset();
    return c;
  }
  c.ratio = compare_times(b, k);
  return c;
}

namespace {

std::string percent(double fraction) {
  return format_sig2(100.0 * fraction) + "%";
}

// How many times longer (or shorter) the candidate's time is.
double factor_of(double estimate) {
  return estimate >= 0 ? 1.0 + estimate : 1.0 / (1.0 + estimate);
}

// A change in time in words: "2.8% slower", "20% faster" (the share of time saved), and from
// the 1.5x resolution on, the factor: "2.1x slower".
bool as_factor(double estimate) {
  return factor_of(estimate) >= kResolutionRatio;
}

std::string amount(double estimate, bool factor, int digits) {
  return factor ? format_significant(factor_of(estimate), digits) + "x"
                : format_significant(100.0 * std::fabs(estimate), digits) + "%";
}

std::string interval_level(const RelativeDifference& d) {
  return format_significant(100 * d.confidence, 2) + "% interval ";
}

}  // namespace

DifferenceWords difference_words(const RelativeDifference& d) {
  if (!d.found()) {
    const PercentText t = percent_text(d);
    return {"estimate " + t.estimate, interval_level(d) + t.low + " to " + t.high};
  }
  const bool factor = as_factor(d.estimate);
  const double near = d.slower() ? d.low : d.high;  // the end closer to no difference
  const double far = d.slower() ? d.high : d.low;
  const auto shown = [&](double v) { return factor ? factor_of(v) : 100.0 * std::fabs(v); };
  const int digits = interval_digits(shown(d.estimate), shown(near), shown(far));
  return {amount(d.estimate, factor, digits) + (d.slower() ? " slower" : " faster"),
          interval_level(d) + amount(near, factor, digits) + " to " + amount(far, factor, digits)};
}

PercentText percent_text(const RelativeDifference& d) {
  const int digits = interval_digits(100 * d.estimate, 100 * d.low, 100 * d.high);
  // A sign only where there is a direction: an exact zero reads "0%", not "+0%".
  const auto text = [&](double fraction) {
    return (fraction > 0 ? "+" : "") + format_significant(100 * fraction, digits) + "%";
  };
  return {text(d.estimate), text(d.low), text(d.high)};
}

std::string to_string(ComparisonRule rule) {
  return rule == ComparisonRule::relative_difference ? "relative_difference" : "resolution_1.5x";
}

std::optional<ComparisonRule> parse_comparison_rule(const std::string& text) {
  for (const auto rule : {ComparisonRule::relative_difference, ComparisonRule::resolution}) {
    if (to_string(rule) == text) return rule;
  }
  return std::nullopt;
}

ComparisonRule rule_for(Statistic statistic) {
  // The evaluation protocol made the 1.5x resolution for whole calls timed by a host clock on a
  // shared machine; device time is judged by its own run's noise instead (B5).
  return statistic == Statistic::synchronized_wall_clock ? ComparisonRule::resolution
                                                         : ComparisonRule::relative_difference;
}

std::vector<Comparison> compare_results(const std::vector<Result>& results) {
  std::vector<Comparison> out;
  // Groups in order of first appearance; the first row of a group is its baseline.
  std::vector<std::pair<std::string, Params>> order;
  std::map<std::pair<std::string, Params>, std::vector<const Result*>> groups;
  for (const Result& r : results) {
    auto key = std::make_pair(r.row.case_name, r.row.params);
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(&r);
  }
  for (const auto& key : order) {
    const auto& rows = groups[key];
    if (rows.size() < 2 || key.second.count(kLegacyNullTestParam) != 0) continue;
    for (std::size_t i = 1; i < rows.size(); ++i) out.push_back(compare_rows(*rows[0], *rows[i]));
  }
  return out;
}

std::optional<NullTestOutcome> null_test_of(const Result& result) {
  const std::optional<NullTestSamples>& samples = result.measurement.null_test;
  if (!samples) return std::nullopt;
  NullTestOutcome n;
  n.row = result.row;
  n.scale = samples->scale;
  const double base = result.summary.device_busy.median_ns;
  if (samples->scaled_ns.empty()) {
    n.refusal = "no samples of the scaled work";
    return n;
  }
  std::vector<double> scaled(samples->scaled_ns.begin(), samples->scaled_ns.end());
  const double scaled_median = quantile(scaled, 0.5);
  if (!(base > 0) || !(scaled_median > 0) || samples->scale <= 0) {
    n.refusal = "a median of zero, or a scale that is not positive";
    return n;
  }
  n.verdict = evaluate_null_test(base, scaled_median, samples->scale);
  return n;
}

std::vector<NullTestOutcome> null_tests(const std::vector<Result>& results) {
  std::vector<NullTestOutcome> out;
  for (const Result& r : results) {
    if (std::optional<NullTestOutcome> n = null_test_of(r)) out.push_back(std::move(*n));
  }
  return out;
}

namespace {

std::string describe_difference(const Comparison& c) {
  const std::string& a = c.baseline.implementation;
  const std::string& b = c.candidate.implementation;
  const std::string statistic = std::string(to_string(c.statistic));
  if (c.rule == ComparisonRule::resolution) {
    if (c.ratio->resolution == Resolution::directional_difference) {
      return b + " is " + c.ratio->wording + " than " + a + " (" + c.ratio->label + "; " +
             statistic + ", rule: 1.5x resolution)";
    }
    // Under 1.5x no direction was measured: the sentence claims none ("b is 1.0x slower than
    // a" read as a finding). The passes may still support one (P5).
    std::string s = c.ratio->label + " between " + b + " and " + a + " (" + b + " took " +
                    c.ratio->wording + " of " + a + ", by their medians";
    if (c.difference && c.difference->found()) {
      const DifferenceWords w = difference_words(*c.difference);
      s += "; the passes support a finer statement: " + w.change + ", " + w.interval;
    } else {
      s += "; the samples support nothing finer";
    }
    return s + "; " + statistic + ", rule: 1.5x resolution)";
  }
  const RelativeDifference& d = *c.difference;
  const DifferenceWords w = difference_words(d);
  if (d.found())
    return b + " is " + w.change + " than " + a + " (" + w.interval + "; " + statistic + ")";
  return "no difference detected between " + b + " and " + a + " (a difference larger than " +
         percent(d.smallest_detectable) + " would have been seen; " + w.change + ", " + w.interval +
         "; " + statistic + ")";
}

}  // namespace

std::string describe(const Comparison& c) {
  const std::string& a = c.baseline.implementation;
  const std::string& b = c.candidate.implementation;
  if (!c.compared()) return b + " and " + a + " not compared: " + c.refusal;
  const std::string clocks = clock_difference_words(c, a, b);
  return describe_difference(c) +
         (clocks.empty() ? "" : "; " + clocks + ", so part of the difference may be the clock's");
}

std::string clock_difference_words(const Comparison& c, const std::string& baseline_name,
                                   const std::string& candidate_name) {
  if (!c.baseline_clock || !c.candidate_clock) return {};
  const ClockSummary& a = *c.baseline_clock;
  const ClockSummary& b = *c.candidate_clock;
  std::string s;
  if (clocks_differ(a.median_mhz, b.median_mhz)) {
    s = "the two ran at different SM clocks (median " + format_shortest(b.median_mhz) +
        " MHz against " + format_shortest(a.median_mhz) + " MHz)";
  }
  if (a.flagged > 0 || b.flagged > 0) {
    s += (s.empty() ? "" : "; ") + std::string("clock-flagged samples: ") + candidate_name + " " +
         std::to_string(b.flagged) + " of " + std::to_string(b.samples) + ", " + baseline_name +
         " " + std::to_string(a.flagged) + " of " + std::to_string(a.samples);
  }
  return s;
}

std::string describe(const NullTestOutcome& n) {
  if (!n.verdict) return "null test FAILED: not evaluated: " + n.refusal;
  return std::to_string(n.scale) + "x the work took " + format_sig2(n.verdict->observed_ratio) +
         "x the time: " +
         (n.verdict->pass ? "pass" : "FAIL (the harness may not be timing the work)");
}

}  // namespace gpumeter
