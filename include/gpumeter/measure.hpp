#pragma once
// One measurement of one call, and a comparison of several (T1, T4, T6, T9, T10). The
// core drives every iteration; the backend only supplies device steps and a collector.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gpumeter/backend.hpp"
#include "gpumeter/calibration.hpp"
#include "gpumeter/measurement.hpp"

namespace gpumeter {

// The kernel-timing method (docs/rules.md): lost records mean the iterations ran but their readings
// are gone; the whole phase is measured again, at most 3 times in all, the activity buffer 4x
// larger each time.
inline constexpr int kMaxPhaseAttempts = 3;
inline constexpr int kBufferGrowthPerAttempt = 4;

struct MeasureOptions {
  Budget budget = kMeasureBudget;
  bool count_copies = false;  // T7: a case flag, the same for every implementation of a case
};

// Calibrate (3 runs), warm up, measure: one pass.
Measurement measure(Backend& backend, const Call& call, const MeasureOptions& options = {});

// Merges the passes of one implementation; throws MixedTimingMethods if their methods differ.
Measurement merge_passes(const std::vector<Measurement>& passes);

struct Implementation {
  std::string name;
  Call call;
  // Checks the outputs of one untimed call against a reference; throws VerificationFailed.
  std::function<void()> verify;
};

// One untimed call (after its reset), drained, then its outputs checked (T10): what runs
// before anything of an implementation is timed. Throws VerificationFailed from `verify`.
void verify_untimed(Backend& backend, const Implementation& impl);

struct CompareOptions {
  Budget budget = kMeasureBudget;  // the whole budget of one implementation; each pass gets half
  bool count_copies = false;
  // A fingerprint of the case's shared inputs; a change during the comparison is refused
  // before timing (T10). Empty: not checked.
  std::function<std::size_t()> inputs_fingerprint;
};

// Verifies every implementation (untimed), then measures them in A B C C B A order, two
// passes each, and returns one merged Measurement per implementation, in input order.
std::vector<Measurement> compare(Backend& backend, const std::vector<Implementation>& impls,
                                 const CompareOptions& options = {});

}  // namespace gpumeter
