#pragma once
// The record model: the only source of tables (P10). Serialization lives in
// record_io.hpp; this header is plain data.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/calibration.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/device.hpp"
#include "gpumeter/measurement.hpp"
#include "gpumeter/row.hpp"
#include "gpumeter/summary.hpp"

namespace gpumeter {

// Bumped on any change a reader of an older version could misread. Version 2 keeps each
// result's pass sizes and timestamp step, and the comparisons with the rule that applied;
// version 1 records still read (their comparisons are recomputed, and refused where passes
// are needed).
inline constexpr int kRecordSchemaVersion = 2;
inline constexpr int kOldestReadableSchemaVersion = 1;
inline constexpr const char* kRecordSchemaName = "gpumeter.record";

struct HostIdentity {
  std::string hostname;
  std::string cpu_model;
  std::optional<int> logical_cores;
  std::string os;
};

struct RunConfig {
  Budget budget = kMeasureBudget;
  bool l2_flush = true;
  // What the flush did ("write", "write+read"), from the backend; "" when unknown or none.
  std::string l2_flush_mode;
  // "ABCCBA" (a lone implementation runs A A); records of version 1 may say "single".
  std::string schedule = "ABCCBA";
};

struct Result {
  RowKey row;
  bool count_copies = false;  // T7: the case's flag, so a reader knows what busy holds
  Measurement measurement;
  Summary summary;
  Workload workload;
};

// A case (or one implementation of it) that produced no number, and why: the error's type
// and message. Its cells read "not measured"; the rest of the run keeps its numbers.
struct Failure {
  RowKey row;           // implementation "" when the case failed as a whole
  std::string error;    // "OffThreadLaunch", "VerificationFailed", ...
  std::string message;  // what happened and what to do
};

struct Record {
  int schema_version = kRecordSchemaVersion;
  std::string run_id;       // unique per run; also in the file name
  std::string created_utc;  // ISO 8601
  std::string gpumeter_version;
  std::vector<std::string> argv;
  std::string project_commit;  // the measured project's commit, "" when unknown
  HostIdentity host;
  DeviceIdentity device;
  DeviceState device_state;
  Ceilings ceilings;
  RunConfig config;
  std::vector<std::string> deviations;  // departures from the protocol, never hidden (P10)
  std::vector<Result> results;
  std::vector<Failure> failures;
  // compare_results(results), stored with the rule each applied; never edited by hand.
  std::vector<Comparison> comparisons;
};

}  // namespace gpumeter
