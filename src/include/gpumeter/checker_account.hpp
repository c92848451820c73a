#pragma once
// What `gpumeter evaluate`'s checker saw of one run (docs/evaluation.md): the checker is a process
// that never imports a candidate; every checked answer of a run is sent there, with its call's
// seed, and checked against the reference run there. Its account, not the run's own process, says
// whether the answers were right, and whether the run's records claim checks it never made.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/candidate_verdict.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

struct CheckerAccount {
  // Answers of timed iterations the checker checked, per implementation; a record's ledger counts
  // only these (the untimed check before timing is not a timed iteration).
  std::vector<std::pair<std::string, std::size_t>> timed_checks;
  std::string mismatch;  // the first answer it found wrong, "" when none
  std::string problem;   // what came on its channel that gpumeter does not write, "" when none
};

// The verdict the checker's account gives a run before its records are judged, or nullopt when
// the records are to be judged as they are:
//   - tampered: bytes on the checker's channel that gpumeter does not write (a forged check, a
//     seed checked twice);
//   - wrong: an answer the checker found wrong, whatever the run's own process reported;
//   - refused: a record (of `records`, the run's) that says more timed iterations of an
//     implementation were checked than the checker checked: checks made where candidate code runs.
// A phase repeated after lost records is checked again but counted once in its record, so the
// checker may have checked more than a record says, never fewer.
std::optional<CandidateVerdict> judge_checker_account(const CheckerAccount& account,
                                                      const std::vector<const Record*>& records);

// What is wrong with the records a run's report named, found by the front end (which reads the
// files): a record outside the run's folder, unreadable or changed since gpumeter wrote it is
// tampering; a count other than one record (and at most one end-to-end record) is a runner that
// left no record to judge.
enum class RecordTrouble { none, elsewhere, unreadable, changed, miscounted };

// Everything a candidate's run under `gpumeter evaluate` left, each source as it came; the verdict
// is judged from them in one order (judge_evaluated_run).
struct EvaluatedRun {
  // What came on gpumeter's report channel that its compiled code did not send.
  std::vector<std::string> channel_problems;
  std::vector<std::string> reported_tampered;  // what the report's own tamper check names
  std::vector<std::string> watched;            // what the compiled capture found changed
  std::optional<CheckerAccount> checker;
  // Where the process ended without a report: how, and the front end's account of it.
  std::optional<RunEnd> end;
  std::string end_why;
  // Where the report says the run failed: the error's name, whose code raised it, and the front
  // end's sentence for it.
  std::optional<std::string> error;
  Whose error_whose = Whose::candidate;
  std::string error_why;
  RecordTrouble record_trouble = RecordTrouble::none;
  std::string record_trouble_why;
  // The strict reader's refusal of a named record, "" when they were read.
  std::string record_unreadable;
  // The records read (judge.record, judge.end_to_end) and what they are judged against; a run
  // with no record read and no other source deciding is judged by nothing (the verdict is
  // not_measured with an empty why: the caller's records stand).
  VerdictInputs judge;
};

// Which source decided.
enum class RunSource { channel, process_end, tamper_check, checker, error, records, judged };
std::string_view to_string(RunSource source);  // the enumerator's name

struct EvaluatedVerdict {
  CandidateVerdict verdict;
  RunSource source = RunSource::judged;
  std::vector<std::string> tampered;  // what is named as changed, where tampered
  std::string process_end;  // the process's own end, where the checker's verdict replaced it
  std::string error;        // the error's name, where the report's error is the verdict's
};

// The verdict of a run, from its sources in this order, each before the ones after:
//   1. the report channel: bytes gpumeter's compiled code did not send are tampering, whatever
//      the run did besides (the names its report found changed said beside);
//   2. the process's end without a report (over memory, time limit, no report), unless the
//      checker's account gives another verdict: a wrong answer it saw stands though the process
//      then crashed or hung;
//   3. what the run's tamper check found changed: tampered;
//   4. the checker's account (before anything the candidate's process said of its answers); where
//      the run's process reported an error of the same verdict, its sentence is kept (it names the
//      iteration: the checker counts answers, not iterations);
//   5. the error the run reported;
//   6. the records its report named: trouble with them (tampered or no record), the reader's
//      refusal, and then the checker's account against them (checks the checker never made);
//   7. the records judged (judge_candidate).
EvaluatedVerdict judge_evaluated_run(const EvaluatedRun& run);

}  // namespace gpumeter
