#include "gpumeter/detail/comparison.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/ledger.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_clock.hpp"
#include "gpumeter/record.hpp"
#include "passes.hpp"

namespace gpumeter {
namespace {

// Records of schema version 2 and before marked a null test as a case of two rows (1x and 4x
// the work) with this param; those rows are not two implementations and were never compared.
constexpr const char* kLegacyNullTestParam = "null_test_scale";

std::string statistic_name(const Result& r) {
  return std::string(to_string(statistic_of(r.measurement.method)));
}

// The interval rule for two results, or why it cannot be applied.
std::optional<RelativeDifference> difference_of(const Result& base, const Result& cand,
                                                int schema_version, std::string& why_not) {
  const PassSamples a = passes_of(base.measurement);
  const PassSamples b = passes_of(cand.measurement);
  if (a.size() < 2 || b.size() < 2) {
    why_not =
        "each side needs at least two passes (an A B B A comparison in one run, or a program "
        "run twice or more: gpumeter run --repeat 3); a lone measurement, one run of a program, "
        "or a record without pass boundaries (schema version 1), gives no pass-to-pass spread "
        "to judge a difference by";
    return std::nullopt;
  }
  const Nanos tick =
      std::max(base.measurement.timestamp_tick_ns, cand.measurement.timestamp_tick_ns);
  IntervalRules rules = interval_rules_of(schema_version);
  // The host clock from schema version 11: each pass's median (difference.hpp).
  rules.pass_median = schema_version >= kHostClockRulesSince &&
                      statistic_of(base.measurement.method) == Statistic::synchronized_wall_clock;
  try {
    RelativeDifference d = relative_difference(a, b, tick, rules);
    // Passes too far apart for any bound a number can state are unresolved: no claim, the
    // spread said, and the record still written (a record never held one before, so every
    // version reads the same).
    if (!statable(d)) {
      const std::optional<double> spread = pass_spread(a, b, rules);
      why_not = "unresolved: the passes of " + base.row.implementation + " and " +
                cand.row.implementation + " bound no interval (" + spread_words(spread, {}) +
                "); nothing is claimed";
      return std::nullopt;
    }
    return d;
  } catch (const std::invalid_argument&) {
    why_not = "a pass whose level is not a positive time";
    return std::nullopt;
  }
}

std::optional<double> load_average_of(const Result& base, const Result& cand) {
  const std::optional<double>& a = base.measurement.load_average;
  const std::optional<double>& b = cand.measurement.load_average;
  if (a && b) return std::max(*a, *b);
  return a ? a : b;
}

}  // namespace

namespace {

// B11, T7: copies a case does not count cannot hide work in a comparison. A side whose uncounted
// copies (memcpy, memset) exceed the other's by more than the comparison could resolve may have
// moved its work into a copy (an answer copied in from the device or the host): the two device
// times are not of the same work. The resolution: the smallest difference the comparison would
// have seen, in time, and never less than the clock's tick. Returns why, or "".
std::string copies_differ(const Result& base, const Result& cand,
                          const std::optional<RelativeDifference>& difference) {
  if (base.count_copies || cand.count_copies) return "";
  const double b = base.summary.median_uncounted_copy_ns;
  const double k = cand.summary.median_uncounted_copy_ns;
  const double tick = static_cast<double>(
      std::max(base.measurement.timestamp_tick_ns, cand.measurement.timestamp_tick_ns));
  double resolution = tick;
  if (difference && base.summary.device_busy.median_ns > 0) {
    resolution =
        std::max(resolution, difference->smallest_detectable * base.summary.device_busy.median_ns);
  }
  if (!(std::abs(k - b) > resolution)) return "";
  const auto us = [](double ns) { return format_significant(ns / 1000.0, 3) + " us"; };
  return "their uncounted copies differ: " + cand.row.implementation + " copies " + us(k) +
         " per call (median) and " + base.row.implementation + " " + us(b) +
         ", more than the comparison resolves (" + us(resolution) +
         "). device_busy leaves copies out, so the two times may not be of the same work (an "
         "answer copied in would count nothing). Set "
         "count_copies on the case to time the copies too";
}

double mean_of(const Result& r) {
  const std::vector<Sample>& samples = r.measurement.samples;
  if (samples.empty()) return 0;
  double total = 0;
  for (const Sample& s : samples) total += static_cast<double>(s.device_busy_ns);
  return total / static_cast<double>(samples.size());
}

std::optional<bool> fresh_inputs_of(const Result& r) {
  const Ledger& l = r.measurement.ledger;
  if (l.iterations == 0) return std::nullopt;  // no ledger: a record from before them
  return l.fresh_inputs == l.iterations;
}

// The fewest of a row's calls that hold half of its device time, the share of its time those
// calls hold, and how many of its passes they fall in.
struct Concentration {
  std::size_t calls = 0;
  std::size_t holding_half = 0;
  double share_held = 0;
  std::size_t passes = 0;
};

Concentration concentration_of(const Result& r) {
  const std::vector<Sample>& samples = r.measurement.samples;
  std::vector<std::size_t> order(samples.size());
  double total = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    order[i] = i;
    total += static_cast<double>(samples[i].device_busy_ns);
  }
  Concentration c;
  c.calls = samples.size();
  if (samples.empty() || !(total > 0)) return c;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return samples[a].device_busy_ns > samples[b].device_busy_ns;
  });
  // Which pass each sample belongs to (pass_sizes in the order the passes ran).
  std::vector<std::size_t> pass_of(samples.size(), 0);
  std::size_t at = 0;
  for (std::size_t p = 0; p < r.measurement.pass_sizes.size(); ++p) {
    for (std::size_t k = 0; k < r.measurement.pass_sizes[p] && at < samples.size(); ++k) {
      pass_of[at++] = p;
    }
  }
  std::vector<bool> seen(std::max<std::size_t>(1, r.measurement.pass_sizes.size()), false);
  double held = 0;
  for (const std::size_t i : order) {
    held += static_cast<double>(samples[i].device_busy_ns);
    ++c.holding_half;
    if (!seen[pass_of[i]]) {
      seen[pass_of[i]] = true;
      ++c.passes;
    }
    if (held >= 0.5 * total) break;
  }
  c.share_held = held / total;
  return c;
}

// B11: the refusal of work moved between calls, or "".
std::string moved_between_calls(const Comparison& c, const Result& base, const Result& cand) {
  if (!c.difference || !(c.baseline_mean_ns > 0) || !(c.candidate_mean_ns > 0)) return "";
  // Device time only: on a host clock a call the OS preempted reads 10 to 20 times its work, and
  // two such calls among twenty (seen on the 2-core build machine under load) look like this.
  if (c.statistic == Statistic::synchronized_wall_clock) return "";
  const double by_means = c.candidate_mean_ns / c.baseline_mean_ns - 1.0;
  if (by_means >= c.difference->low && by_means <= c.difference->high) return "";
  for (const Result* r : {&cand, &base}) {
    const Concentration k = concentration_of(*r);
    // A few calls, and in more than one pass: one stray reading (a preemption of the host, the
    // first call of a pass) is not work moved between calls, which recurs.
    if (k.calls == 0 || k.passes < kConcentratedPasses ||
        !(static_cast<double>(k.holding_half) <
          kConcentratedCallShare * static_cast<double>(k.calls))) {
      continue;
    }
    const double mean = r == &cand ? c.candidate_mean_ns : c.baseline_mean_ns;
    const auto us = [](double ns) { return format_significant(ns / 1000.0, 3) + " us"; };
    return "work moved between calls: " + std::to_string(k.holding_half) + " of " +
           r->row.implementation + "'s " + std::to_string(k.calls) + " calls (" +
           format_significant(
               100.0 * static_cast<double>(k.holding_half) / static_cast<double>(k.calls), 2) +
           "%) hold " + format_significant(100.0 * k.share_held, 2) +
           "% of its device time: its mean per call is " + us(mean) + " and its median " +
           us(r->summary.device_busy.median_ns) + ". By their means " + cand.row.implementation +
           " takes " + format_significant(c.candidate_mean_ns / c.baseline_mean_ns, 3) +
           "x the time of " + base.row.implementation +
           ", outside the interval of the comparison by levels; a call that does the work of "
           "several while the others do little is not faster, so nothing is compared";
  }
  return "";
}

}  // namespace

Comparison compare_rows(const Result& base, const Result& cand, int schema_version,
                        bool across_runs) {
  Comparison c;
  c.baseline = base.row;
  c.candidate = cand.row;
  c.statistic = statistic_of(base.measurement.method);
  c.rule = rule_for(c.statistic);
  c.baseline_clock = base.summary.clock;
  c.precision = base.measurement.precision;
  c.candidate_clock = cand.summary.clock;
  c.baseline_mean_ns = mean_of(base);
  c.candidate_mean_ns = mean_of(cand);
  const std::optional<bool> base_fresh = fresh_inputs_of(base);
  const std::optional<bool> cand_fresh = fresh_inputs_of(cand);
  if (base_fresh && cand_fresh) c.fresh_inputs = *base_fresh && *cand_fresh;
  // B10: boards of one kind differ by more than runs on one board vary (a training step read
  // +1.1% and +2.3% slower on a second H200 board), and a comparison's interval knows only its
  // own run's spread: rows of two boards are never set against each other.
  if (!same_board(base.board, cand.board)) {
    c.refusal = "the rows ran on two boards (" + board_label(base.board) + " and " +
                board_label(cand.board) +
                "): boards of one kind differ by a few percent, more than runs on one board "
                "vary, so rows of two boards are never compared";
    return c;
  }
  // P6: a row whose time may not be its work's is not set against another.
  for (const Result* r : {&base, &cand}) {
    if (r->null_test_failed()) {
      c.refusal = r->row.implementation + "'s null test failed (" +
                  describe(*r->null_test_outcome) + "), so its time may not be its work's";
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
  c.difference = difference_of(base, cand, schema_version, why_not);
  if (const std::string copies = copies_differ(base, cand, c.difference); !copies.empty()) {
    c.refusal = copies;
    c.difference.reset();
    return c;
  }
  if (schema_version >= kMovedWorkRulesSince) {
    // B11: work the candidate moved into its checks or its inputs, or between its calls.
    const Nanos tick =
        std::max(base.measurement.timestamp_tick_ns, cand.measurement.timestamp_tick_ns);
    std::string moved = moved_work(base.measurement.ledger, cand.measurement.ledger,
                                   cand.summary.device_busy.median_ns, tick,
                                   base.row.implementation, cand.row.implementation);
    if (moved.empty()) moved = moved_between_calls(c, base, cand);
    if (!moved.empty()) {
      c.refusal = moved;
      c.difference.reset();
      return c;
    }
  }
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
  if (schema_version < kHostClockRulesSince) {
    c.ratio = compare_times(b, k);
    return c;
  }
  // The host-clock rule (host_clock.hpp): the interval of the passes, the 1.5x floor and the
  // means beside, together.
  HostClockSides sides;
  sides.baseline_median_ns = b;
  sides.candidate_median_ns = k;
  sides.baseline_mean_ns = c.baseline_mean_ns;
  sides.candidate_mean_ns = c.candidate_mean_ns;
  sides.interval = c.difference;
  IntervalRules host_rules = interval_rules_of(schema_version);
  host_rules.pass_median = true;
  sides.spread = pass_spread(passes_of(base.measurement), passes_of(cand.measurement), host_rules);
  sides.load_average = load_average_of(base, cand);
  sides.across_runs = across_runs;
  if (across_runs) {
    // Rows of two runs: each read against the yardstick timed beside it, where both have one.
    const Nanos tick =
        std::max(base.measurement.timestamp_tick_ns, cand.measurement.timestamp_tick_ns);
    try {
      HostClockSides read = host_clock_sides_across_runs(
          passes_of(base.measurement), base.measurement.yardstick, passes_of(cand.measurement),
          cand.measurement.yardstick, tick, sides.load_average);
      if (read.against_yardstick) {
        sides = std::move(read);
      } else {
        sides.no_yardstick = read.no_yardstick;
      }
    } catch (const std::invalid_argument&) {
      sides.no_yardstick = "a pass holds a time that is not positive";
    }
  }
  sides.both_measure_call_overhead =
      measures_call_overhead(c.statistic, b) && measures_call_overhead(c.statistic, k);
  c.ratio = host_clock_verdict(sides);
  return c;
}

IntervalRules interval_rules_of(int schema_version) {
  if (schema_version >= kCalibratedIntervalsSince) return IntervalRules{};
  return IntervalRules{kDifferenceConfidenceBeforeV9, false};
}

int records_rules_version(int schema_version) {
  if (schema_version >= kHostClockRulesSince) return kRecordSchemaVersion;
  return schema_version >= kCalibratedIntervalsSince ? kHostClockRulesSince - 1
                                                     : kCalibratedIntervalsSince - 1;
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

std::vector<Comparison> compare_results(const std::vector<Result>& results, int schema_version) {
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
    for (std::size_t i = 1; i < rows.size(); ++i) {
      out.push_back(compare_rows(*rows[0], *rows[i], schema_version));
    }
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
    if (r.null_test_outcome) out.push_back(*r.null_test_outcome);
  }
  return out;
}

}  // namespace gpumeter
