#include "gpumeter/detail/ledger.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "gpumeter/detail/format.hpp"

namespace gpumeter {

double check_probability(double mean_iteration_ns, double mean_check_ns) {
  if (mean_check_ns <= 0) return 1.0;  // no check timed yet: the first is drawn for sure
  const double share = kCheapCheckShare * mean_iteration_ns / mean_check_ns;
  return std::clamp(share, kLeastCheckShare, 1.0);
}

}  // namespace gpumeter

namespace gpumeter {
namespace {

struct PerOccurrence {
  double records = 0;
  double busy_ns = 0;
};

std::string us_text(double ns) {
  return format_significant(ns / 1000.0, 3) + " us";
}

// One role's figures per occurrence; nullopt when the role never ran.
std::optional<PerOccurrence> per_occurrence(std::size_t occurrences, std::size_t records,
                                            std::int64_t busy_ns) {
  if (occurrences == 0) return std::nullopt;
  const double n = static_cast<double>(occurrences);
  return PerOccurrence{static_cast<double>(records) / n, static_cast<double>(busy_ns) / n};
}

std::string judge_role(const std::optional<PerOccurrence>& reference,
                       const std::optional<PerOccurrence>& candidate, double candidate_call_ns,
                       std::int64_t tick_ns, const char* where, const char* per,
                       const std::string& reference_name, const std::string& candidate_name) {
  if (!reference || !candidate) return "";
  const double excess = candidate->busy_ns - reference->busy_ns;
  if (!(excess > kMovedWorkShare * candidate_call_ns)) return "";
  // Half a record: the means of two counts of one work differ by less unless some occurrence
  // did more.
  const bool more_records = candidate->records > reference->records + 0.5;
  const bool more_time =
      excess > kHarnessWorkNoise * reference->busy_ns + 2.0 * static_cast<double>(tick_ns);
  if (!more_records && !more_time) return "";
  return "work done while its " + std::string(where) + ": " + candidate_name + "'s " + per +
         " ran " + us_text(candidate->busy_ns) + " of device work (" +
         format_significant(candidate->records, 3) + " records) where " + reference_name +
         "'s ran " + us_text(reference->busy_ns) + " (" +
         format_significant(reference->records, 3) + " records): " + us_text(excess) + " more, " +
         format_significant(100.0 * excess / candidate_call_ns, 2) + "% of its own call (" +
         us_text(candidate_call_ns) +
         "). That work was done where it is not timed, so its time is not the work's; nothing "
         "is compared. The check and the inputs run only the reference, the generator and "
         "gpumeter's comparison: return the answer itself (a plain tensor or array), computed in "
         "the call";
}

}  // namespace

std::string moved_work(const Ledger& reference, const Ledger& candidate, double candidate_call_ns,
                       std::int64_t tick_ns, const std::string& reference_name,
                       const std::string& candidate_name) {
  if (!(candidate_call_ns > 0)) return "";
  const std::string inputs = judge_role(
      per_occurrence(reference.fresh_inputs, reference.inputs_records, reference.inputs_busy_ns),
      per_occurrence(candidate.fresh_inputs, candidate.inputs_records, candidate.inputs_busy_ns),
      candidate_call_ns, tick_ns, "inputs were made", "fresh inputs", reference_name,
      candidate_name);
  if (!inputs.empty()) return inputs;
  return judge_role(per_occurrence(reference.checked_iterations, reference.check_records,
                                   reference.check_busy_ns),
                    per_occurrence(candidate.checked_iterations, candidate.check_records,
                                   candidate.check_busy_ns),
                    candidate_call_ns, tick_ns, "answer was checked", "checks", reference_name,
                    candidate_name);
}

}  // namespace gpumeter
