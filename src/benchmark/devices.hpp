#pragma once
// --devices: a sweep spread over several devices of one host (B10). One process of this program
// per device, each under its own device lock, each measuring the shard of the cases dealt to it as
// --shard deals them; the parent takes no lock and opens no device, waits for them, and merges
// their records into one record of the whole sweep.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/benchmark.hpp"
#include "gpumeter/detail/shard.hpp"
#include "options.hpp"

namespace gpumeter::program {

// The rows the dealing deals: each case's, implementation "" (a case is dealt whole).
std::vector<RowKey> case_keys(const std::vector<PlannedCase>& cases);

// Runs every selected case on `devices` and returns the program's exit code. Device d of D
// measures shard d of D (device_shard); in a task that is itself a shard (`task`: --shard, or a
// scheduler's index), shard s*D+d of S*D, whose records the task leaves in --out for the merge of
// every task's shards. Otherwise the records of the devices' processes go to a folder of their
// own in --out (gpumeter-<run_id>.devices/device-<index>/), and their merge, the whole sweep, is
// written and printed as a sweep's record is. A device dealt no case gets no process. A device
// whose process fails loses only its own cases (failures named ShardMissing or ShardIncomplete
// in the merged record), and the program exits as that process did. --list lists each case with
// the device that would measure it. Throws ConfigError before anything starts for a GPU_LOCK set
// (one lock file for every device would run the processes one after another).
int run_on_devices(const Options& o, const std::vector<std::string>& argv,
                   const std::vector<PlannedCase>& cases, const std::string& program,
                   const std::optional<Shard>& task, const std::vector<HostDevice>& devices);

// The arguments a device's process gets: the parent's, less --devices and what the parent gives
// each process of its own (--device, --shard, --out, the origin of its shard) and the printing
// options, plus its own, and --quiet.
std::vector<std::string> device_args(const std::vector<std::string>& argv, const HostDevice& device,
                                     const Shard& shard, const std::string& out);

}  // namespace gpumeter::program
