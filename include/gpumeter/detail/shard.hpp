#pragma once
// A sweep split across the tasks of a cluster's array job: which share of the cases one
// process measures, where that share came from, and how the cases are dealt. The scheduler is
// the distributed engine; gpumeter only deals the cases and merges the shards' records.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/detail/row.hpp"

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
// variables say (returned as a choice with no shard). nullopt (the option not given): no choice.
// Throws ConfigError naming --shard for anything else, "" included: `--shard "$UNSET"` in a job
// script must not measure every case in every task.
struct ShardChoice {
  bool given = false;  // the option was on the command line
  std::optional<Shard> shard;
};
ShardChoice parse_shard_option(std::optional<std::string_view> text);

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
std::optional<Shard> resolve_shard(std::optional<std::string_view> option, const EnvLookup& env);

// The scheduler's variables (Slurm's array and Kubernetes' indexed Job), which a process that
// deals the shards itself (--devices) keeps from the processes it starts.
inline constexpr const char* kSchedulerVariables[] = {
    "SLURM_ARRAY_TASK_ID",  "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP",  "JOB_COMPLETION_INDEX",
    "JOB_COMPLETIONS"};

// A device of this host that --devices may name: its index (as --device takes it) and its uuid
// ("" where it could not be read).
struct HostDevice {
  int index = 0;
  std::string uuid;

  friend bool operator==(const HostDevice&, const HostDevice&) = default;
};

// --devices: "all" (every device of `available`, in order), or ids "0,1,3" in the order given,
// each the index of a device of `available`. Throws ConfigError naming --devices for an empty
// list, what is not an id, an id given twice, an id of no device here (the ones there are named),
// and two ids of one device (the same uuid: a device listed twice, e.g. by CUDA_VISIBLE_DEVICES).
std::vector<HostDevice> choose_devices(std::string_view text,
                                       const std::vector<HostDevice>& available);

// The shard the process of device `d` (0-based among `devices` chosen) measures: shard d of
// `devices`, or, in a task that is itself shard s of S (a scheduler's array task, or --shard),
// shard s * devices + d of S * devices. Every task's devices deal the sweep among themselves as
// the tasks of a larger array would, so a merge of the shards of every task gives the whole
// sweep. Throws ConfigError when S * devices is above kMaxShards.
Shard device_shard(const std::optional<Shard>& task, std::size_t d, std::size_t devices);

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

// The cases `plan` deals to its own shard (none for a shard of more shards than cases: an empty
// part of the sweep, which measures nothing and which a merge does not need).
std::size_t own_cases(const ShardPlan& plan);

// Finds the dealt case a row is of: the case of the row's name whose params are the row's, else
// the one case whose params are all among the row's. A row may add params of its own (Python's
// sweep marks a size measured again in reversed order with order=reversed) and stays its case's.
class DealtCases {
 public:
  explicit DealtCases(const ShardPlan& plan);
  // The index in plan.cases, or nullopt where no case, or more than one, is the row's.
  std::optional<std::size_t> find(const RowKey& row) const;

 private:
  std::map<std::pair<std::string, Params>, std::size_t> index_;
};

// The plan of `shard` for the sweep's cases (their rows, in plan order) at `costs` (empty: all
// 1), dealt by deal_cases.
ShardPlan plan_shard(const Shard& shard, const std::vector<RowKey>& cases,
                     std::vector<double> costs = {});

// Why `plan` is not a dealing deal_cases makes ("" when it is): a shard out of its count, a case
// twice, a case dealt elsewhere than deal_cases deals it. What a reader refuses in a record.
std::string shard_plan_problem(const ShardPlan& plan);

// Refuses an option given as `--name=` with nothing after the '=' (throws ConfigError naming
// it): the command-line parser would take the next argument as its value (`--shard= --quiet`
// reads as --shard --quiet), so the value it then refuses is not the one the user gave. An empty
// value is still given as `--name ''`. Arguments after `--` are not options.
void refuse_empty_assignments(const std::vector<std::string>& arguments);

// A shard's command line as every shard of its sweep has it: the program by its file name (tasks
// may run it from different paths), and only its options of role identity and conditions in the
// programs' option table, with their values (each task's own shard, device and output, the
// parent's waits and the options a program gives the processes it starts are left out). Two
// records whose arguments differ here were not run as shards of one sweep.
std::vector<std::string> sweep_arguments(const std::vector<std::string>& argv);

// What a table of a shard's record says of it, read from its shard section: it shows one share of
// a sweep. "one shard of a sweep: shard 1 of 4 (--shard 1/4), 6 of its 24 cases; ..."
std::string describe_shard(const ShardPlan& plan);
// Records of schema 7 also said it as a deviation starting so; a merge of every shard drops them,
// and a table of a shard shows the section instead.
inline constexpr std::string_view kShardRecordMark = "one shard of a sweep: ";

// "shard 2 of 4" (numbered from 0, as --shard K/N is).
std::string shard_label(std::size_t index, std::size_t count);
// "1 case", "24 cases": the messages of shards and merges count cases so.
std::string cases_text(std::size_t n);

}  // namespace gpumeter
