#pragma once
// Runs cases (several implementations of one operation) and turns them into a Record: the
// composition every front end shares (benchmark executables, the example, Python later).
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timestamp_check.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

struct Case {
  std::string name;
  Params params;
  Workload workload;          // per call, for TFLOP/s and TB/s
  bool count_copies = false;  // copies count as device time; one flag for the whole case
  std::vector<Implementation> implementations;
  std::function<std::size_t()>
      inputs_fingerprint;  // inputs unchanged by the calls; empty: not checked
  // The tolerances the implementations' checks hold answers to, stated on the row of each
  // implementation with a check (Result::answer_check); nullopt where the checks are not
  // gpumeter's tolerance check (the user's own, or none). Refused by the runner when
  // tolerance_problem finds them unusable.
  std::optional<AnswerCheck> answer_check;
  // The front end's yardstick for host-clock rows (CompareOptions::yardstick); nullopt: none.
  std::optional<YardstickWork> yardstick;
};

struct RunOptions {
  Budget budget = kMeasureBudget;
  // Set: every case measures until its comparisons (or a lone implementation's level) reach
  // this precision, or its time cap; `budget` is then not used (precision.hpp).
  std::optional<PrecisionTarget> precision;
  std::vector<std::string> argv;
  Ceilings ceilings;
  std::vector<std::string> deviations;  // from the front end (e.g. "no GPU: host backend")
  // The run measures one case in a process of its own (--isolate): its memory figures are its
  // alone.
  bool own_process = false;
  // Called after each case, for progress on long sweeps.
  std::function<void(const Case&, std::size_t done, std::size_t total)> progress;
};

// Every case runs A B C C B A (docs/rules.md, "the A B C C B A order"), a lone implementation A A,
// so each row has two passes. A case that fails with a gpumeter::Error (UserCodeError for whatever
// the case's own code threw) produces no number: the record lists it under failures, with the
// error, and the other cases still run.
Record run_cases(Backend& backend, const std::vector<Case>& cases, const RunOptions& options);

// The pieces run_cases is made of, for a front end that keeps its record with a RunRecorder
// (run_recorder.hpp) as its cases run.

// The header of the run's record (host, device and its state, commit, configuration, launch
// cost, deviations; no rows): read once per run, before the first case.
Record run_header(Backend& backend, const RunOptions& options);

// What the run's cases found about the measurement itself, said once for the run.
struct RunFindings {
  TimestampCheck clocks;          // the timestamp-unit checks of every result's phases together
  bool unproven_counter = false;  // a result whose dropped-record counter was not proven live
  std::vector<std::string> deviations() const;
};

// One case's rows, not yet summarized (whoever keeps the record summarizes them once, with the
// run's ceilings), or the failure that left it none.
struct CaseOutcome {
  std::vector<Result> results;
  std::vector<Failure> failures;
};
CaseOutcome run_case(Backend& backend, const Case& c, const RunOptions& options,
                     RunFindings& findings);

}  // namespace gpumeter
