#pragma once
// One measurement of one call, and a comparison of several. The core drives every iteration; the
// backend only supplies device steps and a collector.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/call.hpp"
#include "gpumeter/detail/measurement.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/verdict.hpp"

namespace gpumeter {

// Lost records mean the iterations ran but their readings are gone; the whole phase is measured
// again, at most 3 times in all, the activity buffer 4x larger each time. A phase whose timestamp
// unit changed while it ran is repeated the same way.
inline constexpr int kMaxPhaseAttempts = 3;
inline constexpr int kBufferGrowthPerAttempt = 4;

struct MeasureOptions {
  Budget budget = kMeasureBudget;
  // Whether copies (memcpy, memset) count as device time: a case flag, the same for every
  // implementation of a case.
  bool count_copies = false;
  // The clock state of every measured sample (two NVML reads an iteration). The null test keeps
  // only the scaled times, so it reads none.
  bool read_clocks = true;
  // A later pass of a call already measured: the first pass's estimate of one call (ns, > 0).
  // The pass then runs no calibration phase of its own; its counts are those the first pass's
  // estimate gives, as the record's reader expects of every pass.
  std::optional<Nanos> estimate_ns = std::nullopt;
};

// Calibrate (3 runs; none when options.estimate_ns is given), then warm up and measure in one
// phase: one pass. A call or reset that throws anything but a
// gpumeter error gives UserCodeError naming the iteration and the step.
Measurement measure(Backend& backend, const Call& call, const MeasureOptions& options = {});

// Merges the passes of one implementation; throws MixedTimingMethods if their methods differ.
Measurement merge_passes(const std::vector<Measurement>& passes);

struct Implementation {
  Implementation() = default;
  Implementation(std::string implementation_name, Call the_call,
                 std::function<void()> verify_outputs = {},
                 std::function<void(int k)> scaled_work = {})
      : name(std::move(implementation_name)),
        call(std::move(the_call)),
        verify(std::move(verify_outputs)),
        scaled(std::move(scaled_work)) {}

  std::string name;
  Call call;
  // Checks the outputs of one untimed call against a reference; throws VerificationFailed
  // (anything else it throws fails the case as UserCodeError).
  std::function<void()> verify;
  // The null test hook: does k times the work of `call.run` (k = 1 is the call itself). When set,
  // compare() times k = kNullTestScale after the passes, and the row's null test is judged from it.
  // Empty: no null test.
  std::function<void(int k)> scaled;
};

// The null test (kNullTestScale in verdict.hpp) is timed with a small budget of its own: it checks
// that the time follows the work, which a few samples show, so it adds about a fifth of a row's
// budget rather than a second one.
inline constexpr Budget kNullTestBudget{5 * kMillisecond, 20 * kMillisecond, 3, 50};

// Times impl.scaled(kNullTestScale) (with impl's reset) and returns its samples' statistic.
NullTestSamples run_null_test(Backend& backend, const Implementation& impl, bool count_copies);

// One untimed call (after its reset), drained, then its outputs checked: what runs before anything
// of an implementation is timed. Throws VerificationFailed from `verify`, and UserCodeError naming
// the step when the reset, the call or the check throws anything else.
void verify_untimed(Backend& backend, const Implementation& impl);

// A front end's yardstick (host_clock.hpp): its name and the call that does its fixed work.
struct YardstickWork {
  std::string work;
  Call call;
};

struct CompareOptions {
  Budget budget = kMeasureBudget;  // the whole budget of one implementation; each pass gets half
  bool count_copies = false;
  // A fingerprint of the case's shared inputs; a change during the comparison is refused before
  // timing. Empty: not checked.
  std::function<std::size_t()> inputs_fingerprint;
  // Set: measure in rounds of A B C C B A until every comparison with the first implementation
  // can resolve `precision.relative`, or the time cap is reached (precision.hpp); `budget` is
  // then not used. Unset: two passes of half the budget each (device time), or three rounds of
  // them on the host clock, whose comparisons judge by the passes (host_clock.hpp).
  std::optional<PrecisionTarget> precision;
  // Set: on the host clock with a fixed budget, the yardstick's passes run interleaved with the
  // implementations' (A B Y Y B A), and each implementation's Measurement::yardstick holds its
  // level in each pass (host_clock.hpp). Ignored on device time and with a target precision.
  std::optional<YardstickWork> yardstick;
};

// The pass of a measurement run to a target precision: a quarter of the default budget. Its
// level averages at most 100 samples, as a default pass's does; precision then comes from the
// number of passes, which are the units that vary, so a pass is kept short.
inline constexpr Budget kPrecisionPassBudget{5 * kMillisecond, 25 * kMillisecond, 5, 100};

// Verifies every implementation (untimed), then measures them in A B C C B A order, two
// passes each (or rounds of that order until the target precision, when one is set), then runs the
// null test of each implementation that can scale, and returns one merged Measurement per
// implementation, in input order.
std::vector<Measurement> compare(Backend& backend, const std::vector<Implementation>& impls,
                                 const CompareOptions& options = {});

// One call measured in passes until its level's interval is within +-target.relative, or the
// time cap is reached (precision.hpp). The Measurement holds every pass and the outcome.
Measurement measure_to_precision(Backend& backend, const Call& call, const PrecisionTarget& target,
                                 bool count_copies = false);

}  // namespace gpumeter
