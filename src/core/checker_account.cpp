#include "gpumeter/checker_account.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpumeter {
namespace {

CandidateVerdict verdict(Verdict v, std::string why) {
  CandidateVerdict out;
  out.verdict = v;
  out.why = std::move(why);
  return out;
}

// Up to eight of `items`, joined, and " ..." where there were more: a sentence stays readable
// whatever a candidate left behind.
std::string first_eight(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 8; ++i) out += (i ? separator : "") + items[i];
  return items.size() > 8 ? out + " ..." : out;
}

// Each once, in the order first seen.
std::vector<std::string> once(std::vector<std::string> items) {
  std::vector<std::string> out;
  for (std::string& item : items) {
    bool seen = false;
    for (const std::string& kept : out) seen = seen || kept == item;
    if (!seen) out.push_back(std::move(item));
  }
  return out;
}

EvaluatedVerdict decided(CandidateVerdict v, RunSource source) {
  EvaluatedVerdict out;
  out.verdict = std::move(v);
  out.source = source;
  return out;
}

}  // namespace

std::string_view to_string(RunSource source) {
  switch (source) {
    case RunSource::channel:
      return "channel";
    case RunSource::process_end:
      return "process_end";
    case RunSource::tamper_check:
      return "tamper_check";
    case RunSource::checker:
      return "checker";
    case RunSource::error:
      return "error";
    case RunSource::records:
      return "records";
    case RunSource::judged:
      break;
  }
  return "judged";
}

EvaluatedVerdict judge_evaluated_run(const EvaluatedRun& run) {
  if (!run.channel_problems.empty()) {
    const std::vector<std::string> problems = once(run.channel_problems);
    std::string why = "on gpumeter's report channel: " + first_eight(problems, "; ");
    if (!run.reported_tampered.empty()) {
      why += "; and changed: " + first_eight(run.reported_tampered, ", ");
    }
    EvaluatedVerdict out =
        decided(verdict_of_run_end(RunEnd::tampering_seen, std::move(why)), RunSource::channel);
    out.tampered = problems;
    out.tampered.insert(out.tampered.end(), run.reported_tampered.begin(),
                        run.reported_tampered.end());
    return out;
  }
  static const std::vector<const Record*> kNoRecords;
  if (run.end) {
    EvaluatedVerdict out =
        decided(verdict_of_run_end(*run.end, run.end_why), RunSource::process_end);
    if (run.checker) {
      std::optional<CandidateVerdict> checked = judge_checker_account(*run.checker, kNoRecords);
      if (checked && checked->verdict != out.verdict.verdict) {
        out.process_end = run.end_why;
        out.verdict = std::move(*checked);
        out.source = RunSource::checker;
      }
    }
    return out;
  }
  std::vector<std::string> changed = run.reported_tampered;
  changed.insert(changed.end(), run.watched.begin(), run.watched.end());
  changed = once(std::move(changed));
  if (!changed.empty()) {
    EvaluatedVerdict out = decided(
        verdict_of_run_end(RunEnd::tampering_seen,
                           "changed what gpumeter's measurement, its checks or the reference "
                           "call or run under: " +
                               first_eight(changed, ", ")),
        RunSource::tamper_check);
    out.tampered = std::move(changed);
    return out;
  }
  if (run.checker) {
    if (std::optional<CandidateVerdict> checked = judge_checker_account(*run.checker, kNoRecords)) {
      EvaluatedVerdict out = decided(std::move(*checked), RunSource::checker);
      if (run.error && verdict_of_error(*run.error, Whose::gpumeter) == out.verdict.verdict) {
        out.verdict.why =
            run.error_why + " (checked by gpumeter's checker, a process no candidate code runs in)";
        out.error = *run.error;
      }
      return out;
    }
  }
  if (run.error) {
    CandidateVerdict v;
    v.verdict = verdict_of_error(*run.error, run.error_whose);
    v.why = run.error_why;
    EvaluatedVerdict out = decided(std::move(v), RunSource::error);
    out.error = *run.error;
    return out;
  }
  if (run.record_trouble != RecordTrouble::none) {
    // Where the front end found the records the report named: a miscount is gpumeter's runner's
    // (no record to judge), any other trouble is a record changed or put where it was not written.
    if (run.record_trouble == RecordTrouble::miscounted) {
      return decided(verdict_of_run_end(RunEnd::runner_left_no_record, run.record_trouble_why),
                     RunSource::records);
    }
    EvaluatedVerdict out = decided(
        verdict_of_run_end(RunEnd::tampering_seen, run.record_trouble_why), RunSource::records);
    out.tampered = {run.record_trouble_why};
    return out;
  }
  if (!run.record_unreadable.empty()) {
    return decided(verdict_of_run_end(RunEnd::record_unreadable,
                                      "its record cannot be read: " + run.record_unreadable),
                   RunSource::records);
  }
  if (run.judge.record == nullptr) return decided(CandidateVerdict{}, RunSource::judged);
  // A reference slowed beside the candidate is tampering before the checker's refusal of the
  // records: a run that also skipped its checks cannot hide the slowdown behind "did not see".
  if (std::optional<CandidateVerdict> slowed = reference_slowed(run.judge)) {
    return decided(std::move(*slowed), RunSource::judged);
  }
  if (run.checker) {
    const std::vector<const Record*> records = {run.judge.record, run.judge.end_to_end};
    if (std::optional<CandidateVerdict> checked = judge_checker_account(*run.checker, records)) {
      return decided(std::move(*checked), RunSource::checker);
    }
  }
  return decided(judge_candidate(run.judge), RunSource::judged);
}

std::optional<CandidateVerdict> judge_checker_account(const CheckerAccount& account,
                                                      const std::vector<const Record*>& records) {
  if (!account.problem.empty()) {
    return verdict(Verdict::tampered,
                   "on the channel to gpumeter's checker (the process that checks answers, where "
                   "no candidate code runs): " +
                       account.problem);
  }
  if (!account.mismatch.empty()) {
    return verdict(
        Verdict::wrong,
        "gpumeter's checker (a process no candidate code runs in) found " + account.mismatch);
  }
  std::map<std::string, std::size_t> checked;
  for (const auto& [name, n] : account.timed_checks) checked[name] += n;
  std::map<std::string, std::size_t> claimed;
  for (const Record* record : records) {
    if (record == nullptr) continue;
    for (const Result& r : record->results) {
      claimed[r.row.implementation] += r.measurement.ledger.checked_iterations;
    }
  }
  for (const auto& [name, n] : claimed) {
    const std::size_t seen = checked.count(name) != 0 ? checked.at(name) : 0;
    if (n > seen) {
      return verdict(Verdict::refused,
                     "a record of a run gpumeter's checker did not see: it says " +
                         std::to_string(n) + " timed answers of " + name +
                         " were checked, and the checker (where every answer is checked) checked " +
                         std::to_string(seen));
    }
  }
  return std::nullopt;
}

}  // namespace gpumeter
