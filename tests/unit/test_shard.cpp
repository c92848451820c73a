// Sharding a sweep (B10): --shard K/N, the schedulers' variables, and the dealing of cases.
#include "gpumeter/detail/shard.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

TEST(ShardOption, ReadsKOfN) {
  const ShardChoice c = parse_shard_option("2/4");
  ASSERT_TRUE(c.given && c.shard);
  EXPECT_EQ(c.shard->index, 2u);
  EXPECT_EQ(c.shard->count, 4u);
  EXPECT_EQ(c.shard->source, ShardSource::option);
  EXPECT_EQ(c.shard->origin, "--shard 2/4");
  EXPECT_FALSE(parse_shard_option(std::nullopt).given);
  const ShardChoice all = parse_shard_option("all");
  EXPECT_TRUE(all.given);
  EXPECT_FALSE(all.shard);
}

TEST(ShardOption, RefusesWhatIsNotShardKOfN) {
  for (const char* bad : {"4/4", "5/4", "0/0", "-1/4", "1/-4", "+1/4", "1/4/2", "1", "/4", "1/",
                          " 1/4", "1/4 ", "a/4", "1.0/4", "0/100001", "0/99999999999999999999"}) {
    const std::string why = config_error([&] { (void)parse_shard_option(bad); });
    EXPECT_EQ(why.rfind("--shard: ", 0), 0u) << bad << ": " << why;
  }
  EXPECT_NE(config_error([] { (void)parse_shard_option("4/4"); }).find("below N"),
            std::string::npos);
  EXPECT_NO_THROW((void)parse_shard_option("99999/100000"));
}

TEST(ShardOption, AnEmptyValueIsRefusedNotEveryCase) {
  // `--shard "$TASK"` with TASK unset: every task would measure every case.
  const std::string why = config_error([] { (void)parse_shard_option(""); });
  EXPECT_EQ(why.rfind("--shard: is empty", 0), 0u) << why;
  EXPECT_NE(why.find("unset variable"), std::string::npos) << why;
  EXPECT_THROW((void)resolve_shard("", env({})), ConfigError);
}

TEST(ShardOption, AnEmptyAssignmentIsRefusedByName) {
  // The parser would read `--shard= --quiet` as --shard --quiet.
  const std::string why = config_error([] {
    refuse_empty_assignments({"--filter", "x", "--shard=", "--quiet"});
  });
  EXPECT_EQ(why.rfind("--shard: is empty (given as '--shard='", 0), 0u) << why;
  EXPECT_EQ(config_error([] {
              refuse_empty_assignments({"--devices="});
            }).rfind("--devices: is empty", 0),
            0u);
  // A value, a value holding '=', a value given apart, and what follows `--` are no such option.
  EXPECT_NO_THROW(refuse_empty_assignments({"--shard=1/4", "--axis=n=", "--filter", "", "--"}));
  EXPECT_NO_THROW(refuse_empty_assignments({"--", "--shard="}));
  EXPECT_NO_THROW(refuse_empty_assignments({"--=", "-="}));
}

TEST(SchedulerShard, NoneWithoutTheVariables) {
  EXPECT_FALSE(scheduler_shard(env({})));
  EXPECT_FALSE(scheduler_shard(env({{"SLURM_JOB_ID", "7"}})));  // a job, not an array
}

TEST(SchedulerShard, SlurmArrayFromZero) {
  const auto s = scheduler_shard(env({{"SLURM_ARRAY_TASK_ID", "3"},
                                      {"SLURM_ARRAY_TASK_COUNT", "32"},
                                      {"SLURM_ARRAY_TASK_MIN", "0"},
                                      {"SLURM_ARRAY_TASK_MAX", "31"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 3u);
  EXPECT_EQ(s->count, 32u);
  EXPECT_EQ(s->source, ShardSource::slurm);
  EXPECT_NE(s->origin.find("SLURM_ARRAY_TASK_ID=3"), std::string::npos);
}

TEST(SchedulerShard, SlurmArrayFromOneAndByStep) {
  // --array=1-4: ids 1..4 are shards 0..3.
  auto s = scheduler_shard(env({{"SLURM_ARRAY_TASK_ID", "1"},
                                {"SLURM_ARRAY_TASK_COUNT", "4"},
                                {"SLURM_ARRAY_TASK_MIN", "1"},
                                {"SLURM_ARRAY_TASK_MAX", "4"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 0u);
  // --array=0-30:10: ids 0, 10, 20, 30 are shards 0..3.
  s = scheduler_shard(env({{"SLURM_ARRAY_TASK_ID", "20"},
                           {"SLURM_ARRAY_TASK_COUNT", "4"},
                           {"SLURM_ARRAY_TASK_MIN", "0"},
                           {"SLURM_ARRAY_TASK_MAX", "30"},
                           {"SLURM_ARRAY_TASK_STEP", "10"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 4u);
}

TEST(SchedulerShard, SlurmRefusals) {
  // Half of the pair: not an array task as Slurm starts one.
  EXPECT_NE(config_error([] {
              (void)scheduler_shard(env({{"SLURM_ARRAY_TASK_ID", "1"}}));
            }).find("SLURM_ARRAY_TASK_COUNT is not"),
            std::string::npos);
  // Listed ids (--array=1,5,9): COUNT 3 but MAX-MIN 8: no numbering from the id.
  EXPECT_NE(config_error([] {
              (void)scheduler_shard(env({{"SLURM_ARRAY_TASK_ID", "5"},
                                         {"SLURM_ARRAY_TASK_COUNT", "3"},
                                         {"SLURM_ARRAY_TASK_MIN", "1"},
                                         {"SLURM_ARRAY_TASK_MAX", "9"}}));
            }).find("not one range"),
            std::string::npos);
  // An id outside the array, values that are no numbers, a zero step.
  for (const auto& vars : std::vector<std::map<std::string, std::string>>{
           {{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}},
           {{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}},
           {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "0"}},
           {{"SLURM_ARRAY_TASK_ID", "1"},
            {"SLURM_ARRAY_TASK_COUNT", "4"},
            {"SLURM_ARRAY_TASK_STEP", "0"}}}) {
    EXPECT_NE(config_error([&] { (void)scheduler_shard(env(vars)); }), "(no ConfigError)");
  }
}

TEST(SchedulerShard, KubernetesIndexedJob) {
  const auto s = scheduler_shard(env({{"JOB_COMPLETION_INDEX", "5"}, {"JOB_COMPLETIONS", "8"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 5u);
  EXPECT_EQ(s->count, 8u);
  EXPECT_EQ(s->source, ShardSource::kubernetes);
  // Kubernetes exports the index only: the count must be said, and the message says how.
  const std::string why = config_error([] {
    (void)scheduler_shard(env({{"JOB_COMPLETION_INDEX", "5"}}));
  });
  EXPECT_NE(why.find("JOB_COMPLETIONS"), std::string::npos) << why;
  EXPECT_NE(why.find("--shard 5/N"), std::string::npos) << why;
  EXPECT_NE(config_error([] {
              (void)scheduler_shard(env({{"JOB_COMPLETION_INDEX", "8"}, {"JOB_COMPLETIONS", "8"}}));
            }),
            "(no ConfigError)");
}

TEST(SchedulerShard, TwoSchedulersMustAgree) {
  const auto agree = scheduler_shard(env({{"SLURM_ARRAY_TASK_ID", "1"},
                                          {"SLURM_ARRAY_TASK_COUNT", "4"},
                                          {"JOB_COMPLETION_INDEX", "1"},
                                          {"JOB_COMPLETIONS", "4"}}));
  ASSERT_TRUE(agree);
  EXPECT_EQ(agree->index, 1u);
  const std::string why = config_error([] {
    (void)scheduler_shard(env({{"SLURM_ARRAY_TASK_ID", "1"},
                               {"SLURM_ARRAY_TASK_COUNT", "4"},
                               {"JOB_COMPLETION_INDEX", "2"},
                               {"JOB_COMPLETIONS", "4"}}));
  });
  EXPECT_NE(why.find("shard 1 of 4"), std::string::npos) << why;
  EXPECT_NE(why.find("shard 2 of 4"), std::string::npos) << why;
}

TEST(ResolveShard, OptionAgainstScheduler) {
  const auto slurm = env({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  // The scheduler's, without the option.
  auto s = resolve_shard(std::nullopt, slurm);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source, ShardSource::slurm);
  // The option's where they agree.
  s = resolve_shard("1/4", slurm);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source, ShardSource::option);
  // Refused where they do not, both named.
  const std::string why = config_error([&] { (void)resolve_shard("2/4", slurm); });
  EXPECT_EQ(why.rfind("--shard: ", 0), 0u) << why;
  EXPECT_NE(why.find("SLURM_ARRAY_TASK_ID=1"), std::string::npos) << why;
  // --shard all: every case, the scheduler's variables not even read.
  EXPECT_FALSE(resolve_shard("all", slurm));
  EXPECT_FALSE(resolve_shard("all", env({{"SLURM_ARRAY_TASK_ID", "1"}})));
  EXPECT_FALSE(resolve_shard(std::nullopt, env({})));
}

TEST(DealCases, EqualCostsRoundRobin) {
  const std::vector<std::size_t> dealt = deal_cases(std::vector<double>(10, 1.0), 4);
  EXPECT_EQ(dealt, (std::vector<std::size_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}));
  // Fewer cases than shards: the last shards hold none.
  EXPECT_EQ(deal_cases({1, 1}, 4), (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(deal_cases({}, 3).empty());
  EXPECT_EQ(deal_cases({1, 1, 1}, 1), (std::vector<std::size_t>{0, 0, 0}));
}

TEST(DealCases, BalancedByCost) {
  // Sizes growing by decades: cut into blocks, one shard would hold almost all the cost.
  std::vector<double> costs;
  for (int i = 0; i < 200; ++i) costs.push_back(1.0 + static_cast<double>(i % 20) * 10.0);
  const std::size_t n = 4;
  const std::vector<std::size_t> dealt = deal_cases(costs, n);
  std::vector<double> load(n, 0.0);
  std::vector<std::size_t> cases(n, 0);
  for (std::size_t i = 0; i < costs.size(); ++i) {
    load[dealt[i]] += costs[i];
    ++cases[dealt[i]];
  }
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  const double largest = *std::max_element(costs.begin(), costs.end());
  // Greedy largest-first: no shard exceeds the mean by more than the largest case.
  for (std::size_t s = 0; s < n; ++s) {
    EXPECT_LE(load[s], total / static_cast<double>(n) + largest) << "shard " << s;
    EXPECT_GT(cases[s], 0u);
  }
  // One costly case among cheap ones gets a shard of its own share.
  const std::vector<std::size_t> lopsided = deal_cases({100, 1, 1, 1, 1, 1}, 2);
  EXPECT_EQ(lopsided, (std::vector<std::size_t>{0, 1, 1, 1, 1, 1}));
}

TEST(DealCases, DeterministicAndRefusals) {
  const std::vector<double> costs{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
  EXPECT_EQ(deal_cases(costs, 3), deal_cases(costs, 3));
  EXPECT_THROW((void)deal_cases(costs, 0), ConfigError);
  EXPECT_THROW((void)deal_cases(costs, kMaxShards + 1), ConfigError);
  EXPECT_THROW((void)deal_cases({1, 0}, 2), ConfigError);
  EXPECT_THROW((void)deal_cases({1, -1}, 2), ConfigError);
  EXPECT_THROW((void)deal_cases({1, std::nan("")}, 2), ConfigError);
}

std::vector<RowKey> cases(int n) {
  std::vector<RowKey> out;
  for (int i = 0; i < n; ++i) out.push_back(RowKey{"copy", {{"n", std::to_string(i)}}, ""});
  return out;
}

TEST(ShardPlan, PlannedAndCheckedAgain) {
  const ShardPlan plan = plan_shard(Shard{1, 3, ShardSource::option, "--shard 1/3"}, cases(7));
  ASSERT_EQ(plan.cases.size(), 7u);
  EXPECT_EQ(plan.cases[1].shard, 1u);
  EXPECT_EQ(plan.cases[4].shard, 1u);
  EXPECT_EQ(shard_plan_problem(plan), "");

  ShardPlan moved = plan;
  moved.cases[4].shard = 2;  // a row claimed by another shard than the dealing's
  EXPECT_NE(shard_plan_problem(moved).find("the dealing puts it in shard 1 of 3"),
            std::string::npos)
      << shard_plan_problem(moved);
  ShardPlan twice = plan;
  twice.cases[2] = twice.cases[3];
  EXPECT_NE(shard_plan_problem(twice).find("dealt twice"), std::string::npos);
  ShardPlan beyond = plan;
  beyond.shard.index = 3;
  EXPECT_NE(shard_plan_problem(beyond).find("no such shard"), std::string::npos);
  ShardPlan split = plan;
  split.cases[0].row.implementation = "a";
  EXPECT_NE(shard_plan_problem(split).find("dealt whole"), std::string::npos);
  ShardPlan costed = plan;
  costed.cases[0].cost = 50;  // now the costliest goes first to shard 0, and the rest move
  EXPECT_NE(shard_plan_problem(costed), "");
}

TEST(ShardPlan, MoreShardsThanCasesLeavesEmptyPartsThatAreValid) {
  // 0/100000 over 5 cases: shard 0 holds case 0, and shards 5 and up hold none.
  const ShardPlan first = plan_shard(Shard{0, 100'000, ShardSource::option, "--shard"}, cases(5));
  EXPECT_EQ(own_cases(first), 1u);
  const ShardPlan empty = plan_shard(Shard{6, 7, ShardSource::option, "--shard"}, cases(5));
  EXPECT_EQ(own_cases(empty), 0u);
  EXPECT_EQ(shard_plan_problem(empty), "");
}

TEST(DealtCases, ARowIsItsCaseEvenWithParamsOfItsOwn) {
  ShardPlan plan = plan_shard(Shard{0, 2, ShardSource::option, "--shard"}, cases(4));
  const DealtCases dealt(plan);
  EXPECT_EQ(dealt.find(RowKey{"copy", {{"n", "2"}}, "a"}), 2u);
  // A size measured again in reversed order (Python's sweep) stays its size's case.
  EXPECT_EQ(dealt.find(RowKey{"copy", {{"n", "3"}, {"order", "reversed"}}, "a"}), 3u);
  EXPECT_FALSE(dealt.find(RowKey{"copy", {{"n", "9"}}, "a"}));
  EXPECT_FALSE(dealt.find(RowKey{"scan", {{"n", "1"}}, "a"}));
  EXPECT_FALSE(dealt.find(RowKey{"copy", {}, "a"}));
  // Two cases a row could be of: none is chosen.
  plan.cases.push_back(DealtCase{RowKey{"copy", {{"m", "1"}}, ""}, 1, 0});
  EXPECT_FALSE(DealtCases(plan).find(RowKey{"copy", {{"n", "1"}, {"m", "1"}}, "a"}));
  // An exact case wins over one whose params are fewer.
  plan.cases.push_back(DealtCase{RowKey{"copy", {{"n", "1"}, {"m", "1"}}, ""}, 1, 1});
  EXPECT_EQ(DealtCases(plan).find(RowKey{"copy", {{"n", "1"}, {"m", "1"}}, "a"}), 5u);
}

std::vector<HostDevice> host(int n) {
  std::vector<HostDevice> out;
  for (int k = 0; k < n; ++k) out.push_back(HostDevice{k, "GPU-" + std::to_string(k)});
  return out;
}

TEST(ChooseDevices, IdsOrAll) {
  EXPECT_EQ(choose_devices("all", host(3)), host(3));
  const std::vector<HostDevice> two = choose_devices("2,0", host(3));
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].index, 2);
  EXPECT_EQ(two[1].index, 0);
  EXPECT_EQ(choose_devices("1", host(3)).size(), 1u);
}

TEST(ChooseDevices, ARepeatedOrMissingIdIsRefused) {
  std::string why = config_error([] { (void)choose_devices("0,1,0", host(3)); });
  EXPECT_EQ(why.rfind("--devices: device 0 is given twice", 0), 0u) << why;
  why = config_error([] { (void)choose_devices("0,5", host(2)); });
  EXPECT_EQ(why, "--devices: device 5 is not here: this host has 2 (0, 1)");
  why = config_error([] { (void)choose_devices("all", {}); });
  EXPECT_NE(why.find("this host has none"), std::string::npos) << why;
  for (const char* bad : {"", "0,", ",0", "0,,1", "a", "-1", "0 1", " 0", "1.5"}) {
    EXPECT_EQ(config_error([&] { (void)choose_devices(bad, host(3)); }).rfind("--devices: ", 0), 0u)
        << bad;
  }
  // Two ids of one device (CUDA_VISIBLE_DEVICES=0,0 would list it twice).
  std::vector<HostDevice> same = host(2);
  same[1].uuid = same[0].uuid;
  why = config_error([&] { (void)choose_devices("0,1", same); });
  EXPECT_NE(why.find("are one device (GPU-0)"), std::string::npos) << why;
}

TEST(DeviceShard, EachDeviceAShardOfTheTasksSweep) {
  const Shard alone = device_shard(std::nullopt, 1, 4);
  EXPECT_EQ(alone.index, 1u);
  EXPECT_EQ(alone.count, 4u);
  EXPECT_EQ(alone.origin, "device 1 of the 4 of --devices");
  // Task 2 of 3 with 4 devices: its devices hold shards 8 to 11 of 12.
  const Shard task{2, 3, ShardSource::slurm, "SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=3"};
  const Shard in_task = device_shard(task, 3, 4);
  EXPECT_EQ(in_task.index, 11u);
  EXPECT_EQ(in_task.count, 12u);
  EXPECT_NE(in_task.origin.find("in shard 2 of 3 (SLURM_ARRAY_TASK_ID=2"), std::string::npos);
  // Every shard of the larger dealing is some task's device's, once.
  std::vector<int> seen(12, 0);
  for (std::size_t s = 0; s < 3; ++s) {
    for (std::size_t d = 0; d < 4; ++d) {
      ++seen[device_shard(Shard{s, 3, ShardSource::option, ""}, d, 4).index];
    }
  }
  EXPECT_EQ(seen, std::vector<int>(12, 1));
  EXPECT_THROW((void)device_shard(Shard{0, kMaxShards, ShardSource::option, ""}, 0, 2),
               ConfigError);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
