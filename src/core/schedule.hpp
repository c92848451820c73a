#pragma once
// The A B C C B A order of a comparison (T9). Internal to the core and its tests.
#include <cstddef>
#include <vector>

namespace gpumeter {

struct PassSlot {
  std::size_t implementation;
  int pass;  // 0 (first half of the run) or 1 (second half)
};

// The kernel-timing method (docs/rules.md): in a fixed order, the implementation run first sees
// other clocks and temperatures; a mirrored order puts one pass of each in either half, so monotone
// drift cancels to first order.
std::vector<PassSlot> symmetric_schedule(std::size_t n_implementations);

}  // namespace gpumeter
