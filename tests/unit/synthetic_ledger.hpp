#pragma once
// The ledger of a synthetic row, for the tests that write records and read them back.
#include <algorithm>
#include <cstddef>

#include "gpumeter/detail/ledger.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter::testing {

// B11: a CUPTI row of gpumeter's own holds a ledger, which a version 8 record's reader requires
// (its canaries prove collection was on): one record per kernel of each sample, fresh inputs
// before every call, none checked, a canary before each iteration and one after each pass.
// Other methods launch no canaries: no ledger.
inline Ledger ledger_of(const Measurement& m) {
  Ledger l;
  if (m.method != TimingMethod::kernel_records) return l;
  l.iterations = m.samples.size();
  for (const Sample& s : m.samples) {
    l.iteration_records += static_cast<std::size_t>(s.n_kernels.value_or(1));
  }
  l.fresh_inputs = l.iterations;
  l.canaries_launched = l.iterations + std::max<std::size_t>(m.pass_sizes.size(), 1);
  l.canaries_seen = l.canaries_launched;
  l.harness_records = l.canaries_launched;
  return l;
}

}  // namespace gpumeter::testing
