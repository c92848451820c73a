// The reader's cross-checks (record_verify.hpp): every value a record derives is recomputed from
// what it derives from and compared with what is stored, and the parts of a record must agree
// with each other (rows, failures, phases, ledgers, the program and shard sections).
#include "record_verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_clock.hpp"
#include "gpumeter/precision_width.hpp"
#include "gpumeter/row_checks.hpp"
#include "record_decode.hpp"

namespace gpumeter {

namespace record_json {

// A relative difference is a ratio of times less one: finite and above -1 (host_clock.hpp's
// statable). The comparison rule records passes that far apart as unresolved, with no interval
// (compare_rows), so a record whose stored comparisons hold one was not made by it.
std::string unstatable_comparison(const std::vector<Comparison>& derived) {
  for (std::size_t i = 0; i < derived.size(); ++i) {
    if (!derived[i].difference) continue;
    const RelativeDifference& d = *derived[i].difference;
    if (!statable(d)) {
      return fmt::format(
          "the results of {} and {} of case {} give a relative difference beyond what a number "
          "can state (estimate {}, interval {} to {}, smallest detectable {}); no measurement "
          "gives passes that far apart",
          record_text(derived[i].baseline.implementation),
          record_text(derived[i].candidate.implementation),
          record_text(derived[i].baseline.case_name), d.estimate, d.low, d.high,
          d.smallest_detectable);
    }
  }
  return {};
}

}  // namespace record_json

namespace record_read {

using namespace record_json;

// A stored derived number agrees with the one recomputed when they differ by at most
// kDerivedTolerance of the larger, a relative bound at every size (zero agrees only with zero).
// Non-finite values never agree: nothing the reader accepts is one.
bool same(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  return std::fabs(a - b) <= kDerivedTolerance * std::max(std::fabs(a), std::fabs(b));
}

std::string shown(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string("null");
}

// The raw samples are the evidence (P10): every summary value is recomputed from them (and the
// declared workload and ceilings) through the column list, compared with what is stored, and
// the recomputed summary is the one kept. A stored value the samples do not give means an
// altered record, or one written by a faulty tool.
void check_summary(const Reader& r, Result& result, const Doc& js, const Ceilings& ceilings,
                   const std::string& where, int version) {
  // The recomputed summary is the one kept; the stored values are only checked against it.
  summarize_result(result, ceilings);
  const Result& derived = result;
  const std::string sw = where + ".summary";
  for (const Column& c : result_columns()) {
    if (c.summary_key.empty()) continue;
    if (c.since_schema > version) continue;  // an older record has no such value
    const std::string object_where =
        c.summary_object.empty() ? sw : Reader::join(sw, c.summary_object);
    const Doc& holder = c.summary_object.empty() ? js : r.object(js, sw, c.summary_object);
    const std::string name = Reader::join(object_where, c.summary_key);
    const Doc& v = r.field(holder, object_where, c.summary_key);
    // As the record stores it: a time in ms, the unit its field names.
    std::optional<double> stored;
    if (c.kind == ColumnKind::flag && !v.is_null()) {
      r.expect(v.is_boolean(), v, name, c.nullable ? "true, false or null" : "true or false");
      stored = v.get<bool>() ? 1.0 : 0.0;
    } else if (!v.is_null()) {
      r.expect(v.is_number(), v, name, c.nullable ? "a number or null" : "a number");
      // In its column's range: 1e308 ms would be an infinite number of ns, which no comparison
      // can judge. (A gap may be a rounding below zero.)
      const double most = c.kind == ColumnKind::time    ? ms_of(kMaxNanos)
                          : c.kind == ColumnKind::count ? static_cast<double>(kMaxCount)
                                                        : std::numeric_limits<double>::max();
      stored = r.real_value(v, name, c.kind == ColumnKind::time ? -most : 0, most);
    } else if (!c.nullable) {
      r.expect(false, v, name, "a number");
    }
    // A value whose rule changed is checked by the rule its record was written under.
    const bool older = version < c.rule_since_schema && c.older_rule != nullptr;
    std::optional<double> want = older ? c.older_rule(derived) : number_of(c, derived);
    if (want && !std::isfinite(*want)) {
      r.fail(
          fmt::format("{}: the record's samples and declared workload give a value that is not "
                      "a finite number",
                      name));
    }
    if (want && c.kind == ColumnKind::time) want = ms_of(*want);
    if (stored.has_value() != want.has_value() || (stored && !same(*stored, *want))) {
      const auto text = [&](const std::optional<double>& x) {
        if (c.kind != ColumnKind::flag || !x) return shown(x);
        return std::string(*x != 0 ? "true" : "false");
      };
      r.fail(
          fmt::format("{} is {} but the record's samples give {}: the summary does not "
                      "describe the raw samples (altered record?)",
                      name, text(stored), text(want)));
    }
  }
}

// Every row of a case run to a target precision holds the same outcome, its pass count is the
// row's, and the width reached is what the rows' passes give (precision_width.hpp).
void check_precision(const Reader& r, const std::vector<Result>& results, int version) {
  std::map<std::string, std::vector<std::size_t>> cases;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RowKey& row = results[i].row;
    std::string key = row.case_name + '\x1f' + format_params(row.params);
    if (cases.find(key) == cases.end()) order.push_back(key);
    cases[key].push_back(i);
  }
  for (const std::string& key : order) {
    const std::vector<std::size_t>& rows = cases[key];
    const std::optional<PrecisionOutcome>& first = results[rows.front()].measurement.precision;
    std::vector<const Measurement*> ms;
    for (const std::size_t i : rows) {
      const Measurement& m = results[i].measurement;
      const std::string where = fmt::format("results[{}].precision", i);
      if (m.precision.has_value() != first.has_value()) {
        r.fail(
            fmt::format("{}: one row of a case ran to a target precision and another did not "
                        "(altered record?)",
                        where));
      }
      if (!m.precision) continue;
      const PrecisionOutcome& p = *m.precision;
      const PrecisionOutcome& f = *first;
      if (p.target != f.target || p.max_time_ns != f.max_time_ns || p.reached != f.reached ||
          p.passes != f.passes || p.stopped != f.stopped || p.elapsed_ns != f.elapsed_ns) {
        r.fail(fmt::format("{}: the rows of one case state different outcomes (altered record?)",
                           where));
      }
      if (static_cast<std::size_t>(p.passes) != m.pass_sizes.size()) {
        r.fail(fmt::format("{}.passes: {} stated, but the row holds {} passes (altered record?)",
                           where, p.passes, m.pass_sizes.size()));
      }
      ms.push_back(&m);
    }
    if (!first) continue;
    const IntervalRules rules = interval_rules_of(version);
    const std::optional<double> width = precision_reached(ms, rules);
    const double stored = first->reached;
    if (!width || std::fabs(*width - stored) > 1e-9 * std::max(1.0, std::fabs(stored))) {
      r.fail(
          fmt::format("results[{}].precision.reached: {} stated, but its passes give {} "
                      "(altered record?)",
                      rows.front(), stored, width ? fmt::format("{}", *width) : "none"));
    }
    // The outcome a table states ("target reached after 64 passes", "the time cap") is what the
    // stop rule gives for these passes, and its elapsed time what they can have taken.
    if (const std::string problem = precision_outcome_problem(ms, *first, rules);
        !problem.empty()) {
      r.fail(fmt::format("results[{}].precision.{} (altered record?)", rows.front(), problem));
    }
  }
}

// The stored ratio and pass of a null test are derived: they must be what its samples give (the
// outcome summarize_result decided, in check_summary).
void check_null_test(const Reader& r, const Doc& j, const std::string& where,
                     const Result& result) {
  const std::optional<NullTestOutcome>& n = result.null_test_outcome;
  if (!n) return;
  const std::string nw = where + ".null_test";
  const Doc& nt = r.object(j, where, "null_test");
  const std::optional<double> ratio =
      r.optional_real(nt, nw, "ratio", 0, std::numeric_limits<double>::max());
  const bool pass = r.boolean(nt, nw, "pass");
  const bool ratio_ok = n->verdict ? ratio && same(*ratio, n->verdict->observed_ratio) : !ratio;
  if (!ratio_ok || pass == n->failed()) {
    r.fail(fmt::format("{} does not match what its samples give ({}) (altered record?)", nw,
                       describe(*n)));
  }
}

// A row's flags are derived (finish_record, from its numbers and its record's highest clock):
// the stored ones must be what those give, field by field.
void check_row_flags(const Reader& r, const std::vector<Result>& results,
                     const std::vector<RowFlags>& stored) {
  const auto fields = [](const RowFlags& f) {
    return std::vector<std::pair<std::string_view, std::string>>{
        {"clock_flagged", fmt::format("{}", f.clock_flagged)},
        {"low_clock", fmt::format("{}", f.low_clock)},
        {"retries", fmt::format("{}", f.retries)},
        {"uncounted_copy", fmt::format("{}", f.uncounted_copy)},
        {"copy_exceeds_busy", fmt::format("{}", f.copy_exceeds_busy)},
        {"drops_unproven", fmt::format("{}", f.drops_unproven)},
        {"call_overhead", fmt::format("{}", f.call_overhead)}};
  };
  for (std::size_t i = 0; i < results.size() && i < stored.size(); ++i) {
    if (stored[i] == results[i].flags) continue;
    const auto have = fields(stored[i]);
    const auto want = fields(results[i].flags);
    for (std::size_t k = 0; k < have.size(); ++k) {
      if (have[k].second == want[k].second) continue;
      r.fail(
          fmt::format("results[{}].flags.{} is {} but the row's numbers give {}: the flags do not "
                      "describe the row (altered record?)",
                      i, have[k].first, have[k].second, want[k].second));
    }
  }
}

void check_statable(const Reader& r, const std::vector<Comparison>& derived) {
  if (const std::string problem = unstatable_comparison(derived); !problem.empty()) r.fail(problem);
}

// Stored comparisons must be exactly the ones the results give (they are derived values).
void check_comparisons(const Reader& r, const Doc& doc, const std::vector<Comparison>& derived,
                       int version) {
  const Doc& stored = r.array(doc, "", "comparisons");
  if (stored.size() != derived.size()) {
    r.fail(
        fmt::format("the record stores {} comparisons but its results give {} (altered "
                    "record?)",
                    stored.size(), derived.size()));
  }
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const std::string where = fmt::format("comparisons[{}]", i);
    const Doc& j = stored[i];
    r.expect(j.is_object(), j, where, "an object");
    const Comparison& want = derived[i];
    const auto mismatch = [&](std::string_view what) {
      r.fail(fmt::format("{}.{} does not match what the record's results give (altered record?)",
                         where, what));
    };
    if (r.text(j, where, "case", kName) != want.baseline.case_name) mismatch("case");
    if (read_params(r, j, where) != want.baseline.params) mismatch("params");
    if (r.text(j, where, "baseline", kName) != want.baseline.implementation) mismatch("baseline");
    if (r.text(j, where, "candidate", kName) != want.candidate.implementation)
      mismatch("candidate");
    if (r.text(j, where, "statistic", kName) != record_word(want.statistic)) mismatch("statistic");
    if (r.text(j, where, "rule", kName) != to_string(want.rule)) mismatch("rule");
    if (r.text(j, where, "refusal", kText) != want.refusal) mismatch("refusal");
    const Doc& d = r.field(j, where, "difference");
    if (d.is_null() != !want.difference.has_value()) mismatch("difference");
    if (want.difference) {
      const std::string dw = where + ".difference";
      const RelativeDifference& w = *want.difference;
      const double inf = std::numeric_limits<double>::max();
      if (!same(r.real(d, dw, "estimate", -1, inf), w.estimate)) mismatch("difference.estimate");
      if (!same(r.real(d, dw, "low", -1, inf), w.low)) mismatch("difference.low");
      if (!same(r.real(d, dw, "high", -1, inf), w.high)) mismatch("difference.high");
      if (!same(r.real(d, dw, "confidence", 0, 1), w.confidence)) mismatch("difference.confidence");
      if (!same(r.real(d, dw, "smallest_detectable", 0, inf), w.smallest_detectable)) {
        mismatch("difference.smallest_detectable");
      }
      if (r.integer<int>(d, dw, "degrees_of_freedom", 0, 1'000'000) != w.degrees_of_freedom) {
        mismatch("difference.degrees_of_freedom");
      }
      if (r.integer<Nanos>(d, dw, "timestamp_tick_ns", 1, 1'000'000) != w.timestamp_tick_ns) {
        mismatch("difference.timestamp_tick_ns");
      }
    }
    if (version >= kMovedWorkRulesSince) {
      const double most = std::numeric_limits<double>::max();
      if (!same(r.real(j, where, "baseline_mean_ns", 0, most), want.baseline_mean_ns)) {
        mismatch("baseline_mean_ns");
      }
      if (!same(r.real(j, where, "candidate_mean_ns", 0, most), want.candidate_mean_ns)) {
        mismatch("candidate_mean_ns");
      }
      const Doc& inputs = r.field(j, where, "inputs");
      const std::string want_inputs =
          want.fresh_inputs ? (*want.fresh_inputs ? "fresh" : "fixed") : "";
      if (inputs.is_null() != want_inputs.empty()) mismatch("inputs");
      if (!want_inputs.empty() && r.text(j, where, "inputs", kName) != want_inputs) {
        mismatch("inputs");
      }
    }
    const Doc& ratio = r.field(j, where, "ratio");
    if (ratio.is_null() != !want.ratio.has_value()) mismatch("ratio");
    if (want.ratio) {
      const std::string rw = where + ".ratio";
      if (!same(r.real(ratio, rw, "speedup", 0, std::numeric_limits<double>::max()),
                want.ratio->speedup)) {
        mismatch("ratio.speedup");
      }
      if (r.text(ratio, rw, "resolution", kName) != to_string(want.ratio->resolution)) {
        mismatch("ratio.resolution");
      }
    }
  }
}

// What the program section states is what its parts can give (docs/records.md): every run had a
// process that wrote a part, and every kernel group or launch is of a process of its run; a group
// outside the ranges holds a kernel (copies and fills only when they were counted); and every
// instance of a range was opened and closed by two of the range events its processes recorded.
void check_program(const Reader& r, const ProgramRun& p, const std::vector<Result>& results) {
  std::set<std::pair<std::size_t, long>> known;
  std::vector<bool> run_seen(p.runs + 1, false);
  std::size_t events = 0;
  for (const ProgramProcess& q : p.processes) {
    known.emplace(q.run, q.pid);
    run_seen[q.run] = true;
    events += q.range_events;
  }
  for (std::size_t run = 1; run <= p.runs; ++run) {
    if (!run_seen[run]) {
      r.fail(
          fmt::format("program.processes: no process of run {} of {}, whose parts the rows "
                      "were read from (altered record?)",
                      run, p.runs));
    }
  }
  const bool copies_counted =
      std::any_of(results.begin(), results.end(), [](const Result& x) { return x.count_copies; });
  for (const Result& x : results) {
    if (x.count_copies != copies_counted) {
      r.fail(
          fmt::format("results: the row {} counts copies and another does not, in one run of "
                      "one program (altered record?)",
                      record_text(row_label(x.row))));
    }
  }
  for (std::size_t i = 0; i < p.outside.size(); ++i) {
    const ProgramOutsideKernels& o = p.outside[i];
    if (known.count({o.run, o.pid}) == 0) {
      r.fail(fmt::format("program.outside[{}].pid: {} is no process of run {} (altered record?)", i,
                         o.pid, o.run));
    }
    if (o.n_kernels < 1 && !copies_counted) {
      r.fail(
          fmt::format("program.outside[{}].n_kernels: 0; a group outside the ranges holds at "
                      "least one kernel (copies and fills only when counted; altered record?)",
                      i));
    }
  }
  for (std::size_t i = 0; i < p.launches_without_work.size(); ++i) {
    const ProgramLaunchesWithoutWork& l = p.launches_without_work[i];
    if (known.count({l.run, l.pid}) == 0) {
      r.fail(fmt::format(
          "program.launches_without_work[{}].pid: {} is no process of run {} (altered record?)", i,
          l.pid, l.run));
    }
  }
  std::size_t instances = 0;
  for (const ProgramRange& g : p.ranges) instances += g.instances;
  if (instances > events / 2) {
    r.fail(
        fmt::format("program.ranges: {} instances, but the processes recorded {} range events, "
                    "and each instance is two (its opening and its closing; altered record?)",
                    instances, events));
  }
}

// The configuration as its writers make it (a table prints it: "iterations [10, 0]"): budgets a
// user may give (calibration.hpp), at least one iteration and no more below than above.
void check_config(const Reader& r, const RunConfig& c) {
  const auto budget = [&](std::string_view key, Nanos ns) {
    if (static_cast<double>(ns) > ns_of(kMaxBudgetMs)) {
      r.fail(fmt::format("field config.{}: {} ms, more than the {} ms a budget may be", key,
                         ms_of(static_cast<double>(ns)), kMaxBudgetMs));
    }
  };
  budget("warmup_ms", c.budget.warmup_ns);
  budget("measure_ms", c.budget.measure_ns);
  if (c.budget.max_iterations < 1 || c.budget.min_iterations > c.budget.max_iterations) {
    r.fail(
        fmt::format("field config.max_iterations: {} with min_iterations {}; a run takes at "
                    "least one iteration and no fewer at most than at least (altered record?)",
                    c.budget.max_iterations, c.budget.min_iterations));
  }
}

// A row is measured once in a record: a row twice would be listed twice and counted twice by a
// comparison's mean (a case line of a journal repeated).
void check_rows_unique(const Reader& r, const std::vector<Result>& results,
                       const std::vector<std::string>& where) {
  std::map<RowKey, std::size_t> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto [at, fresh] = seen.emplace(results[i].row, i);
    if (!fresh) {
      r.fail(fmt::format("{}: the row {} appears twice (also at {}; altered record?)", where[i],
                         record_text(row_label(results[i].row)), where[at->second]));
    }
  }
}

// B11: a row is a result or a failure, never both: a failure beside a result of the same row (or
// of its whole case) would let a reader take the numbers and a verdict take the failure, or the
// other way round.
void check_results_not_failed(const Reader& r, const Record& record) {
  std::set<RowKey> rows;
  std::set<std::pair<std::string, Params>> cases;
  for (const Result& x : record.results) {
    rows.insert(x.row);
    cases.insert({x.row.case_name, x.row.params});
  }
  for (std::size_t i = 0; i < record.failures.size(); ++i) {
    const RowKey& row = record.failures[i].row;
    const bool whole_case = row.implementation.empty();
    if (whole_case ? cases.count({row.case_name, row.params}) != 0 : rows.count(row) != 0) {
      r.fail(
          fmt::format("failures[{}]: {} is also a result of the record: a row is measured or "
                      "failed, not both (altered record?)",
                      i, record_text(row_label(row))));
    }
  }
}

// Phases and totals are of the candidates a record measured: each names a row the record holds
// (its warm call's result, or the failure that took its place). A phase of no row would be read
// as a candidate of its own, first of its case and the one the others are read against.
void check_phase_rows(const Reader& r, const Record& record) {
  std::set<RowKey> rows;
  for (const Result& x : record.results) rows.insert(x.row);
  for (const Failure& f : record.failures) rows.insert(f.row);
  for (std::size_t i = 0; i < record.phases.size(); ++i) {
    if (rows.count(record.phases[i].row) == 0) {
      r.fail(
          fmt::format("phases[{}]: {} is no row of the record (a candidate it did not measure; "
                      "altered record?)",
                      i, record_text(row_label(record.phases[i].row))));
    }
  }
  for (std::size_t i = 0; i < record.totals.size(); ++i) {
    if (rows.count(record.totals[i].row) == 0) {
      r.fail(
          fmt::format("totals[{}]: {} is no row of the record (a candidate it did not measure; "
                      "altered record?)",
                      i, record_text(row_label(record.totals[i].row))));
    }
  }
  // A runtime is a candidate's: one of the record's rows, or of a case that failed whole (whose
  // candidates have no row of their own). One naming no candidate was added after the run.
  std::set<std::string> candidates;
  bool case_failed_whole = false;
  for (const RowKey& row : rows) {
    candidates.insert(row.implementation);
    case_failed_whole = case_failed_whole || row.implementation.empty();
  }
  for (std::size_t i = 0; i < record.runtimes.size(); ++i) {
    if (!case_failed_whole && candidates.count(record.runtimes[i].implementation) == 0) {
      r.fail(fmt::format("runtimes[{}]: {} is no candidate of the record (altered record?)", i,
                         record_text(record.runtimes[i].implementation)));
    }
  }
  // A total is one process from its spawn, through every fresh phase of that process, to the
  // synchronize after its N-th call: no process's total is below the sum of its phases, so the
  // smallest total is not below the sum of each phase's smallest sample; and a process's total of
  // more calls is not below its total of fewer.
  for (std::size_t i = 0; i < record.totals.size(); ++i) {
    const MeasuredTotal& t = record.totals[i];
    const Nanos least = *std::min_element(t.samples_ns.begin(), t.samples_ns.end());
    double parts = 0;
    std::string names;
    for (const PhaseReading& p : record.phases) {
      // The exit comes after the synchronize a total ends at: no part of it.
      if (p.row != t.row || p.setting != t.setting || p.phase == Phase::process_exit) continue;
      parts += static_cast<double>(*std::min_element(p.samples_ns.begin(), p.samples_ns.end()));
      names += (names.empty() ? "" : ", ") + std::string(to_string(p.phase));
    }
    if (static_cast<double>(least) < parts) {
      r.fail(
          fmt::format("totals[{}].samples_ns: a total of {} ns, below the {} ns of its own "
                      "process's phases ({}) (altered record?)",
                      i, least, parts, names));
    }
    for (const MeasuredTotal& fewer : record.totals) {
      if (fewer.row != t.row || fewer.setting != t.setting || fewer.calls >= t.calls) continue;
      const Nanos below = *std::min_element(fewer.samples_ns.begin(), fewer.samples_ns.end());
      if (least < below) {
        r.fail(
            fmt::format("totals[{}].samples_ns: a total of {} calls of {} ns, below the {} ns "
                        "its processes took for {} calls (altered record?)",
                        i, t.calls, least, below, fewer.calls));
      }
    }
  }
}

// A shard's rows and failures are of its own cases; a complete shard's record accounts for each
// of them (a row or a failure), so a merge can tell a case that ran from one that never did. A
// shard ran in one process on one device: its rows are of one board.
void check_shard_rows(const Reader& r, const Record& record, bool complete) {
  if (!record.shard) return;
  const ShardPlan& plan = *record.shard;
  const DealtCases dealt(plan);
  std::vector<bool> seen(plan.cases.size(), false);
  const auto check = [&](const RowKey& row, const std::string& where) {
    // A plain index (GCC 12 takes an optional read after a noreturn branch for uninitialized).
    const std::size_t i = dealt.find(row).value_or(plan.cases.size());
    if (i == plan.cases.size()) {
      r.fail(where + ": " + case_label(row) +
             " is no case of the sweep this shard was dealt from (altered record?)");
    }
    const std::size_t in = plan.cases[i].shard;
    if (in != plan.shard.index) {
      r.fail(where + ": " + case_label(row) + " is a case of " + shard_label(in, plan.shard.count) +
             ", not of this record's " + shard_label(plan.shard.index, plan.shard.count) +
             " (altered record?)");
    }
    seen[i] = true;
  };
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    const Result& res = record.results[i];
    const std::string where = fmt::format("results[{}]", i);
    check(res.row, where);
    if (!same_board(res.board, record.results.front().board)) {
      r.fail(where + ": ran on " + board_label(res.board) + ", results[0] on " +
             board_label(record.results.front().board) +
             ": a shard runs in one process on one device (altered record?)");
    }
  }
  for (std::size_t i = 0; i < record.failures.size(); ++i) {
    check(record.failures[i].row, fmt::format("failures[{}]", i));
  }
  if (!complete) return;
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    const DealtCase& c = plan.cases[i];
    if (c.shard == plan.shard.index && !seen[i]) {
      r.fail("shard: " + case_label(c.row) + " is a case of this " +
             shard_label(plan.shard.index, plan.shard.count) +
             " with no row and no failure in a complete record (altered record?)");
    }
  }
}

// Each row holds only what its timing method and device measure, and iteration counts its run's
// budget gives (row_checks.hpp): a kernel count on a host-clock row, or a budget edited after the
// run, is refused, never shown. Version 1 kept no passes (read as one), so only its count of
// measured iterations is checked against its samples: written again, it must read back.
void check_rows_measurable(const Reader& r, const Record& record) {
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    const Result& x = record.results[i];
    if (const std::string why = unmeasurable_value(x, record.device); !why.empty()) {
      r.fail(
          fmt::format("results[{}] ({}) holds what its measurement cannot have measured: {} "
                      "(altered record?)",
                      i, record_text(row_label(x.row)), why));
    }
    if (const std::string why = iteration_count_problem(x, record.config); !why.empty()) {
      r.fail(
          fmt::format("results[{}] ({}): config holds a budget this row's run cannot have "
                      "used: {} (altered record?)",
                      i, record_text(row_label(x.row)), why));
    }
  }
}

// A CUPTI row with samples and no ledger (a ledger read has at least as many iterations as the
// row has samples).
bool cupti_row_without_ledger(const Result& row) {
  const Measurement& m = row.measurement;
  return m.method == TimingMethod::kernel_records && !m.samples.empty() && m.ledger.iterations == 0;
}

// B11: which rows need a ledger follows from how each was measured (its origin) and the record's
// version, each origin checked against the rest of the record; nothing a deviation says exempts a
// row. A CUPTI row of gpumeter's own measurement (version 8 on) proves collection was on by its
// canaries, which its ledger holds (read_ledger checks them): one with samples and no ledger proves
// nothing. A program's range has no ledger (gpumeter launches nothing in a program) and is only in
// a program's record or a merge of program runs; a row measured before ledgers has none either and
// is only in a record read from before version 9 (held as version 8).
void check_row_origins(const Reader& r, const Record& record, int version) {
  const bool programs = record.config.schedule == "program" || record.merged_programs;
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    const Result& row = record.results[i];
    const Measurement& m = row.measurement;
    const std::string where = fmt::format("results[{}] ({})", i, record_text(row_label(row.row)));
    const std::string_view origin = to_string(m.origin);
    switch (m.origin) {
      case RowOrigin::harness:
        if (record.program) {
          r.fail(
              fmt::format("{}: origin \"{}\" in the record of a program run, whose rows are "
                          "its ranges (altered record?)",
                          where, origin));
        }
        if (version >= 8 && cupti_row_without_ledger(row)) {
          r.fail(fmt::format(
              "{}: a CUPTI row with {} samples and no ledger: a device-timed row proves "
              "collection was on by its canaries, which its ledger holds (altered record?)",
              where, m.samples.size()));
        }
        break;
      case RowOrigin::program_range:
        if (!programs) {
          r.fail(fmt::format(
              "{}: origin \"{}\" in a record that is no program's (schedule {}) and merged no "
              "program runs (altered record?)",
              where, origin, record_text(record.config.schedule)));
        }
        if (m.method != TimingMethod::kernel_records) {
          r.fail(
              fmt::format("{}: origin \"{}\" timed by {}, where a program's ranges are read "
                          "from kernel records (altered record?)",
                          where, origin, to_string(m.method)));
        }
        break;
      case RowOrigin::before_ledgers:
        if (version >= kCalibratedIntervalsSince) {
          r.fail(fmt::format(
              "{}: origin \"{}\" in a record of schema_version {}: a row measured before ledgers "
              "is held in a record of schema version {} or earlier (altered record?)",
              where, origin, version, kCalibratedIntervalsSince - 1));
        }
        break;
    }
    if (m.origin != RowOrigin::harness && m.ledger != Ledger{}) {
      r.fail(
          fmt::format("{}: origin \"{}\" with a ledger, which such a row cannot have "
                      "(altered record?)",
                      where, origin));
    }
  }
}

}  // namespace record_read
}  // namespace gpumeter
