#include "gpumeter/detail/wording.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/verdict.hpp"
#include "gpumeter/host_clock.hpp"

namespace gpumeter {

std::string device_label(const DeviceIdentity& device, bool with_uuid) {
  const std::string where = device.kind + ":" + std::to_string(device.index);
  const bool uuid = with_uuid && !device.uuid.empty();
  if (device.name.empty()) return uuid ? where + " (" + device.uuid + ")" : where;
  return device.name + " (" + where + (uuid ? ", " + device.uuid : std::string()) + ")";
}

std::string row_device_label(const DeviceIdentity& device, const DeviceState& state,
                             const Board& board) {
  if (!board.known() || same_board(board, board_of(device, state))) return device_label(device);
  const std::string name = board.name.empty() ? device.kind : board.name;
  return board.uuid.empty() ? name : name + " (" + board.uuid + ")";
}

std::vector<Board> record_boards(const Record& record) {
  std::vector<Board> boards{board_of(record.device, record.device_state)};
  for (const Result& r : record.results) {
    const bool seen =
        !r.board.known() || std::any_of(boards.begin(), boards.end(),
                                        [&](const Board& b) { return same_board(b, r.board); });
    if (!seen) boards.push_back(r.board);
  }
  return boards;
}

bool same_boards(const Record& a, const Record& b) {
  const std::vector<Board> x = record_boards(a);
  const std::vector<Board> y = record_boards(b);
  const auto within = [](const std::vector<Board>& some, const std::vector<Board>& all) {
    return std::all_of(some.begin(), some.end(), [&](const Board& s) {
      return std::any_of(all.begin(), all.end(), [&](const Board& t) { return same_board(s, t); });
    });
  };
  return within(x, y) && within(y, x);
}

std::string record_boards_label(const Record& record) {
  const std::vector<Board> boards = record_boards(record);
  std::string text = device_label(record.device, true);
  if (boards.size() == 1) return text;
  // A merge of several boards' runs (--devices, shards on several hosts): every board named, so
  // the header does not pass the record off as its first device's.
  text = std::to_string(boards.size()) + " boards: " + text;
  for (std::size_t i = 1; i < boards.size(); ++i) {
    text += ", " + row_device_label(record.device, record.device_state, boards[i]);
  }
  return text;
}

std::string time_text(double ns) {
  if (!std::isfinite(ns)) return kNotMeasured;
  if (ns >= kMillisecondTimesFromNs) return format_significant(ns / 1e6, kTableTimeDigits) + " ms";
  return format_significant(ns / 1e3, kTableTimeDigits) + " us";
}

std::string mib_text(std::optional<double> bytes) {
  if (!bytes || !std::isfinite(*bytes)) return kNotAvailable;
  return format_significant(*bytes / kBytesPerMiB, kTableTimeDigits);
}

std::string percent_of_ceiling(double percent, bool above) {
  return format_significant(percent, kTableTimeDigits) + "%" +
         (above ? std::string(" (") + kAboveCeiling + ")" : std::string());
}

namespace {

std::string percent(double fraction) {
  return format_sig2(100.0 * fraction) + "%";
}

// How many times longer (or shorter) the candidate's time is.
double factor_of(double estimate) {
  return estimate >= 0 ? 1.0 + estimate : 1.0 / (1.0 + estimate);
}

std::string amount(double estimate, bool factor, int digits) {
  return factor ? format_significant(factor_of(estimate), digits) + "x"
                : format_significant(100.0 * std::fabs(estimate), digits) + "%";
}

std::string interval_level(const RelativeDifference& d) {
  return format_significant(100 * d.confidence, 2) + "% interval ";
}

}  // namespace

// A change in time in words: "2.8% slower", "20% faster" (the share of time saved), and from
// the 1.5x resolution on, the factor: "2.1x slower".
bool as_factor(double estimate) {
  return factor_of(estimate) >= kResolutionRatio;
}

DifferenceAmounts difference_amounts(const RelativeDifference& d) {
  const bool factor = as_factor(d.estimate);
  const double near = d.slower() ? d.low : d.high;  // the end closer to no difference
  const double far = d.slower() ? d.high : d.low;
  const auto shown = [&](double v) { return factor ? factor_of(v) : 100.0 * std::fabs(v); };
  const int digits = interval_digits(shown(d.estimate), shown(near), shown(far));
  return {amount(d.estimate, factor, digits), amount(near, factor, digits),
          amount(far, factor, digits)};
}

DifferenceWords difference_words(const RelativeDifference& d) {
  if (!d.found()) {
    const PercentText t = percent_text(d);
    return {"estimate " + t.estimate, interval_level(d) + t.low + " to " + t.high};
  }
  const DifferenceAmounts a = difference_amounts(d);
  return {a.estimate + (d.slower() ? " slower" : " faster"),
          interval_level(d) + a.near + " to " + a.far};
}

PercentText percent_text(const RelativeDifference& d) {
  const int digits = interval_digits(100 * d.estimate, 100 * d.low, 100 * d.high);
  // A sign only where there is a direction: an exact zero reads "0%", not "+0%".
  const auto text = [&](double fraction) {
    return (fraction > 0 ? "+" : "") + format_significant(100 * fraction, digits) + "%";
  };
  return {text(d.estimate), text(d.low), text(d.high)};
}

namespace {

std::string describe_difference(const Comparison& c) {
  const std::string& a = c.baseline.implementation;
  const std::string& b = c.candidate.implementation;
  const std::string statistic = std::string(to_string(c.statistic));
  if (c.rule == ComparisonRule::resolution) {
    if (c.ratio->resolution == Resolution::directional_difference) {
      std::string passes;
      if (c.ratio->by_passes && c.difference) {
        passes = "; the passes' " + difference_words(*c.difference).interval;
      }
      return b + " is " + c.ratio->wording + " than " + a + " (" + c.ratio->label + passes + "; " +
             statistic + ", rule: 1.5x resolution)";
    }
    if (c.ratio->by_passes) {
      // The host-clock rule claimed nothing: the medians' ratio with no direction, and why.
      return c.ratio->label + " between " + b + " and " + a + " (" + b + " took " +
             c.ratio->wording + " of " + a + ", by their medians; " + statistic +
             ", rule: 1.5x resolution and the passes' interval)";
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
         (clocks.empty() ? "" : "; " + clocks + ", so part of the difference may be the clock's") +
         (c.precision ? "; " + precision_words(*c.precision) : "") + means_words(c) +
         inputs_words(c);
}

std::string means_words(const Comparison& c) {
  if (!(c.baseline_mean_ns > 0) || !(c.candidate_mean_ns > 0)) return {};
  return "; mean per call " + c.candidate.implementation + " " + time_text(c.candidate_mean_ns) +
         ", " + c.baseline.implementation + " " + time_text(c.baseline_mean_ns);
}

std::string inputs_words(const Comparison& c) {
  if (!c.fresh_inputs) return {};
  if (*c.fresh_inputs) return "; on fresh inputs";
  std::string s = "; on fixed inputs";
  // B11: the factor a remembered answer behind a tiny kernel reads as.
  double factor = 0;
  if (c.difference && c.difference->faster()) {
    factor = 1.0 / (1.0 + c.difference->estimate);
  } else if (c.ratio && c.ratio->speedup > 1) {
    factor = c.ratio->speedup;
  }
  if (factor >= kRememberedAnswerFactor) {
    s += " (a call that returns an answer remembered from an earlier call reads like this: "
         "measure with fresh inputs, fresh_inputs= in Python or Setup::fresh_inputs in C++, or "
         "judge candidates with gpumeter evaluate)";
  }
  return s;
}

std::string precision_words(const PrecisionOutcome& p) {
  const std::string time = format_sig2(to_ms(p.elapsed_ns) / 1000.0) + " s";
  const std::string passes = std::to_string(p.passes) + " passes";
  if (p.target_met()) {
    return "target " + percent(p.target) + " reached after " + passes + ", " + time;
  }
  const std::string why = p.stopped == StopReason::time_cap   ? "the time cap"
                          : p.stopped == StopReason::pass_cap ? "the most passes a run takes"
                                                              : "stopped";
  return "target " + percent(p.target) + " not reached: " + percent(p.reached) + " after " +
         passes + ", " + time + " (" + why + ")";
}

std::string describe_precision(const Result& r, int schema_version) {
  const std::optional<PrecisionOutcome>& p = r.measurement.precision;
  if (!p) return {};
  return "level within +-" + percent(p->reached) + " (" +
         format_sig2(100 * interval_rules_of(schema_version).confidence) +
         "% interval of the passes' geometric mean; " + precision_words(*p) + ")";
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

CompareRowWords compare_row_words(const Comparison& c) {
  CompareRowWords w{"not compared", ""};
  if (!c.compared()) {
    w.finding = c.refusal;
    return w;
  }
  if (c.rule == ComparisonRule::resolution) {
    // The factor of the medians and what the 1.5x resolution calls it; no interval.
    w.change = c.ratio->wording;
    w.finding = c.ratio->label + " (" + format_sig2(c.ratio->floor) + "x resolution)";
  } else {
    const RelativeDifference& d = *c.difference;
    // The core's numbers, so the change and its interval share their figures.
    const PercentText t = percent_text(d);
    w.change = t.estimate + " [" + t.low + ", " + t.high + "]";
    w.finding = d.slower()   ? "slower"
                : d.faster() ? "faster"
                             : "no difference detected (would see " +
                                   format_sig2(100 * d.smallest_detectable) + "%)";
  }
  const std::string clocks = clock_difference_words(c, "base", "new");
  if (!clocks.empty()) w.finding += "; " + clocks;
  return w;
}

std::string regression_words(const Comparison& c) {
  if (c.rule == ComparisonRule::resolution) {
    return c.ratio->wording + " (" + c.ratio->label + ", " + format_sig2(c.ratio->floor) +
           "x resolution)";
  }
  const DifferenceWords w = difference_words(*c.difference);
  return w.change + " (" + w.interval + ")";
}

std::string null_test_failed_words(const NullTestOutcome& n) {
  return "FAILED its null test: " + describe(n) +
         "; its times are kept in the record as evidence, not shown, and it is compared with "
         "nothing";
}

std::string null_test_cell(const std::optional<NullTestOutcome>& n, bool with_scale) {
  if (!n) return "not run";
  if (!n->verdict) return "FAIL (not evaluated)";
  const std::string ratio = format_sig2(n->verdict->observed_ratio) + "x";
  if (with_scale) {
    return ratio + " for " + std::to_string(n->scale) + "x work" +
           (n->failed() ? ": FAIL" : ": pass");
  }
  return std::string(n->failed() ? "FAIL" : "pass") + " (" + ratio + ")";
}

std::string comparisons_heading(std::optional<int> schema_version) {
  const std::string interval =
      schema_version
          ? format_sig2(100 * interval_rules_of(*schema_version).confidence) + "% interval"
          : "interval (each sentence states its confidence)";
  return "Comparisons (each implementation against its case's first; device time: the relative "
         "difference with its " +
         interval + ", passes as the units that vary; wall clock: the " +
         format_sig2(kResolutionRatio) + "x resolution):";
}

std::string comparisons_heading(const std::vector<Record>& records) {
  if (records.empty()) return comparisons_heading();
  const double confidence = interval_rules_of(records.front().schema_version).confidence;
  for (const Record& record : records) {
    if (interval_rules_of(record.schema_version).confidence != confidence) {
      return comparisons_heading(std::nullopt);
    }
  }
  return comparisons_heading(records.front().schema_version);
}

std::string null_tests_heading() {
  return "Null tests (the work scaled " + std::to_string(kNullTestScale) +
         "x, the time must scale alike within " + format_sig2(kNullTestTolerance * 100) + "%):";
}

std::string describe(const Result& r) {
  const Summary& s = r.summary;
  std::string line = r.row.implementation + ": ";
  if (r.null_test_failed()) return line + null_test_failed_words(*r.null_test_outcome);
  line += std::string(to_string(statistic_of(r.measurement.method))) + " median " +
          time_text(s.device_busy.median_ns) + " [p10 " + time_text(s.device_busy.p10_ns) +
          ", p90 " + time_text(s.device_busy.p90_ns) + "], latency " +
          time_text(s.latency.median_ns) + ", " + std::to_string(s.n_samples) + " samples";
  if (s.tflops) line += ", " + format_significant(*s.tflops, kTableTimeDigits) + " TFLOP/s";
  if (s.tbs) line += ", " + format_significant(*s.tbs, kTableTimeDigits) + " TB/s";
  const auto percent = [&](const std::optional<double>& pct, const std::optional<bool>& above,
                           const char* what) {
    if (!pct) return;
    line += ", " + percent_of_ceiling(*pct, false) + " of the measured " + what + " ceiling";
    if (above.value_or(false)) line += std::string(" (") + kAboveCeiling + ")";
  };
  percent(s.pct_of_peak_flops, s.above_flops_ceiling, "FLOP/s");
  percent(s.pct_of_peak_bandwidth, s.above_bandwidth_ceiling, "TB/s");
  if (r.flags.call_overhead) {
    line += "; " + call_overhead_words(s.device_busy.median_ns);
  }
  return line;
}

std::string describe(const Crossover& c, std::string_view axis) {
  const std::string low = std::string(axis) + " = " + format_shortest(c.low);
  const std::string high = std::string(axis) + " = " + format_shortest(c.high);
  if (c.resolved) {
    return c.second.implementation + " overtakes " + c.first.implementation + " between " + low +
           " and " + high + " (two measured points, each decided by its statistic's rule; no " +
           "point between them is claimed)";
  }
  return "the medians of " + c.first.implementation + " and " + c.second.implementation +
         " change order between " + low + " and " + high +
         ", within the resolution: which is faster there is not established";
}

std::string describe(const GrowthRegime& r, std::string_view axis) {
  // "grows as", not "~": a tilde is markup, escaped (\~) wherever the sentence is printed. The
  // exponent with two decimals, as the plot labels the same fit.
  char exponent[32];
  std::snprintf(exponent, sizeof exponent, "%.2f", r.exponent);
  return "time grows as " + std::string(axis) + "^" + exponent + " from " + format_shortest(r.low) +
         " to " + format_shortest(r.high) + " (" + r.label + "; R^2 " +
         format_significant(r.r_squared, 3) + ", " + std::to_string(r.points) + " points)";
}

std::string wrapper_words(const std::vector<Nanos>& kernel, const std::vector<Nanos>& call) {
  const double kernel_ns = spread_of(kernel).median_ns;
  const double call_ns = spread_of(call).median_ns;
  std::string s = "wrapper work (the public call less the bare kernel) " +
                  time_text(call_ns - kernel_ns) + ": public call " + time_text(call_ns) +
                  ", bare kernel " + time_text(kernel_ns);
  const auto positive = [](const std::vector<Nanos>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](Nanos x) { return x > 0; });
  };
  if (positive(kernel) && positive(call)) {
    // The host-clock rule, a reading a pass (host_clock.hpp).
    const RatioVerdict v = compare_host_readings(std::vector<double>(kernel.begin(), kernel.end()),
                                                 std::vector<double>(call.begin(), call.end()));
    const bool bare = v.resolution == Resolution::no_measured_difference;
    s += "; the public call " + std::string(bare ? "takes " : "is ") + v.wording +
         (bare ? " of" : " than") + " the bare kernel (" + v.label + ")";
  }
  return s;
}

std::string phases_heading() {
  return "Phases (median [p10, p90]; n: fresh processes, or calls when warm; a wall-clock phase "
         "against the first candidate's by the host-clock rule, a direction only where the "
         "readings bound it and from 1.5x on, never against device time):";
}

std::string total_n_heading(PhaseSetting setting) {
  return std::string("total(N) = process start + init + ") +
         (setting == PhaseSetting::fresh_cold ? "cold compile" : "cached load") +
         " + conversion + build + capture + N x per call, beside the measured total of N calls "
         "from a fresh process (" +
         std::string(to_string(setting)) + "):";
}

std::string growth_heading(std::string_view axis) {
  return "Growth along " + std::string(axis) +
         " (log-log fit per regime where the exponent changes; crossovers as brackets of "
         "measured sizes):";
}

std::string statistic_title(Statistic statistic) {
  return statistic == Statistic::synchronized_wall_clock ? std::string("wall clock")
                                                         : std::string(to_string(statistic));
}

}  // namespace gpumeter
