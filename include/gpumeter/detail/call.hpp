#pragma once
// The work under measurement, as every measurement takes it.
#include <cstdint>
#include <functional>
#include <utility>

namespace gpumeter {

// `run` enqueues (or does) one call; `reset` restores private inputs the call overwrites. The reset
// runs before the cache is cleared and is never timed, so work that changes its own inputs is timed
// on fresh inputs every iteration.
//
// Against a call that does not do its work (docs/evaluation.md), two more hooks:
//   - `prepare(seed)` makes fresh inputs before every call, untimed, under the prepare label, with
//     a seed drawn from the OS's random source for each call: an answer remembered from an earlier
//     call (by pointer or by content) is then the answer to other inputs. It must be a pure
//     function of the seed, so the check below can rebuild the same inputs.
//   - `check(seed)` checks the answer of the call just made on the inputs of `seed` (the reference
//     computed on prepare(seed)'s inputs), after the call returned and the device drained, untimed,
//     under the prepare label; it throws VerificationFailed for a wrong answer. The driver chooses
//     which iterations are checked only after each call has returned (ledger.hpp).
struct Call {
  Call() = default;
  Call(std::function<void()> run_call, std::function<void()> reset_inputs = {},
       std::function<void(std::uint64_t)> fresh_inputs = {},
       std::function<void(std::uint64_t)> check_answer = {})
      : run(std::move(run_call)),
        reset(std::move(reset_inputs)),
        prepare(std::move(fresh_inputs)),
        check(std::move(check_answer)) {}

  std::function<void()> run;
  std::function<void()> reset;                      // may be empty
  std::function<void(std::uint64_t seed)> prepare;  // may be empty: inputs are not renewed
  std::function<void(std::uint64_t seed)> check;    // may be empty: answers checked once, untimed
};

}  // namespace gpumeter
