#pragma once
// The ledger of a measurement (docs/evaluation.md): what every activity record of its phases was,
// and what proves collection was on while it ran. A row with numbers has no unaccounted record and
// every canary.
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpumeter {

struct Ledger {
  std::size_t iteration_records = 0;  // activity records attributed to an iteration (the samples)
  // gpumeter's own work: resets, fresh inputs, L2 flushes, clock probes, canaries, answer checks.
  std::size_t harness_records = 0;
  // Records that are neither: always 0 where numbers were reported (refused, by name, as work
  // launched from another thread).
  std::size_t unaccounted_records = 0;
  // Canaries: a kernel of gpumeter's before every iteration and after the last, whose records
  // prove that collection was on around every call. Both 0 for a backend without canaries.
  std::size_t canaries_launched = 0;
  std::size_t canaries_seen = 0;
  std::size_t iterations = 0;          // every iteration of every phase (calibration included)
  std::size_t fresh_inputs = 0;        // iterations given fresh inputs (Call::prepare)
  std::size_t checked_iterations = 0;  // iterations whose answer was checked (Call::check)
  // The harness's work by role (a part of harness_records): the records under each label and the
  // device time they took (the union of their intervals in each phase, summed over the phases).
  // What making fresh inputs and checking answers cost the device: work a call moves into them
  // shows as more than the reference's (moved_work below).
  std::size_t inputs_records = 0;
  std::int64_t inputs_busy_ns = 0;
  std::size_t reset_records = 0;
  std::int64_t reset_busy_ns = 0;
  std::size_t check_records = 0;
  std::int64_t check_busy_ns = 0;

  Ledger& operator+=(const Ledger& other) {
    iteration_records += other.iteration_records;
    harness_records += other.harness_records;
    unaccounted_records += other.unaccounted_records;
    canaries_launched += other.canaries_launched;
    canaries_seen += other.canaries_seen;
    iterations += other.iterations;
    fresh_inputs += other.fresh_inputs;
    checked_iterations += other.checked_iterations;
    inputs_records += other.inputs_records;
    inputs_busy_ns += other.inputs_busy_ns;
    reset_records += other.reset_records;
    reset_busy_ns += other.reset_busy_ns;
    check_records += other.check_records;
    check_busy_ns += other.check_busy_ns;
    return *this;
  }
  bool operator==(const Ledger&) const = default;
};

// Which iterations have their answer checked (Call::check). Every iteration while a check costs at
// most kCheapCheckShare of an iteration's own wall time; else each iteration with probability
// kCheapCheckShare * iteration / check (at least kLeastCheckShare), drawn after the call returned,
// so a call cannot know whether its answer will be looked at. A phase whose draws chose none checks
// its last iteration. Half the iteration's time: checks at most make a measurement 1.5x longer when
// they are expensive, and cost nothing to sampling when they are cheap.
inline constexpr double kCheapCheckShare = 0.5;
// At 1/16, a call that answers wrongly in every iteration of a 100-iteration phase goes unseen with
// probability (15/16)^100, about 0.16%, in each phase; a measurement has three phases.
inline constexpr double kLeastCheckShare = 1.0 / 16;

// The probability of checking the next iteration, from the mean wall time of an iteration and of a
// check seen so far in the phase (0 before the first check: check it).
double check_probability(double mean_iteration_ns, double mean_check_ns);

// Work a call moved out of its timed window into the harness's work that follows or precedes
// it. The reference's fresh inputs and checks are made by the same generator, reference and
// comparison as a candidate's, so per fresh input and per check the candidate's device work
// should be the reference's; a candidate whose inputs or checks do more did that work where it is
// not timed (an answer computed lazily when the check reads it; a library function the generator
// or the check calls, replaced). It is moved work when, per occurrence, it is more than
// kMovedWorkShare of the candidate's own median call and beyond what the same work varies by:
// more records than the reference's, or more device time by over kHarnessWorkNoise of the
// reference's and two clock steps.
inline constexpr double kMovedWorkShare = 0.05;
inline constexpr double kHarnessWorkNoise = 0.10;
// Why the candidate's ledger shows moved work ("work done while its answer was checked: ..."), or
// "" when it does not (or when either side has no fresh inputs or no checks to judge by).
// `candidate_call_ns` is the candidate's median call; `tick_ns` the clock's step.
std::string moved_work(const Ledger& reference, const Ledger& candidate, double candidate_call_ns,
                       std::int64_t tick_ns, const std::string& reference_name,
                       const std::string& candidate_name);

}  // namespace gpumeter
