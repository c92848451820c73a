#pragma once
// What one measurement of one call produced: plain data, free of the backend API, so the record
// model can hold it.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/ledger.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/sample.hpp"
#include "gpumeter/detail/timestamp_check.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/verdict.hpp"

namespace gpumeter {

// The null test's readings: the call's work scaled `scale` times, timed by the same backend after
// the row's passes; each value is the row's statistic (the device_busy field) of one scaled call.
// The verdict is derived from these and the row's own samples (comparison.hpp).
struct NullTestSamples {
  int scale = kNullTestScale;
  std::vector<Nanos> scaled_ns;
};

// How a row was measured, which decides what must prove it (docs/records.md, "origin"). A record
// states it per row and its reader checks it against the rest of the record, so no text of the
// record (a deviation) can exempt a row from a rule.
enum class RowOrigin {
  // gpumeter's own measurement of a call: its ledger is the evidence, and a kernel-records row
  // proves collection was on by the canaries its ledger holds.
  harness,
  // One NVTX range of an unmodified program (gpumeter run): gpumeter launches nothing in a
  // program, so the row has no ledger and no canary.
  program_range,
  // First measured under a schema before 8, which kept no ledger: only in a record read from one
  // (and held by its rules, version 8).
  before_ledgers,
};
inline constexpr RowOrigin kRowOrigins[] = {RowOrigin::harness, RowOrigin::program_range,
                                            RowOrigin::before_ledgers};
// "harness", "program_range", "before_ledgers": the words a record holds.
constexpr std::string_view to_string(RowOrigin origin) {
  switch (origin) {
    case RowOrigin::harness:
      return "harness";
    case RowOrigin::program_range:
      return "program_range";
    case RowOrigin::before_ledgers:
      return "before_ledgers";
  }
  return "harness";
}
// The yardstick of a host-clock row (host_clock.hpp): a fixed piece of the front end's own work,
// timed in passes interleaved with the row's (A Y Y A), so that a comparison with a row of
// another run can read each side against the load of its own minutes.
struct YardstickReading {
  // What the work is, as the front end names it ("python-int-loop-1000"): rows are read against
  // one yardstick only where both ran the same work.
  std::string work;
  // Its level (the median of its calls) in each pass, the i-th beside the row's i-th pass: as
  // many as the row has passes.
  std::vector<double> pass_ns;
};

constexpr std::optional<RowOrigin> parse_row_origin(std::string_view text) {
  for (const RowOrigin o : kRowOrigins) {
    if (to_string(o) == text) return o;
  }
  return std::nullopt;
}

struct Measurement {
  // What measured the row (a front end that reads a program's ranges says so; a record of an older
  // schema is given its rows' origins when read).
  RowOrigin origin = RowOrigin::harness;
  TimingMethod method = TimingMethod::kernel_records;
  std::string reason;  // why this method (fallbacks), from the backend
  // One per measured iteration, pass after pass, in the order they ran.
  std::vector<Sample> samples;
  // How many of `samples` each pass holds, in order (one entry for a lone measurement, two
  // for an implementation of an A B C C B A comparison). Passes, not samples, are the units
  // a comparison's interval treats as varying (docs/comparisons.md).
  std::vector<std::size_t> pass_sizes;
  // The resolution of the backend's timestamps (the CUPTI tick, the host clock's step).
  Nanos timestamp_tick_ns = 1;
  int retries = 0;  // phases repeated after lost records, all phases together
  std::size_t warmup_iterations = 0;
  std::size_t measure_iterations = 0;  // per pass, summed over passes when merged
  Nanos estimate_ns = 0;               // one call, from calibration
  bool drop_counter_live = true;       // false: a lost record could have gone unseen
  // How the timestamps of every phase were checked against the device's own clock, and how many
  // were converted from another unit; nullopt when the method needs no check.
  std::optional<TimestampCheck> timestamp_check;
  // What every activity record of every phase was, the canaries, fresh inputs and checks.
  Ledger ledger;
  // Set when the implementation can scale its work (Implementation::scaled).
  std::optional<NullTestSamples> null_test;
  // Set when the measurement ran to a target precision: what was asked, what was reached, how
  // many passes, and why it stopped (the same for every implementation of one comparison).
  std::optional<PrecisionOutcome> precision;
  // The host's 1-minute load average when the measurement ended (the highest of its passes'), as
  // the backend read it (/proc/loadavg); nullopt where it read none (device timing, older
  // records). What a host-clock verdict of no difference states beside the passes' spread.
  std::optional<double> load_average;
  // Set where the row's passes were interleaved with a yardstick's (host clock, fixed budget, a
  // front end that gave one: the pytest plugin's rows); nullopt otherwise and before schema 12.
  std::optional<YardstickReading> yardstick;
};

}  // namespace gpumeter
