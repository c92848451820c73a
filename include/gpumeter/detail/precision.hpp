#pragma once
// Measuring until a comparison can answer: a target precision instead of a fixed budget.
// See docs/comparisons.md, "A target precision".
//
// A comparison with a target runs rounds of passes in the mirrored order (A B B A, then A B B A
// again, ...) and stops when the smallest difference it would detect has come down to the target,
// or when the time cap is reached. Whether it stops depends only on the width of what it can
// resolve, never on the direction or size of the estimate, so stopping early cannot make a
// difference appear. A single measurement with a target stops when its interval's half-width
// has come down to the target.
#include <optional>
#include <string>

#include "gpumeter/detail/duration.hpp"

namespace gpumeter {

struct PrecisionTarget {
  // The relative precision wanted: 0.01 asks a comparison to resolve a 1% difference, and a
  // single measurement to state its level within +-1%.
  double relative = 0;
  // The most time the measurement may take, its passes together (verification and null tests
  // come on top). Reached first, the measurement stops and says the target was not reached.
  Nanos max_time_ns = 10 * kSecond;
};

enum class StopReason {
  target_reached,  // the precision reached is at or below the target
  time_cap,        // another round would have passed max_time_ns
  pass_cap,        // kPrecisionMaxRounds rounds ran
};
std::string to_string(StopReason reason);  // "target_reached", "time_cap", "pass_cap"
std::optional<StopReason> parse_stop_reason(const std::string& text);

// What a measurement with a target did, as a record keeps it.
struct PrecisionOutcome {
  double target = 0;      // PrecisionTarget::relative
  Nanos max_time_ns = 0;  // PrecisionTarget::max_time_ns
  // For a comparison, the largest smallest-detectable difference over the case's comparisons;
  // for a single measurement, the relative half-width of its level's interval.
  double reached = 0;
  int passes = 0;  // per implementation
  StopReason stopped = StopReason::target_reached;
  Nanos elapsed_ns = 0;  // the passes' wall time

  bool target_met() const { return reached <= target; }
};

// The targets a user may ask for: tighter than 0.1% is below what a timestamp step lets any
// kernel under a millisecond resolve; looser than 50% asks nothing a default run does not give.
inline constexpr double kMinPrecisionTarget = 0.001;
inline constexpr double kMaxPrecisionTarget = 0.5;
// The cap must leave room for the first two rounds of even a slow kernel, and stay a bench run.
inline constexpr Nanos kMinPrecisionTime = 100 * kMillisecond;
inline constexpr Nanos kMaxPrecisionTime = 3600 * kSecond;

// Empty when valid; otherwise a sentence naming what is wrong, for the front end's ConfigError.
std::string precision_target_problem(const PrecisionTarget& target);

}  // namespace gpumeter
