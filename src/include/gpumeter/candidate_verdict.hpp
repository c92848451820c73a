#pragma once
// The verdict on a candidate implementation against a reference (docs/evaluation.md), made from
// records only, outside the process the candidate ran in: `gpumeter evaluate` and anything else
// that judges candidates read it from here.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/detail/ledger.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

enum class Verdict {
  faster,         // the comparison says so, by the rule of its statistic
  slower,         //
  no_difference,  // no difference detected / none at the wall clock's resolution
  wrong,          // its answers differ from the reference's, or it changed its inputs
  refused,        // gpumeter cannot stand behind a time for it (its work moved or hidden)
  crashed,        // its process or its code failed
  timeout,        // killed at the evaluation's time limit
  tampered,       // it changed what the measurement or the reference runs
  not_measured,   // a cause not the candidate's
};
// "faster", "slower", "no difference", "wrong", "refused", "crashed", "timeout", "tampered",
// "not measured".
std::string_view to_string(Verdict verdict);

// What a comparison found, by the rule of its statistic: faster or slower where it claims a
// difference (the whole interval on one side of 0; the host clock's rule claiming one), else
// no_difference. The one reading of a comparison's direction for every front end (the sweep's
// reversed order, plot's colours, evaluate's verdict).
Verdict direction_of(const Comparison& c);

// Whose code raised an error: the candidate's, the evaluator's (the reference, the input
// generator, their imports) or gpumeter's own.
enum class Whose { candidate, evaluator, gpumeter };

// The verdict an error gives (error_class.hpp): the evaluator's errors are "not measured"; a wrong
// answer "wrong"; a refusal "refused"; the measurement's own means "not measured"; a failure of the
// candidate's code "crashed", and of gpumeter's (a bad argument) "not measured". A ConfigError
// raised against the candidate's own callable (one that made a generator or a coroutine) is
// "refused".
Verdict verdict_of_error(std::string_view error_name, Whose whose);

// The reference measured beside a candidate (in its process) reads slower than the reference
// measured alone (a process with no candidate code) when the interval of the difference lies
// wholly above this: a candidate that slowed the reference (a library function it calls,
// replaced with a slower one; a global flag) made itself look faster. Runs of one kernel in two
// fresh processes read within a small fraction of this (docs/measured-figures.md); the rest is
// room for a reference of many kernels.
inline constexpr double kReferenceSlowdownTolerance = 0.02;
// On the wall clock (host work) two processes of a loaded machine read far apart with nothing
// changed, more than any interval of one process says (docs/measured-figures.md, "Work outside the
// call"). There the reference is judged slowed only beyond this factor, by its medians and by the
// low end of the interval where there is one: a third above the largest such noise measured, and
// below the slowdowns of the reference that were tried against it (docs/evaluation.md).
inline constexpr double kHostReferenceSlowdownFactor = 2.0;

struct CandidateVerdict {
  Verdict verdict = Verdict::not_measured;
  bool correct = false;  // the run finished and every checked answer matched the reference's
  std::string why;       // the sentence behind the verdict
  std::string sentence;  // the device-time comparison's, as a report prints it
  // Reference time / candidate time; none where the host clock claims no difference but the
  // medians read beyond its floor (candidate_verdict.cpp, speedup_of).
  std::optional<double> speedup;
  // Its interval, at the comparison's confidence; none on the host clock's 1.5x rule.
  std::optional<std::pair<double, double>> interval;
  std::optional<std::size_t> checked_iterations;
  std::optional<Ledger> ledger;  // the candidate's
  // End to end: the synchronized wall clock's speed-up and its sentence, where measured.
  std::optional<double> end_to_end_speedup;
  // Device time's speed-up, kept where a candidate faster on the device is refused as slower end
  // to end (speedup is then empty): the two figures the refusal sets against each other.
  std::optional<double> device_speedup;
  std::string end_to_end_sentence;
  // The reference's median time alone and beside the candidate, where measured alone.
  std::optional<double> reference_alone_ns;
  std::optional<double> reference_beside_ns;
};

// What a verdict is made from: the record of the candidate's run (the reference and the candidate
// compared on fresh inputs), and, where measured, the reference alone (a record whose row named
// `reference` ran in a process without candidate code) and the same pair timed end to end (a
// record of the synchronized wall clock).
struct VerdictInputs {
  const Record* record = nullptr;
  std::string candidate;
  std::string reference = "reference";
  std::optional<std::string> case_name;  // nullopt: any case
  // Fail closed: a record that says no timed answer was checked cannot make a candidate correct.
  bool require_checks = true;
  const Record* reference_alone = nullptr;
  const Record* end_to_end = nullptr;
};

CandidateVerdict judge_candidate(const VerdictInputs& inputs);

// Tampered where the reference ran slower beside the candidate than alone (the record's reference
// row against the reference alone's): by the comparison's rule beyond kReferenceSlowdownTolerance
// (device time) or kHostReferenceSlowdownFactor (the wall clock), or, where the rule cannot set
// the two rows against each other, by their medians beyond the same threshold. nullopt otherwise,
// or without a reference alone. judge_candidate judges this first, and so does every verdict
// that would refuse a run's records (judge_evaluated_run): a slowed reference is tampering
// whatever else was refused (docs/evaluation.md, guarantee 13).
std::optional<CandidateVerdict> reference_slowed(const VerdictInputs& inputs);

// How a candidate's run under `gpumeter evaluate` (each candidate in a process of its own) ended
// where no record of it can be judged. Each end has one verdict, here, so every front end that
// runs candidates gives the same one: the candidate's own process or program failing is
// "crashed", gpumeter's runner failing is "not measured" (no candidate code is to blame).
enum class RunEnd {
  runner_not_started,      // gpumeter's process that runs the candidate could not start
  program_not_started,     // the candidate's own program could not start
  timed_out,               // killed at the evaluation's time limit
  ended_without_report,    // the candidate's process ended before it reported
  runner_left_no_record,   // gpumeter's runner reported success, yet left no single record
  program_left_no_record,  // the candidate's program did not leave exactly one record
  record_unreadable,       // the record it left is refused by the strict reader
  nothing_to_judge,        // its record holds no implementation besides the reference
  tampering_seen,          // it changed what the measurement, its checks or the reference run
  reference_alone_failed,  // the reference measured alone failed: no candidate ran there
};
inline constexpr RunEnd kRunEnds[] = {
    RunEnd::runner_not_started,    RunEnd::program_not_started,   RunEnd::timed_out,
    RunEnd::ended_without_report,  RunEnd::runner_left_no_record, RunEnd::program_left_no_record,
    RunEnd::record_unreadable,     RunEnd::nothing_to_judge,      RunEnd::tampering_seen,
    RunEnd::reference_alone_failed};
std::string_view to_string(RunEnd end);  // the enumerator's name

// The verdict of a run that ended so (never correct), with `why`, the front end's account of what
// happened (the command it could not start, the time limit, the end of the output), as its why.
CandidateVerdict verdict_of_run_end(RunEnd end, std::string why);

// Whether the verdict is a comparison's answer (faster, slower, no difference), which carries a
// speed-up and its sentence; every other verdict says instead why there is none.
bool verdict_compares(Verdict verdict);

// The verdict named so by to_string, or nullopt.
std::optional<Verdict> parse_verdict(std::string_view name);

// The exit code of an evaluation (exit_codes.hpp): kExitFailed when a candidate was not measured
// for a cause not its own (the evaluation could not answer for it), else kExitOk: every candidate
// has a verdict, wrong, crashed or tampered ones included (those are answers).
int evaluation_exit_code(const std::vector<Verdict>& verdicts);

// Every verdict, in the order of the enumeration: what a front end lists or validates against.
inline constexpr Verdict kVerdicts[] = {Verdict::faster,  Verdict::slower,   Verdict::no_difference,
                                        Verdict::wrong,   Verdict::refused,  Verdict::crashed,
                                        Verdict::timeout, Verdict::tampered, Verdict::not_measured};

}  // namespace gpumeter
