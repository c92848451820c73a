#pragma once
// What `gpumeter evaluate`'s checker saw of one run (docs/evaluation.md): the checker is a process
// that never imports a candidate; every checked answer of a run is sent there, with its call's
// seed, and checked against the reference run there. Its account, not the run's own process, says
// whether the answers were right, and whether the run's records claim checks it never made.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/detail/candidate_verdict.hpp"
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

}  // namespace gpumeter
