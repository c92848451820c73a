#pragma once
// The records of the shards of one sweep (run on boards of one kind, one way of timing) joined into
// one record, so tables and comparisons see the whole sweep (`gpumeter merge`); each row keeps the
// board it ran on.
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/record.hpp"

namespace gpumeter {

// How the deviation of a merge of program runs starts: their rows are in the merged record, their
// program sections are not (a record holds one program's). The record says so in its data
// (Record::merged_programs); the deviation is for people, and how a record before version 10 said
// it (read only from one of those).
inline constexpr std::string_view kMergedProgramsMark = "merged from program runs (";

// The deviation of a merge of the program runs `run_ids` ("a, b").
inline std::string merged_programs_deviation(const std::string& run_ids) {
  return std::string(kMergedProgramsMark) + run_ids +
         "): their rows are here, their program sections (processes, instance counts, kernels "
         "outside every range) are in the records merged";
}

struct MergeOptions {
  // Join records of devices of different kinds (names), configurations, project commits, timing
  // methods or ceilings; the merged record says which in a deviation, and its header is the
  // first's. Boards of one kind (one name, different uuids) need no leave: each row keeps its own
  // board, and rows of two boards are never compared.
  bool allow_mixed = false;
  // Merge the shards of a sweep that are here though one is missing or stopped early: the cases
  // of such a shard become failures (ShardMissing, ShardIncomplete) of the merged record, named,
  // and the other shards keep their rows. Without it such a merge is refused, naming the shard.
  bool allow_missing_shards = false;
  // The merged record's identity: a new run id and time, this gpumeter, the command that merged.
  std::string run_id;
  std::string created_utc;
  std::string gpumeter_version;
  std::vector<std::string> argv;
};

// Every result and failure of `records` (one or more), in order, each row with its board (that of
// its record's device where it names none), with every deviation once, the header (host, device,
// state, configuration, commit) of the first, the ceilings joined (the fastest
// run any shard saw) and every row's summary and the comparisons recomputed against them, and
// a deviation naming the records joined. Throws MergeRefused (errors.hpp) when a row is in two
// of the records, and, unless allow_mixed, when the records differ in what they were measured
// with. Records of shards (Record::shard) must be shards of one sweep: each a shard, of one
// dealing, run by one program and gpumeter with the same arguments (sweep_arguments), each shard
// once, none that holds a case missing or partial unless allow_missing_shards (a shard of more
// shards than cases holds none and is not needed); the merged record is a whole sweep (no shard
// section), its rows and failures in the sweep's order, and says which shards it joined.
Record merge_records(const std::vector<Record>& records, const MergeOptions& options);

}  // namespace gpumeter
