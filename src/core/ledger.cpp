#include "gpumeter/ledger.hpp"

#include <algorithm>

namespace gpumeter {

double check_probability(double mean_iteration_ns, double mean_check_ns) {
  if (mean_check_ns <= 0) return 1.0;  // no check timed yet: the first is drawn for sure
  const double share = kCheapCheckShare * mean_iteration_ns / mean_check_ns;
  return std::clamp(share, kLeastCheckShare, 1.0);
}

}  // namespace gpumeter
