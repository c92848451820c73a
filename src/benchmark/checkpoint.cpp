// The sweep's checkpoint (checkpoint.hpp).
#include "checkpoint.hpp"

#include "gpumeter/comparison.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/version.hpp"
#include "temporary_file.hpp"

namespace gpumeter::program {

namespace fs = std::filesystem;

// Removed once the complete record is written.
fs::path partial_path(const fs::path& dir, const std::string& run_id) {
  return dir / ("gpumeter-" + run_id + ".partial.json");
}

// A record no case has contributed to yet (every case failed, or none finished) still says when
// and by what it was made.
void complete_header(Record& run) {
  if (!run.created_utc.empty()) return;
  run.created_utc = utc_now_iso();
  run.gpumeter_version = version();
  run.device.kind = "none";
}

// `state` is the deviation that says why the record is partial.
fs::path write_partial(const Record& record, const fs::path& dir, const std::string& state) {
  Record partial = record;
  complete_header(partial);
  partial.comparisons = compare_results(partial.results);
  partial.deviations.push_back(state);
  const std::string text = serialize(partial);
  const fs::path target = partial_path(dir, record.run_id);
  TemporaryFile tmp(dir, "partial");
  tmp.write_synced(text, "the partial record " + target.string());
  tmp.publish(target, true);
  return target;
}

// Adds one case's record to the run's: its rows and failures, and its deviations once each.
// The first case's record brings the header (device, state, host, configuration).
void merge_into(Record& run, const Record& one, bool first) {
  if (first) {
    run.created_utc = one.created_utc;
    run.gpumeter_version = one.gpumeter_version;
    copy_measured_setup(one, run);
  }
  add_deviations_once(one, run);
  run.results.insert(run.results.end(), one.results.begin(), one.results.end());
  run.failures.insert(run.failures.end(), one.failures.begin(), one.failures.end());
}

}  // namespace gpumeter::program
