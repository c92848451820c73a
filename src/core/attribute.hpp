#pragma once
// Attribution by identity, never by timestamp (T1, T3, T6, T7). Internal to the core
// and its tests: users see its results as Samples and its failures as named errors.
#include <cstddef>
#include <utility>
#include <vector>

#include "gpumeter/backend/trace.hpp"
#include "gpumeter/ledger.hpp"
#include "gpumeter/sample.hpp"

namespace gpumeter {

struct AttributionOptions {
  bool count_copies = false;  // T7: a case flag, the same for every implementation of a case
};

// Maps every activity of `trace` to its iteration through its external correlation id and
// returns one Sample per iteration 0..n_iterations-1. PREPARE-id work is skipped. Throws
// RecordsLost, CollectionStopped, OffThreadLaunch, WrongDevice or AttributionError (in that order
// of precedence) and then returns nothing. With `ledger`, also counts what each record was.
std::vector<Sample> attribute(const Trace& trace, std::size_t n_iterations,
                              const AttributionOptions& options = {}, Ledger* ledger = nullptr);

// B11: throws CollectionStopped when the trace proves collection stopped during the phase: a
// canary missing, or an iteration with fewer kernel records than the kernel launches it made
// through one API (runtime or driver: a launch may be seen through both, never more kernels than
// launches through either, so a launch whose kernel went unrecorded shows). Lost records are
// judged before this (a lost canary is a lost record).
void check_collection(const Trace& trace, std::size_t n_iterations);

struct Interval {
  Nanos start_ns;
  Nanos end_ns;
};

// Length of the union of intervals: concurrent work counts once, gaps not at all.
Nanos union_length(std::vector<Interval> intervals);
// Latency (T1): the first start to the last end, gaps included. `intervals` is not empty.
Nanos span_length(const std::vector<Interval>& intervals);

}  // namespace gpumeter
