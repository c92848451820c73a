#pragma once
// A sweep split across the tasks of a cluster's array job: which share of the cases one
// process measures, where that share came from, and how the cases are dealt. The scheduler is
// the distributed engine; gpumeter only deals the cases and merges the shards' records.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/row.hpp"

namespace gpumeter {

// Where a shard's index and count were read.
enum class ShardSource { option, slurm, kubernetes };
std::string_view to_string(ShardSource source);

struct Shard {
  std::size_t index = 0;  // 0-based: shard 0 of 4 is the first
  std::size_t count = 1;
  ShardSource source = ShardSource::option;
  // What was read, as read: "--shard 1/4", "SLURM_ARRAY_TASK_ID=3 (SLURM_ARRAY_TASK_MIN=0, ...)".
  std::string origin;

  friend bool operator==(const Shard&, const Shard&) = default;
};

// The most shards one sweep is dealt into. Slurm's default MaxArraySize is 1001 and Kubernetes
// caps an indexed Job at 100,000 completions; a count beyond that is a typo, and the record of
// every shard lists every case, so the count also bounds what a merge checks.
inline constexpr std::size_t kMaxShards = 100'000;

// "K/N" with 0 <= K < N <= kMaxShards: shard K of N. "all": every case, whatever the scheduler's
// variables say (returned as a choice with no shard). "" (the option not given): no choice.
// Throws ConfigError naming --shard for anything else.
struct ShardChoice {
  bool given = false;  // the option was on the command line
  std::optional<Shard> shard;
};
ShardChoice parse_shard_option(std::string_view text);

// How an environment variable is looked up: nullopt when unset. The scheduler's variables are
// read through it, so tests give their own.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
EnvLookup process_environment();

// The shard a cluster's scheduler gave this task, or nullopt where neither scheduler says:
//  - a Slurm array task: SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN, divided by
//    SLURM_ARRAY_TASK_STEP (default 1), of SLURM_ARRAY_TASK_COUNT; the ids must be the range
//    MIN..MAX by STEP (an array of listed ids, --array=1,5,9, cannot be numbered from them);
//  - a Kubernetes indexed Job: JOB_COMPLETION_INDEX of JOB_COMPLETIONS, a variable the Job's
//    manifest sets to its .spec.completions (Kubernetes itself exports only the index).
// Throws ConfigError, naming the variables, for a partial set, a value that is not a count or
// an index within it, or the two schedulers disagreeing.
std::optional<Shard> scheduler_shard(const EnvLookup& env);

// The shard this process measures: the option's, which must agree with the scheduler's where
// both say; the scheduler's where the option is not given; none with --shard all, or where
// neither says. Throws ConfigError for a disagreement (both values named) and for what the two
// functions above refuse.
std::optional<Shard> resolve_shard(std::string_view option, const EnvLookup& env);

// Deals cases into `count` shards and returns each case's shard, in the cases' order.
// Deterministic: every task of an array deals the same list the same way, so each finds its own
// share without talking to the others. Balanced by cost: the costliest case first, each to the
// shard with the least cost so far (ties to the lower shard). Cases of equal cost (costs not
// known: all 1) are dealt round robin in their order, so a sweep over growing sizes is
// interleaved across the shards, not cut into blocks of small and large. Throws ConfigError
// when count is 0 or above kMaxShards, or a cost is not a finite number above 0.
std::vector<std::size_t> deal_cases(const std::vector<double>& costs, std::size_t count);

// One case of a sharded sweep: its row (implementation "", a case holds all its
// implementations: they are compared within one process, so they are never split), the cost it
// was dealt by, and the shard it was dealt to.
struct DealtCase {
  RowKey row;
  double cost = 1;
  std::size_t shard = 0;

  friend bool operator==(const DealtCase&, const DealtCase&) = default;
};

// A shard's part of a record: which shard it is, and the dealing of the whole sweep (every case,
// its cost and its shard), so a merge can check that its records are shards of one sweep and name
// the cases of a shard that is missing or stopped early.
struct ShardPlan {
  Shard shard;
  std::vector<DealtCase> cases;
};

// The plan of `shard` for the sweep's cases (their rows, in plan order) at `costs` (empty: all
// 1), dealt by deal_cases.
ShardPlan plan_shard(const Shard& shard, const std::vector<RowKey>& cases,
                     std::vector<double> costs = {});

// Why `plan` is not a dealing deal_cases makes ("" when it is): a shard out of its count, a case
// twice, a case dealt elsewhere than deal_cases deals it. What a reader refuses in a record.
std::string shard_plan_problem(const ShardPlan& plan);

// A shard's command line as every shard of its sweep has it: the program by its file name (tasks
// may run it from different paths), without --shard and --out (each task has its own) and without
// the options that only choose what is printed (--quiet, --md, --csv, --wide). Two records whose
// arguments differ here were not run as shards of one sweep.
std::vector<std::string> sweep_arguments(const std::vector<std::string>& argv);

// How the deviation of a shard's record starts: a table of it shows one share of a sweep, and says
// so. A merge of every shard replaces these with its own.
inline constexpr std::string_view kShardRecordMark = "one shard of a sweep: ";
std::string shard_deviation(const ShardPlan& plan);

// "shard 2 of 4" (numbered from 0, as --shard K/N is).
std::string shard_label(std::size_t index, std::size_t count);

}  // namespace gpumeter
