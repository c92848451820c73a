#include "gpumeter/row_status.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/error_class.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_clock.hpp"

namespace gpumeter {

std::string_view to_string(RowStatus status) {
  switch (status) {
    case RowStatus::ok:
      return "ok";
    case RowStatus::skipped:
      return "skipped";
    case RowStatus::failed:
      return "failed";
    case RowStatus::crashed:
      return "crashed";
    case RowStatus::timed_out:
      return "timed out";
    case RowStatus::not_measured:
      return "not measured";
  }
  return "failed";
}

RowStatus status_of(const Failure& failure) {
  const std::string& e = failure.error;
  if (e == kSkippedFailure) return RowStatus::skipped;
  if (e == kCrashedFailure) return RowStatus::crashed;
  if (e == kTimeoutFailure) return RowStatus::timed_out;
  // T6: the measurement's own refusals and failures (error_class.hpp): the work may well be
  // right, but no time of it is one gpumeter stands behind.
  switch (error_class_of(e)) {
    case ErrorClass::refused:
    case ErrorClass::not_measured:
      return RowStatus::not_measured;
    case ErrorClass::wrong:
    case ErrorClass::failed:
      break;
  }
  // The case's own failures (VerificationFailed, InputsModified, UserCodeError, DeviceError,
  // ConfigError), and any name a later version may add.
  return RowStatus::failed;
}

RowStatus status_of(const Result& result) {
  return result.null_test_failed() ? RowStatus::failed : RowStatus::ok;
}

std::string error_of(const Failure& failure) {
  return failure.message.empty() ? failure.error : failure.error + ": " + failure.message;
}

std::string describe(const Failure& failure) {
  const RowStatus status = status_of(failure);
  // The runtime's names say no more than the status does.
  const bool named_by_status = status == RowStatus::skipped || status == RowStatus::crashed ||
                               status == RowStatus::timed_out;
  const std::string why =
      named_by_status && !failure.message.empty() ? failure.message : error_of(failure);
  return std::string(to_string(status)) + ": " + why;
}

int highest_clock(const Record& record) {
  int mhz = 0;
  for (const Result& result : record.results) {
    if (result.summary.clock) mhz = std::max(mhz, result.summary.clock->max_mhz);
  }
  return mhz;
}

RowFlags row_flags(const Result& result, int record_highest_mhz) {
  RowFlags f;
  const Summary& s = result.summary;
  if (s.clock) {
    f.clock_flagged = s.clock->flagged;
    // A row's own samples are flagged against its own highest clock; a row held down throughout
    // (a small case after a power-capped GEMM) is caught only against the record's.
    f.low_clock = clock_below_reference(s.clock->max_mhz, record_highest_mhz);
  }
  f.retries = result.measurement.retries;
  if (!result.count_copies && sees_kernels(result.measurement.method)) {
    f.uncounted_copy = s.median_uncounted_copy_ns > 0;
    f.copy_exceeds_busy = s.median_uncounted_copy_ns > s.device_busy.median_ns;
  }
  f.drops_unproven = !result.measurement.drop_counter_live;
  f.call_overhead =
      measures_call_overhead(statistic_of(result.measurement.method), s.device_busy.median_ns);
  return f;
}

std::string error_of(const Result& result) {
  return result.null_test_failed() ? "null test: " + describe(*result.null_test_outcome)
                                   : std::string();
}

}  // namespace gpumeter
