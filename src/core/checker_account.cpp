#include "gpumeter/detail/checker_account.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpumeter {
namespace {

CandidateVerdict verdict(Verdict v, std::string why) {
  CandidateVerdict out;
  out.verdict = v;
  out.why = std::move(why);
  return out;
}

}  // namespace

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
