#pragma once
// The work under measurement, as every measurement takes it.
#include <functional>

namespace gpumeter {

// `run` enqueues (or does) one call; `reset` restores private inputs the call overwrites. The reset
// runs before the cache is cleared and is never timed, so work that changes its own inputs is timed
// on fresh inputs every iteration.
struct Call {
  std::function<void()> run;
  std::function<void()> reset;  // may be empty
};

}  // namespace gpumeter
