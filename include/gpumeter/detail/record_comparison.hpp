#pragma once
// Two records row by row: every row of a new record against the same row (case, params,
// implementation) of a baseline record, by the rule of its statistic, and everything the two could
// not be set against each other for: rows on one side only and why, cases that failed, partial
// records. `gpumeter compare` renders it and gates CI on it; a gate that cannot see a row it guards
// fails, it does not pass by accident.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/number_rule.hpp"
#include "gpumeter/detail/option_meaning.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

enum class RecordSide { base, next };
std::string_view to_string(RecordSide side);  // "base", "new"

// A row of both records, and how the new one compares with the base one.
struct RowPair {
  const Result* base = nullptr;
  const Result* next = nullptr;
  Comparison comparison;
};

// A row one record holds and the other does not, and what the other says of it.
struct MissingRow {
  RowKey row;
  RecordSide missing_from = RecordSide::next;
  // The other record's failure for the row or its whole case (a skip included), or nullptr.
  const Failure* failure = nullptr;
  // The other record is partial: the row may not have run yet.
  bool record_partial = false;
};

// A case a record could not measure, skips aside.
struct SideFailure {
  RecordSide side = RecordSide::next;
  const Failure* failure = nullptr;
};

struct RecordComparison {
  std::vector<RowPair> pairs;         // in the new record's order
  std::vector<MissingRow> missing;    // the base's rows missing from new, then new's from base
  std::vector<SideFailure> failures;  // every failure but a skip: the base's, then new's
  // What a partial record says of itself (partial_record_note(), less its mark: "the run had
  // finished 2 of 6 cases when..."); "" for a complete record.
  std::string base_partial;
  std::string next_partial;
};

// Pairs every row of `next` with the same row of `base` and compares them by the rule of their
// statistic (compare_rows), as inside one record: device time by the relative difference with its
// interval, wall clock by the host-clock rule (host_clock.hpp: the 1.5x floor, the passes'
// interval and the means together). Across two records a wall-clock row gets no finer
// statement from its passes than that rule's: the passes of two runs were not interleaved (A B B
// A), so a drift between the runs would read as a difference (two identical host runs read "-3.7%
// [-4.8%, -2.6%]"). The result points into `base` and `next`, which must outlive it.
RecordComparison compare_records(const Record& base, const Record& next);

// One row of a run against the same row of another run, as compare_records judges each pair (and
// a history each point against the one before it): compare_rows, less a wall-clock row's finer
// statement, which passes of two runs cannot support (above).
Comparison compare_across_runs(const Result& base, const Result& next);

// Why a row is on one side only: what the other record says of it ("crashed: the case's process
// was killed by signal 11 (in new)", "skipped: needs bf16 (in new)"), else "not in new, whose
// record is partial (its run stopped before the end)", or "not in new".
std::string describe(const MissingRow& missing);

// The change over the rows judged by the relative difference (device time; a wall-clock row's finer
// figures are not stood behind): the geometric mean of new / base less one, and how many rows were
// found slower, faster, or with no difference detected. The mean is a summary, not a finding: it
// claims no direction of its own.
struct ChangeSummary {
  double geometric_mean = 0;
  int rows = 0;
  int slower = 0;
  int faster = 0;
  int undetected = 0;
};
std::optional<ChangeSummary> summarize_changes(const RecordComparison& comparison);
// "Geometric mean of new / base over 3 device-time row(s): +4.9%; by row: 1 slower, 2 with no
// difference detected" ("no row differs" when none was found slower or faster).
std::string describe(const ChangeSummary& summary);

// The CI gate (`--fail-on-regression FRACTION`).
struct GateOptions {
  double threshold = 0;        // a fraction: 0.05 for 5%
  bool allow_missing = false;  // --allow-missing: what the gate cannot see does not fail it
};

// The gate's threshold, a fraction read by the one fraction rule (number_rule.hpp) wherever it is
// written (`gpumeter compare --fail-on-regression`, the pytest plugin's
// `--gpumeter-fail-on-regression`): "10%" or "0.1", a bare 10 refused with both spellings named.
// From 0, which fails any slowdown an interval resolves, to 100 (10000%): a gate that lets a
// 101-fold slowdown pass gates nothing a user means, so a larger threshold ("1e300", a typo) is
// refused rather than read as "never fail".
inline constexpr NumberRule kGateThresholdRule{0, false, 100, false, "", NumberKind::fraction};
// The gate: `gpumeter compare --fail-on-regression`, the pytest plugin's
// --gpumeter-fail-on-regression: one meaning, one rule (gate_options, below).
inline constexpr OptionMeaning kGateThresholdOption{
    true,
    "Fail when a row is slower than the baseline by more than this fraction (10% or 0.1), with "
    "the confidence of its interval, or when a row is missing from either side, a case failed, a "
    "record is partial or no row is in both (compare exits 1; pytest fails the test)",
    &kGateThresholdRule};
// What the gate lets pass when asked (gate_options' allow_missing; it needs the threshold).
inline constexpr OptionMeaning kAllowMissingOption{
    false,
    "With the regression gate: let rows missing from either side, failed cases, partial records "
    "and no row in common pass it (the output still names them)"};
// The gate as a front end asks it, by a threshold (a fraction, already read from its text by
// kGateThresholdRule) and allow_missing: none without a threshold. A threshold outside the rule
// would judge nothing or everything, so it is refused by a ConfigError naming `option`, the front
// end's name of it: "--fail-on-regression must be a fraction from 0% to 10000% (0 to 100), got
// -0.05". allow_missing without a threshold lets pass a gate that is not there: refused too,
// naming `allow_missing_option` and `option`, so no front end keeps a rule of its own for it.
std::optional<GateOptions> gate_options(std::optional<double> threshold, bool allow_missing,
                                        std::string_view option,
                                        std::string_view allow_missing_option);
// The threshold as the reports and the pytest plugin show it: "5%", "200%".
std::string gate_threshold_text(double threshold);

// A row slower than base by more than `threshold`, by the rule of its statistic: device time
// when its whole interval lies above it (the low end > threshold); wall clock when the host-clock
// rule calls it slower (a directional difference) by a factor above 1 + threshold.
bool is_regression(const Comparison& comparison, double threshold);

// Which way a comparison says the candidate moved, by the rule of its statistic: device time when
// its whole interval lies on one side of zero; wall clock when the host-clock rule calls it a
// directional difference. `none` for a refused comparison and for no difference found.
enum class Movement { none, slower, faster };
std::string_view to_string(Movement movement);  // "none", "slower", "faster"
Movement movement_of(const Comparison& comparison);

struct GateOutcome {
  std::vector<const RowPair*> regressions;
  // What the gate could not see, one sentence each: rows missing from either side, cases that
  // failed on either side, a partial record, no row in common. Each fails the gate unless
  // allow_missing.
  std::vector<std::string> unseen;
  // What the gate sees less finely, one sentence each (wall-clock rows under 1.5x).
  std::vector<std::string> notes;
  bool passed = true;
};
GateOutcome judge_gate(const RecordComparison& comparison, const GateOptions& options);

// What two records compared conclude, the gate's outcome included where there is a gate: one
// judgement for `gpumeter compare` and the pytest plugin's gate, so both say the same.
struct CompareConclusion {
  // exit_codes.hpp: kExitOk; kExitFailed when the gate failed; kExitUsage when a row could not be
  // compared (another statistic or timing method, a failed null test...), which is no pass.
  int exit_code = 0;
  std::string why;  // one line when exit_code is not kExitOk: "the gate failed: 1 regression(s)"
  std::vector<std::string> regressions;  // beyond the gate, each "row: its words"
  std::vector<std::string> notes;        // what the gate sees less finely
  // The gate as asked and judged (judge_gate, once), for the report to state: unset without one.
  std::optional<GateOptions> gate;
  std::vector<std::string> unseen;  // GateOutcome::unseen
  // Whether the gate, where one was asked, passed its own judgement (kExitFailed is its failure
  // alone; a row that could not be compared is kExitUsage).
  bool gate_passed() const { return !gate.has_value() || exit_code != kExitFailed; }
  // Whether a gate was asked and the records did not pass it: a regression, what it could not
  // see, or a row that could not be compared (no pass, with a gate or without).
  bool gate_fails() const { return gate.has_value() && exit_code != kExitOk; }
};
CompareConclusion conclude(const RecordComparison& comparison,
                           const std::optional<GateOptions>& gate);
// The conclusion where there is nothing to compare, by the same rules as conclude(): the baseline
// holds no record of the row (`what` says so), which the gate cannot see, so it fails the gate
// unless allow_missing; or a record cannot be read (`why`), which is no pass, with a gate or
// without.
CompareConclusion conclude_missing(const std::optional<GateOptions>& gate, const std::string& what);
CompareConclusion conclude_unreadable(const std::optional<GateOptions>& gate,
                                      const std::string& why);

}  // namespace gpumeter
