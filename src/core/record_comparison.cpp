#include "gpumeter/detail/record_comparison.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/number_rule.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/verdict.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/host_clock.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {

namespace {

// The gate passes with no regression, and with nothing it could not see unless that was let pass.
bool gate_passes(const GateOutcome& g, const GateOptions& options) {
  return g.regressions.empty() && (options.allow_missing || g.unseen.empty());
}

// The failure `record` holds for `row`: one of that very row first, else one of its whole case
// (implementation "": the case failed before any implementation ran).
const Failure* failure_for(const Record& record, const RowKey& row) {
  const Failure* whole_case = nullptr;
  for (const Failure& f : record.failures) {
    if (f.row == row) return &f;
    if (whole_case == nullptr && f.row.implementation.empty() && f.row.case_name == row.case_name &&
        f.row.params == row.params) {
      whole_case = &f;
    }
  }
  return whole_case;
}

std::string rows(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " row" : " rows");
}

}  // namespace

std::string_view to_string(RecordSide side) {
  return side == RecordSide::base ? "base" : "new";
}

RecordComparison compare_records(const Record& base, const Record& next) {
  RecordComparison out;
  // What the partial record says of itself, less its mark.
  const auto partial = [](const Record& r) {
    const std::string note = partial_record_note(r);
    return note.empty() ? note : note.substr(kPartialRecordMark.size());
  };
  out.base_partial = partial(base);
  out.next_partial = partial(next);
  std::map<RowKey, const Result*> in_base;
  for (const Result& r : base.results) in_base.emplace(r.row, &r);
  std::map<RowKey, const Result*> in_next;
  for (const Result& r : next.results) in_next.emplace(r.row, &r);

  for (const Result& r : next.results) {
    const auto it = in_base.find(r.row);
    if (it == in_base.end()) continue;
    out.pairs.push_back({it->second, &r, compare_across_runs(*it->second, r)});
  }
  for (const Result& r : base.results) {
    if (in_next.count(r.row) == 0) {
      out.missing.push_back(
          {r.row, RecordSide::next, failure_for(next, r.row), !out.next_partial.empty()});
    }
  }
  for (const Result& r : next.results) {
    if (in_base.count(r.row) == 0) {
      out.missing.push_back(
          {r.row, RecordSide::base, failure_for(base, r.row), !out.base_partial.empty()});
    }
  }
  for (const auto& [side, record] :
       {std::pair{RecordSide::base, &base}, {RecordSide::next, &next}}) {
    for (const Failure& f : record->failures) {
      if (status_of(f) != RowStatus::skipped) out.failures.push_back({side, &f});
    }
  }
  return out;
}

Comparison compare_across_runs(const Result& base, const Result& next) {
  Comparison c = compare_rows(base, next, kComparisonRulesVersion, true);
  // P5 across runs: the host-clock rule's verdict, no finer statement (see the header).
  if (c.rule == ComparisonRule::resolution) c.difference.reset();
  return c;
}

std::string describe(const MissingRow& m) {
  const std::string side(to_string(m.missing_from));
  if (m.failure != nullptr) return describe(*m.failure) + " (in " + side + ")";
  if (m.record_partial) {
    return "not in " + side + ", whose record is partial (its run stopped before the end)";
  }
  return "not in " + side;
}

std::optional<ChangeSummary> summarize_changes(const RecordComparison& comparison) {
  ChangeSummary s;
  double log_sum = 0;
  for (const RowPair& p : comparison.pairs) {
    const Comparison& c = p.comparison;
    if (!c.compared() || c.rule != ComparisonRule::relative_difference || !c.difference) continue;
    const RelativeDifference& d = *c.difference;
    log_sum += std::log1p(d.estimate);
    ++s.rows;
    s.slower += d.slower() ? 1 : 0;
    s.faster += d.faster() ? 1 : 0;
    s.undetected += d.found() ? 0 : 1;
  }
  if (s.rows == 0) return std::nullopt;
  s.geometric_mean = std::expm1(log_sum / s.rows);
  return s;
}

std::string describe(const ChangeSummary& s) {
  const double pct = 100 * s.geometric_mean;
  // A sign only where the mean is not zero; no "slower" or "faster": the rows say that.
  std::string text = "Geometric mean of new / base over " + std::to_string(s.rows) +
                     " device-time row(s): " + (pct > 0 ? "+" : "") + format_sig2(pct) +
                     "%; by row: ";
  if (s.slower == 0 && s.faster == 0) {
    return text + "no row differs (" + std::to_string(s.undetected) +
           " with no difference detected)";
  }
  std::string parts;
  const auto add = [&](int n, const char* what) {
    if (n > 0) parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(s.slower, "slower");
  add(s.faster, "faster");
  add(s.undetected, "with no difference detected");
  return text + parts;
}

bool is_regression(const Comparison& c, double threshold) {
  if (!c.compared()) return false;
  if (c.rule == ComparisonRule::resolution) {
    // P5: only a directional difference is a finding (host_clock.hpp); nothing else is slower.
    return c.ratio && c.ratio->resolution == Resolution::directional_difference &&
           c.ratio->speedup < 1 && 1 / c.ratio->speedup - 1 > threshold;
  }
  return c.difference && c.difference->low > threshold;
}

std::string_view to_string(Movement movement) {
  switch (movement) {
    case Movement::slower:
      return "slower";
    case Movement::faster:
      return "faster";
    case Movement::none:
      break;
  }
  return "none";
}

Movement movement_of(const Comparison& c) {
  if (!c.compared()) return Movement::none;
  if (c.rule == ComparisonRule::resolution) {
    // P5: only a directional difference has a direction; below 1.5x none is claimed.
    if (!c.ratio || c.ratio->resolution != Resolution::directional_difference)
      return Movement::none;
    return c.ratio->speedup < 1 ? Movement::slower : Movement::faster;
  }
  if (!c.difference) return Movement::none;
  return c.difference->slower()   ? Movement::slower
         : c.difference->faster() ? Movement::faster
                                  : Movement::none;
}

std::optional<GateOptions> gate_options(std::optional<double> threshold, bool allow_missing,
                                        std::string_view option,
                                        std::string_view allow_missing_option) {
  if (!threshold) {
    if (allow_missing) {
      throw ConfigError(std::string(allow_missing_option) + " needs " + std::string(option) +
                        " FRACTION: it lets what the gate cannot see pass, and there is no gate");
    }
    return std::nullopt;
  }
  if (std::string problem = value_problem(option, *threshold, kGateThresholdRule);
      !problem.empty()) {
    throw ConfigError(problem);
  }
  return GateOptions{*threshold, allow_missing};
}

// As the user gave it (1.25% stays 1.25%): two significant figures would state another gate. To 12
// significant figures, so the binary noise of a percent made a fraction and back ("7%" is 0.07,
// and 100 * 0.07 is 7.000000000000001) does not show, while every figure a user writes does.
std::string gate_threshold_text(double threshold) {
  char text[32];
  std::snprintf(text, sizeof text, "%.12g", 100 * threshold);
  return std::string(text) + "%";
}

GateOutcome judge_gate(const RecordComparison& comparison, const GateOptions& options) {
  GateOutcome g;
  // Wall-clock rows by the floor they were judged by: read against their yardsticks, or not.
  std::size_t wall_clock = 0;
  std::size_t against_yardstick = 0;
  for (const RowPair& p : comparison.pairs) {
    if (is_regression(p.comparison, options.threshold)) g.regressions.push_back(&p);
    if (p.comparison.compared() && p.comparison.rule == ComparisonRule::resolution &&
        p.comparison.ratio) {
      ++(p.comparison.ratio->against_yardstick ? against_yardstick : wall_clock);
    }
  }
  std::size_t from_next = 0;
  std::size_t from_base = 0;
  for (const MissingRow& m : comparison.missing) {
    ++(m.missing_from == RecordSide::next ? from_next : from_base);
  }
  if (comparison.pairs.empty()) g.unseen.push_back("no row is in both records");
  if (from_next > 0) g.unseen.push_back(rows(from_next) + " of base not in new");
  if (from_base > 0) g.unseen.push_back(rows(from_base) + " of new not in base");
  for (const auto& [side, partial] : {std::pair{RecordSide::base, &comparison.base_partial},
                                      {RecordSide::next, &comparison.next_partial}}) {
    if (!partial->empty()) {
      g.unseen.push_back("the " + std::string(to_string(side)) + " record is partial: " + *partial);
    }
  }
  for (const RecordSide side : {RecordSide::base, RecordSide::next}) {
    for (const RowStatus status :
         {RowStatus::failed, RowStatus::crashed, RowStatus::timed_out, RowStatus::not_measured}) {
      std::size_t n = 0;
      for (const SideFailure& f : comparison.failures) {
        n += f.side == side && status_of(*f.failure) == status ? 1 : 0;
      }
      if (n > 0) {
        g.unseen.push_back(std::to_string(n) + (n == 1 ? " case" : " cases") + " of " +
                           std::string(to_string(side)) + " " + std::string(to_string(status)));
      }
    }
  }
  // Rows of two runs: the host clock's floors across runs (host_clock.hpp).
  if (against_yardstick > 0 && 1 + options.threshold < kAcrossRunsYardstickRatio) {
    g.notes.push_back(rows(against_yardstick) +
                      " timed by the wall clock, each read against the yardstick timed beside "
                      "it: judged by the " +
                      format_sig2(kAcrossRunsYardstickRatio) + "x floor, so a slowdown under " +
                      format_sig2(kAcrossRunsYardstickRatio) +
                      "x is not a regression the gate can see, nor one wider apart than the "
                      "spread of its passes bounds");
  }
  if (wall_clock > 0 && 1 + options.threshold < kAcrossRunsResolutionRatio) {
    g.notes.push_back(rows(wall_clock) +
                      " timed by the wall clock without a yardstick on both sides: judged by the " +
                      format_sig2(kAcrossRunsResolutionRatio) +
                      "x floor of two runs, so a slowdown under " +
                      format_sig2(kAcrossRunsResolutionRatio) +
                      "x is not a regression the gate can see, nor one wider apart than the "
                      "spread of its passes bounds");
  }
  g.passed = gate_passes(g, options);
  return g;
}

namespace {

// The gate's outcome as a conclusion: fills c and says whether the gate failed.
bool gate_concluded(CompareConclusion& c, const GateOutcome& g, const GateOptions& gate) {
  for (const RowPair* p : g.regressions) {
    c.regressions.push_back(row_label(p->next->row) + ": " + regression_words(p->comparison));
  }
  c.notes = g.notes;
  c.gate = gate;
  c.unseen = g.unseen;
  if (g.passed) return false;
  std::string why;
  if (!g.regressions.empty()) why = std::to_string(g.regressions.size()) + " regression(s)";
  // What the gate could not see fails it, and is named, unless it was let pass.
  if (!gate.allow_missing) {
    for (const std::string& u : g.unseen) why += (why.empty() ? "" : "; ") + u;
  }
  c.exit_code = kExitFailed;
  c.why = "the gate failed: " + why;
  return true;
}

}  // namespace

CompareConclusion conclude_missing(const std::optional<GateOptions>& gate,
                                   const std::string& what) {
  CompareConclusion c;
  if (gate) {
    GateOutcome g;
    g.unseen.push_back(what);
    g.passed = gate_passes(g, *gate);
    gate_concluded(c, g, *gate);
  }
  return c;
}

CompareConclusion conclude_unreadable(const std::optional<GateOptions>& gate,
                                      const std::string& why) {
  CompareConclusion c;
  c.gate = gate;
  // As a row that cannot be compared: no pass, whatever the gate lets pass.
  c.exit_code = kExitUsage;
  c.why = why;
  return c;
}

CompareConclusion conclude(const RecordComparison& comparison,
                           const std::optional<GateOptions>& gate) {
  CompareConclusion c;
  if (gate && gate_concluded(c, judge_gate(comparison, *gate), *gate)) return c;
  // A row that cannot be compared is no pass, with a gate or without: its reason is named.
  std::vector<std::string> refused;
  for (const RowPair& p : comparison.pairs) {
    if (!p.comparison.compared()) {
      refused.push_back(row_label(p.next->row) + ": " + p.comparison.refusal);
    }
  }
  if (!refused.empty()) {
    c.exit_code = kExitUsage;
    c.why =
        std::to_string(refused.size()) + " row(s) could not be compared, e.g. " + refused.front();
  }
  return c;
}

}  // namespace gpumeter
