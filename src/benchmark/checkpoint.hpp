#pragma once
// The sweep's checkpoint: the record of the cases finished so far, kept on disk as the partial
// record so that a crash or a signal loses only the case that was running.
#include <filesystem>
#include <string>

#include "gpumeter/record.hpp"

namespace gpumeter::program {

// Where the partial record of run `run_id` is kept in `dir`.
std::filesystem::path partial_path(const std::filesystem::path& dir, const std::string& run_id);

// A record no case has contributed to yet (every case failed, or none finished) still says when
// and by what it was made.
void complete_header(Record& run);

// Writes `record` as the partial record, replacing the previous checkpoint atomically; `state`
// is the deviation that says why the record is partial. Returns its path.
std::filesystem::path write_partial(const Record& record, const std::filesystem::path& dir,
                                    const std::string& state);

// Adds one case's record to the run's: its rows and failures, and its deviations once each.
// The first case's record brings the header (device, state, host, configuration).
void merge_into(Record& run, const Record& one, bool first);

}  // namespace gpumeter::program
