#pragma once
// Whether a backend's timestamps were nanoseconds, checked against the device's own clock
// (docs/rules.md, "the unit of every reading"). Another CUPTI client in the process can register a
// timestamp clock of its own (PyTorch's profiler registers the CPU's TSC), and CUPTI then converts
// every GPU timestamp into it, for every client: each reading would be too long by the TSC's ticks
// per ns, silently (docs/measured-figures.md, "timestamp units"). So every CUPTI phase also times
// probe kernels that stamp their own start and end with the GPU's %globaltimer, and the phase is
// kept only when CUPTI's reading of them agrees.
#include <cstddef>
#include <optional>

namespace gpumeter {

// One phase's finding: the backend's timestamps were `scale` units per ns; `converted` when they
// were not nanoseconds and the phase's readings were converted by the measured scale.
struct TimestampUnit {
  double scale = 1.0;
  bool converted = false;
};

// A measurement's phases together (calibration, warm-up, measured; a comparison's passes).
struct TimestampCheck {
  std::size_t phases = 0;     // phases whose timestamps were checked
  std::size_t converted = 0;  // of those, phases converted from another unit
  // The scales of the converted phases (both 1 when none was converted).
  double min_scale = 1.0;
  double max_scale = 1.0;

  void add(const TimestampUnit& phase);
  void add(const TimestampCheck& other);
};

// The check of `b` folded into `a`; nullopt stays nullopt only when both are (a backend whose
// timestamps need no check: CUDA events, the host clock).
std::optional<TimestampCheck> combine(const std::optional<TimestampCheck>& a,
                                      const std::optional<TimestampCheck>& b);

}  // namespace gpumeter
