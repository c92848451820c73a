#pragma once
// The flags of a row (record.hpp, Result::flags): what a reader of its times must know beside
// them. Decided once, where a record is finished (finish_record), from the row's numbers (the
// samples' clocks, the records' retries, the copies' and the work's medians) and its record's
// highest clock, never from the values a table prints; stored in the record and checked by its
// reader. Front ends only word them (the narrow table's flags column and its legend, the clock
// notes, CSV, Python).
#include <cstddef>

namespace gpumeter {

struct RowFlags {
  std::size_t clock_flagged = 0;  // samples that may have run slower for their SM clock
  bool low_clock = false;         // the whole row ran below the record's highest clock
  int retries = 0;                // phases measured again after activity records were lost
  // The call also ran copies or fills, which device_busy does not count (only where the timing
  // sees kernels: a clock around the whole call counts them already).
  bool uncounted_copy = false;
  // Those copies took longer than the work they are left out of: the time may not be the
  // work's (an answer copied in). Implies uncounted_copy.
  bool copy_exceeds_busy = false;
  bool drops_unproven = false;  // the collector's drop counter was not live: a loss unseen
  // The host clock read the call at or under its floor: the row measures the call's overhead,
  // not work (host_clock.hpp, measures_call_overhead).
  bool call_overhead = false;

  bool operator==(const RowFlags&) const = default;
};

}  // namespace gpumeter
