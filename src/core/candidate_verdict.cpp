#include "gpumeter/candidate_verdict.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/error_class.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/exit_codes.hpp"

namespace gpumeter {
namespace {

bool in_case(const RowKey& row, const std::optional<std::string>& case_name) {
  return !case_name || row.case_name == *case_name;
}

const Result* row_named(const Record& record, const std::string& name,
                        const std::optional<std::string>& case_name) {
  for (const Result& r : record.results) {
    if (r.row.implementation == name && in_case(r.row, case_name)) return &r;
  }
  return nullptr;
}

const Failure* failure_of(const Record& record, const std::string& name,
                          const std::optional<std::string>& case_name) {
  for (const Failure& f : record.failures) {
    if (in_case(f.row, case_name) && (f.row.implementation == name || f.row.implementation.empty()))
      return &f;
  }
  return nullptr;
}

const Comparison* comparison_of(const Record& record, const std::string& reference,
                                const std::string& candidate,
                                const std::optional<std::string>& case_name) {
  for (const Comparison& c : record.comparisons) {
    if (c.baseline.implementation == reference && c.candidate.implementation == candidate &&
        in_case(c.candidate, case_name)) {
      return &c;
    }
  }
  return nullptr;
}

// Reference time / candidate time and its interval, by the rule the comparison was judged by.
void speedup_of(const Comparison& c, CandidateVerdict& v) {
  if (c.ratio) {
    // No number where the rule claimed nothing and the medians read beyond the floor it claims
    // from (the host clock's passes too spread to bound them): a verdict of no difference beside
    // "408x" contradicts itself, and whoever ranks by the speed-up would rank that 408x. The
    // ratio stays in the words ("took 0.0025x the time, by their medians").
    const RatioVerdict& r = *c.ratio;
    if (r.resolution != Resolution::directional_difference &&
        (r.speedup >= r.floor || r.speedup <= 1.0 / r.floor)) {
      return;
    }
    v.speedup = r.speedup;
    return;
  }
  if (!c.difference) return;
  const auto inverse = [](double x) -> std::optional<double> {
    if (!(x > -1.0)) return std::nullopt;
    return 1.0 / (1.0 + x);
  };
  v.speedup = inverse(c.difference->estimate);
  const std::optional<double> low = inverse(c.difference->high);
  const std::optional<double> high = inverse(c.difference->low);
  if (low && high) v.interval = std::make_pair(*low, *high);
}

}  // namespace

Verdict direction_of(const Comparison& c) {
  if (c.ratio) {
    if (c.ratio->resolution != Resolution::directional_difference) return Verdict::no_difference;
    return c.ratio->speedup > 1 ? Verdict::faster : Verdict::slower;
  }
  if (c.difference) {
    if (c.difference->faster()) return Verdict::faster;
    if (c.difference->slower()) return Verdict::slower;
  }
  return Verdict::no_difference;
}

namespace {

bool slower_end_to_end(const Comparison& c) {
  if (c.difference) return c.difference->slower();
  return c.ratio && c.ratio->resolution == Resolution::directional_difference &&
         c.ratio->speedup < 1;
}

CandidateVerdict ending(CandidateVerdict v, Verdict verdict, std::string why) {
  v.verdict = verdict;
  v.why = std::move(why);
  if (!verdict_compares(verdict)) {
    v.speedup.reset();
    v.interval.reset();
  }
  return v;
}

std::string us(double ns) {
  return format_significant(ns / 1000.0, 3) + " us";
}

// How much slower the reference ran beside the candidate than alone, beyond noise by the rule of
// the clock, as a sentence's middle ("2.2x slower beside the candidate (...) than in a process of
// its own (...)"), or "" when it did not (or the two cannot be compared). Device time by its
// interval; the wall clock, where two processes read 1.5x apart with nothing changed, only beyond
// kHostReferenceSlowdownFactor (by the medians, and by the interval's low end where there is one).
std::string reference_slowdown(const Result& alone, const Result& beside_row) {
  const Comparison beside = compare_rows(alone, beside_row);
  const double alone_ns = alone.summary.device_busy.median_ns;
  const double beside_ns = beside_row.summary.device_busy.median_ns;
  const std::string times =
      " beside the candidate (" + us(beside_ns) + ") than in a process of its own (" + us(alone_ns);
  if (!beside.compared()) {
    // Issue 50: rows the rule cannot set against each other (the candidate made the reference's
    // calls uneven, or its copies differ) still show a slowdown by their medians, against the
    // rule's own threshold (no interval here): a refusal must not hide a slowed reference. Two
    // statistics (CUPTI in one process, a fallback in the other) have no medians to set apart.
    if (!(alone_ns > 0) || !(beside_ns > 0) ||
        statistic_of(alone.measurement.method) != statistic_of(beside_row.measurement.method)) {
      return "";
    }
    const double factor = beside_ns / alone_ns;
    const bool wall = beside.rule == ComparisonRule::resolution;
    const double threshold = wall ? kHostReferenceSlowdownFactor : 1 + kReferenceSlowdownTolerance;
    if (factor <= threshold) return "";
    return format_significant(factor, 3) + "x slower" + times +
           "; the two rows cannot be compared by their rule (" + beside.refusal +
           "), and their medians are more than " + format_shortest(threshold) + "x apart)";
  }
  if (beside.rule == ComparisonRule::resolution) {
    const double factor = beside_ns / alone_ns;
    const bool beyond_interval =
        !beside.difference || beside.difference->low > kHostReferenceSlowdownFactor - 1;
    if (factor > kHostReferenceSlowdownFactor && beyond_interval) {
      return format_significant(factor, 3) + "x slower" + times + "; " +
             (beside.difference ? difference_words(*beside.difference).interval + ", " : "") +
             "rule: beyond " + format_shortest(kHostReferenceSlowdownFactor) +
             "x on the host clock)";
    }
    return "";
  }
  if (beside.difference && beside.difference->low > kReferenceSlowdownTolerance) {
    return difference_words(*beside.difference).change + times + "; " +
           difference_words(*beside.difference).interval + ")";
  }
  return "";
}

}  // namespace

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::no_difference:
      return "no difference";
    case Verdict::wrong:
      return "wrong";
    case Verdict::refused:
      return "refused";
    case Verdict::crashed:
      return "crashed";
    case Verdict::timeout:
      return "timeout";
    case Verdict::tampered:
      return "tampered";
    case Verdict::not_measured:
      return "not measured";
  }
  return "not measured";
}

Verdict verdict_of_error(std::string_view error_name, Whose whose) {
  if (whose == Whose::evaluator) return Verdict::not_measured;
  // The candidate's callable itself refused by its argument's name (it made a generator, a
  // coroutine or an awaitable, so a call did none of its work): no time to stand behind.
  if (whose == Whose::candidate && error_name == "ConfigError") return Verdict::refused;
  switch (error_class_of(error_name)) {
    case ErrorClass::wrong:
      return Verdict::wrong;
    case ErrorClass::refused:
      return Verdict::refused;
    case ErrorClass::not_measured:
      return Verdict::not_measured;
    case ErrorClass::failed:
      break;
  }
  // The candidate's own code failed; gpumeter's failures (a bad argument, a CUDA error outside the
  // call) are not the candidate's.
  return whose == Whose::candidate || error_name == "UserCodeError" ? Verdict::crashed
                                                                    : Verdict::not_measured;
}

bool verdict_compares(Verdict verdict) {
  return verdict == Verdict::faster || verdict == Verdict::slower ||
         verdict == Verdict::no_difference;
}

std::optional<Verdict> parse_verdict(std::string_view name) {
  for (const Verdict v : kVerdicts) {
    if (to_string(v) == name) return v;
  }
  return std::nullopt;
}

int evaluation_exit_code(const std::vector<Verdict>& verdicts) {
  const bool unanswered =
      std::find(verdicts.begin(), verdicts.end(), Verdict::not_measured) != verdicts.end();
  return unanswered ? kExitFailed : kExitOk;
}

std::string_view to_string(RunEnd end) {
  switch (end) {
    case RunEnd::runner_not_started:
      return "runner_not_started";
    case RunEnd::program_not_started:
      return "program_not_started";
    case RunEnd::timed_out:
      return "timed_out";
    case RunEnd::ended_without_report:
      return "ended_without_report";
    case RunEnd::runner_left_no_record:
      return "runner_left_no_record";
    case RunEnd::program_left_no_record:
      return "program_left_no_record";
    case RunEnd::record_unreadable:
      return "record_unreadable";
    case RunEnd::nothing_to_judge:
      return "nothing_to_judge";
    case RunEnd::tampering_seen:
      return "tampering_seen";
    case RunEnd::reference_alone_failed:
      return "reference_alone_failed";
  }
  return "runner_not_started";
}

CandidateVerdict verdict_of_run_end(RunEnd end, std::string why) {
  const Verdict verdict = [end] {
    switch (end) {
      // The candidate's program or process is its own code: its failure is the candidate's.
      case RunEnd::program_not_started:
      case RunEnd::ended_without_report:
      case RunEnd::program_left_no_record:
        return Verdict::crashed;
      case RunEnd::timed_out:
        return Verdict::timeout;
      // A record the strict reader refuses holds nothing gpumeter can stand behind.
      case RunEnd::record_unreadable:
        return Verdict::refused;
      case RunEnd::tampering_seen:
        return Verdict::tampered;
      // gpumeter's own runner, a record with no candidate in it, or the reference alone (no
      // candidate ran there): a cause not the candidate's.
      case RunEnd::runner_not_started:
      case RunEnd::runner_left_no_record:
      case RunEnd::nothing_to_judge:
      case RunEnd::reference_alone_failed:
        return Verdict::not_measured;
    }
    return Verdict::not_measured;
  }();
  CandidateVerdict v;
  return ending(v, verdict, std::move(why));
}

std::optional<CandidateVerdict> reference_slowed(const VerdictInputs& in) {
  if (in.record == nullptr || in.reference_alone == nullptr) return std::nullopt;
  const Result* reference = row_named(*in.record, in.reference, in.case_name);
  const Result* alone = row_named(*in.reference_alone, in.reference, std::nullopt);
  if (reference == nullptr || alone == nullptr) return std::nullopt;
  const std::string slowdown = reference_slowdown(*alone, *reference);
  if (slowdown.empty()) return std::nullopt;
  CandidateVerdict v;
  v.reference_alone_ns = alone->summary.device_busy.median_ns;
  v.reference_beside_ns = reference->summary.device_busy.median_ns;
  return ending(v, Verdict::tampered,
                "the reference ran " + slowdown +
                    ": the candidate changed what the reference runs (a library function or a "
                    "setting it uses), which makes the candidate look faster");
}

CandidateVerdict judge_candidate(const VerdictInputs& in) {
  CandidateVerdict v;
  if (in.record == nullptr) return ending(v, Verdict::not_measured, "no record to judge");
  const Record& record = *in.record;
  if (const Failure* f = failure_of(record, in.reference, in.case_name);
      f != nullptr && !f->row.implementation.empty()) {
    return ending(v, Verdict::not_measured,
                  "the reference failed (not the candidate): " + f->error + ": " + f->message);
  }
  const Result* reference = row_named(record, in.reference, in.case_name);
  // B11: a reference slowed beside the candidate is tampering whatever else the record says:
  // judged first, so a candidate that also moved its work, failed or was refused cannot hide it
  // behind a lesser verdict.
  if (std::optional<CandidateVerdict> slowed = reference_slowed(in)) return std::move(*slowed);
  const Result* alone = in.reference_alone != nullptr
                            ? row_named(*in.reference_alone, in.reference, std::nullopt)
                            : nullptr;
  if (reference != nullptr && alone != nullptr) {
    v.reference_alone_ns = alone->summary.device_busy.median_ns;
    v.reference_beside_ns = reference->summary.device_busy.median_ns;
  }
  if (const Failure* f = failure_of(record, in.candidate, in.case_name)) {
    return ending(v, verdict_of_error(f->error, Whose::gpumeter), f->error + ": " + f->message);
  }
  const Result* candidate = row_named(record, in.candidate, in.case_name);
  if (reference == nullptr)
    return ending(v, Verdict::not_measured, "the record has no row named " + in.reference);
  if (candidate == nullptr)
    return ending(v, Verdict::not_measured, "the record has no row named " + in.candidate);
  const Ledger& ledger = candidate->measurement.ledger;
  if (ledger.iterations > 0) {
    v.ledger = ledger;
    v.checked_iterations = ledger.checked_iterations;
  }
  if (in.require_checks && v.checked_iterations.value_or(0) == 0) {
    return ending(v, Verdict::not_measured,
                  "the record says no timed iteration of the candidate was checked (a gpumeter "
                  "without fresh inputs and checks?)");
  }
  v.correct = true;
  const Comparison* c = comparison_of(record, in.reference, in.candidate, in.case_name);
  if (c == nullptr) {
    return ending(v, Verdict::refused,
                  "the record holds no comparison of " + in.candidate + " with " + in.reference);
  }
  v.sentence = describe(*c);
  if (!c->compared()) return ending(v, Verdict::refused, c->refusal);
  speedup_of(*c, v);
  const Verdict direction = direction_of(*c);

  // B11: the reference out of the candidate's reach, measured where no candidate code ran (its
  // slowdown judged above).
  if (in.reference_alone != nullptr) {
    if (alone == nullptr) {
      return ending(v, Verdict::not_measured,
                    "the reference measured alone left no row named " + in.reference);
    }
    const std::int64_t tick =
        std::max(alone->measurement.timestamp_tick_ns, candidate->measurement.timestamp_tick_ns);
    const std::string moved =
        moved_work(alone->measurement.ledger, ledger, candidate->summary.device_busy.median_ns,
                   tick, in.reference + " alone", in.candidate);
    if (!moved.empty()) return ending(v, Verdict::refused, moved);
    const Comparison beside = compare_rows(*alone, *reference);
    if (!beside.compared()) {
      return ending(
          v, Verdict::not_measured,
          "the reference alone and beside the candidate could not be compared: " + beside.refusal);
    }
  }

  // B11: end to end beside device time: work gpumeter does not see still takes the caller's time.
  if (in.end_to_end != nullptr && direction == Verdict::faster) {
    if (const Failure* f = failure_of(*in.end_to_end, in.candidate, in.case_name)) {
      return ending(v, verdict_of_error(f->error, Whose::gpumeter),
                    "end to end: " + f->error + ": " + f->message);
    }
    const Comparison* e = comparison_of(*in.end_to_end, in.reference, in.candidate, in.case_name);
    if (e == nullptr || !e->compared()) {
      return ending(v, Verdict::refused,
                    "faster on the device, and its end-to-end time could not be compared: " +
                        (e == nullptr ? std::string("no comparison") : e->refusal));
    }
    v.end_to_end_sentence = describe(*e);
    CandidateVerdict wall;
    speedup_of(*e, wall);
    v.end_to_end_speedup = wall.speedup;
    if (slower_end_to_end(*e)) {
      v.device_speedup = v.speedup;  // both figures stay beside the refusal
      return ending(v, Verdict::refused,
                    "faster on the device, slower end to end: work gpumeter does not see (another "
                    "process, the host) takes the caller's time. Device time: " +
                        v.sentence + ". End to end: " + v.end_to_end_sentence);
    }
  }
  return ending(v, direction, v.sentence);
}

}  // namespace gpumeter
