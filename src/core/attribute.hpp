#pragma once
// Attribution by identity, never by timestamp (T1, T3, T6, T7). Internal to the core
// and its tests: users see its results as Samples and its failures as named errors.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/ledger.hpp"
#include "gpumeter/detail/sample.hpp"

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

// B11: the longest a kernel of an iteration may wait, after its launch call returned, while the
// device runs nothing gpumeter recorded. On the H200 a kernel starts within about 15 us of its
// launch under CUPTI (back-to-back launches start 8 to 15 us apart); 50 us leaves room for the
// clock's jitter, and any work worth hiding (a GEMM of 196 us) is longer.
inline constexpr Nanos kHiddenWorkNs = 50'000;

// Throws UnaccountedWork when a kernel of an iteration started more than kHiddenWorkNs after its
// launch call returned with the device running no recorded activity for that long in between:
// the device was busy with work whose records were switched off (or another process's, which
// a trace of a shared device does not count).
void check_hidden_work(const Trace& trace, std::size_t n_iterations);

// The canaries (Trace::canary_name, under the prepare label) that left a record.
std::size_t canaries_seen(const Trace& trace);

// " (what switches them off)" as the collector's names say it, "" when they say nothing: the
// clause the messages of collection stopped add after the records they name.
std::string switched_off_by(const CollectorNames& names);

struct Interval {
  Nanos start_ns;
  Nanos end_ns;
};

// Length of the union of intervals: concurrent work counts once, gaps not at all.
Nanos union_length(std::vector<Interval> intervals);
// Latency (T1): the first start to the last end, gaps included. `intervals` is not empty.
Nanos span_length(const std::vector<Interval>& intervals);

}  // namespace gpumeter
