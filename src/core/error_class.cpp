#include "gpumeter/detail/error_class.hpp"

#include <string_view>
#include <vector>

namespace gpumeter {

std::string_view to_string(ErrorClass error_class) {
  switch (error_class) {
    case ErrorClass::wrong:
      return "wrong";
    case ErrorClass::refused:
      return "refused";
    case ErrorClass::not_measured:
      return "not measured";
    case ErrorClass::failed:
      return "failed";
  }
  return "failed";
}

const std::vector<ErrorEntry>& error_table() {
  static const std::vector<ErrorEntry> table{
      {"VerificationFailed", ErrorClass::wrong},
      {"InputsModified", ErrorClass::wrong},
      // T6, T12, B11: what ran is there, but not as the call's own.
      {"OffThreadLaunch", ErrorClass::refused},
      {"AttributionError", ErrorClass::refused},
      {"WrongDevice", ErrorClass::refused},
      {"CollectionStopped", ErrorClass::refused},
      {"UnaccountedWork", ErrorClass::refused},
      {"AnswerNotPlain", ErrorClass::refused},
      {"OtherProcessOnDevice", ErrorClass::refused},
      // The measurement's own means failed: records, CUPTI, its clock, the device's occupancy.
      {"RecordsLost", ErrorClass::not_measured},
      {"CuptiUnavailable", ErrorClass::not_measured},
      {"TimestampUnitMismatch", ErrorClass::not_measured},
      {"DeviceBusy", ErrorClass::not_measured},
      {"MixedTimingMethods", ErrorClass::not_measured},
      {"IncomparableStatistics", ErrorClass::not_measured},
      {"InvalidRecord", ErrorClass::not_measured},
      {"CollectorRecordsLost", ErrorClass::not_measured},
      {"CorruptTrace", ErrorClass::not_measured},
      {"LaunchNotFound", ErrorClass::not_measured},
      {"KernelRecordsMissing", ErrorClass::not_measured},
      {"PartsMissing", ErrorClass::not_measured},
      // The case's own code, its set-up or its program.
      {"UserCodeError", ErrorClass::failed},
      {"DeviceError", ErrorClass::failed},
      {"ConfigError", ErrorClass::failed},
      {"MergeRefused", ErrorClass::failed},
      {"RangeNotOpen", ErrorClass::failed},
      {"RangeLeftOpen", ErrorClass::failed},
      {"NoRangesFound", ErrorClass::failed},
      {"ProgramRunsDiffer", ErrorClass::failed},
      {"ProgramProcessError", ErrorClass::failed},
      {"Error", ErrorClass::failed},
  };
  return table;
}

ErrorClass error_class_of(std::string_view error_name) {
  for (const ErrorEntry& e : error_table()) {
    if (e.name == error_name) return e.error_class;
  }
  return ErrorClass::failed;
}

}  // namespace gpumeter
