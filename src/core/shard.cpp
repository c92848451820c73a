#include "gpumeter/detail/shard.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <queue>
#include <set>
#include <utility>

#include "gpumeter/detail/escape.hpp"
#include "gpumeter/errors.hpp"
// Which options make a shard's identity: the programs' table, private to the library, so that a
// user's build of the record model does not take the programs' command line in.
#include "gpumeter/option_table.hpp"

namespace gpumeter {
namespace {

// A whole number written in decimal digits only (no sign, no space), or nullopt.
std::optional<std::size_t> whole_number(std::string_view text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Named apart from row.cpp's quoted (double quotes): a unity build, as pip's and the sanitizer
// pass's, puts both in one unit, where an overload of one name would silently take the other.
std::string single_quoted(std::string_view text) {
  return "'" + inert_text(std::string(text)) + "'";
}

}  // namespace

std::string_view to_string(ShardSource source) {
  switch (source) {
    case ShardSource::option:
      return "option";
    case ShardSource::slurm:
      return "slurm";
    case ShardSource::kubernetes:
      return "kubernetes";
  }
  return "option";
}

std::string shard_label(std::size_t index, std::size_t count) {
  return "shard " + std::to_string(index) + " of " + std::to_string(count);
}

std::string cases_text(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " case" : " cases");
}

void refuse_empty_assignments(const std::vector<std::string>& arguments) {
  for (const std::string& a : arguments) {
    if (a == "--") return;
    if (a.size() > 3 && a.rfind("--", 0) == 0 && a.find('=') == a.size() - 1) {
      const std::string name = a.substr(0, a.size() - 1);
      throw ConfigError(name, "is empty (given as " + single_quoted(a) +
                                  ", nothing after the '='); give its value after the '=', or "
                                  "as the next argument");
    }
  }
}

std::vector<std::string> sweep_arguments(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (i == 0) {
      const auto slash = a.rfind('/');
      out.push_back(slash == std::string::npos ? a : a.substr(slash + 1));
      continue;
    }
    const OptionRole role = option_role(a);
    const bool kept = role == OptionRole::identity || role == OptionRole::conditions;
    if (kept) out.push_back(a);
    if (option_takes_value(a) && i + 1 < argv.size()) {
      ++i;  // and its value, which is never read as an option of its own
      if (kept) out.push_back(argv[i]);
    }
  }
  return out;
}

ShardChoice parse_shard_option(std::optional<std::string_view> given) {
  if (!given) return {};
  const std::string_view text = *given;
  if (text.empty()) {
    // An unset variable in a job script (--shard "$TASK"): every task would measure every case.
    throw ConfigError("--shard",
                      "is empty; give K/N (shard K of N, numbered from 0, e.g. 0/4), or all for "
                      "every case (a job script's unset variable?)");
  }
  if (text == "all") return ShardChoice{true, std::nullopt};
  const auto slash = text.find('/');
  const auto k = whole_number(text.substr(0, slash));
  const auto n =
      slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(slash + 1));
  if (!k || !n) {
    throw ConfigError(
        "--shard",
        "must be K/N (shard K of N, numbered from 0, e.g. 0/4) or all, got " + single_quoted(text));
  }
  if (*n == 0 || *n > kMaxShards) {
    throw ConfigError("--shard", "the count N must be 1 to " + std::to_string(kMaxShards) +
                                     ", got " + single_quoted(text));
  }
  if (*k >= *n) {
    throw ConfigError(
        "--shard", "K must be below N (shards are numbered 0 to N-1), got " + single_quoted(text));
  }
  return ShardChoice{true, Shard{*k, *n, ShardSource::option, "--shard " + std::string(text)}};
}

EnvLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

namespace {

std::optional<Shard> slurm_shard(const EnvLookup& env) {
  const auto id = env("SLURM_ARRAY_TASK_ID");
  const auto count = env("SLURM_ARRAY_TASK_COUNT");
  if (!id && !count) return std::nullopt;
  if (!id || !count) {
    throw ConfigError(
        std::string(id ? "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"
                       : "SLURM_ARRAY_TASK_COUNT is set but SLURM_ARRAY_TASK_ID is not") +
        ": not a Slurm array task as Slurm starts one; pass --shard K/N, or --shard "
        "all for every case");
  }
  const auto min = env("SLURM_ARRAY_TASK_MIN");
  const auto max = env("SLURM_ARRAY_TASK_MAX");
  const auto step = env("SLURM_ARRAY_TASK_STEP");
  std::string origin =
      "SLURM_ARRAY_TASK_ID=" + inert_text(*id) + " SLURM_ARRAY_TASK_COUNT=" + inert_text(*count);
  if (min) origin += " SLURM_ARRAY_TASK_MIN=" + inert_text(*min);
  if (max) origin += " SLURM_ARRAY_TASK_MAX=" + inert_text(*max);
  if (step) origin += " SLURM_ARRAY_TASK_STEP=" + inert_text(*step);
  // Plain values, each with whether it read: (GCC 12 takes optionals compared here for
  // uninitialized reads.)
  bool ok = true;
  auto read = [&](const std::optional<std::string>& text, std::size_t fallback) {
    if (!text) return fallback;
    const std::optional<std::size_t> v = whole_number(*text);
    ok = ok && v.has_value();
    return v.value_or(0);
  };
  const std::size_t v_id = read(id, 0);
  const std::size_t v_count = read(count, 0);
  const std::size_t v_min = read(min, 0);
  const std::size_t v_step = read(step, 1);
  const std::size_t v_max = read(max, v_min + (v_count - (v_count > 0 ? 1 : 0)) * v_step);
  if (!ok || v_step == 0 || v_count == 0 || v_count > kMaxShards) {
    throw ConfigError("the Slurm array variables are not array indices and a count of 1 to " +
                      std::to_string(kMaxShards) + " (" + origin +
                      "); pass --shard K/N, or --shard all");
  }
  // The ids must be MIN, MIN+STEP, ... , MAX: an array of listed ids (--array=1,5,9) cannot be
  // numbered 0..COUNT-1 from its own id, and a guess would deal two tasks the same cases.
  const bool in_range =
      v_id >= v_min && (v_id - v_min) % v_step == 0 && (v_id - v_min) / v_step < v_count;
  const bool regular =
      v_max >= v_min && (v_max - v_min) % v_step == 0 && (v_max - v_min) / v_step + 1 == v_count;
  if (!in_range || !regular) {
    throw ConfigError(
        "this Slurm array's task ids are not one range MIN..MAX by STEP with COUNT "
        "tasks (" +
        origin +
        "), so a task cannot tell its shard from its id; submit it as "
        "--array=0-N-1, or pass --shard K/N");
  }
  return Shard{(v_id - v_min) / v_step, v_count, ShardSource::slurm, origin};
}

std::optional<Shard> kubernetes_shard(const EnvLookup& env) {
  const auto index = env("JOB_COMPLETION_INDEX");
  const auto completions = env("JOB_COMPLETIONS");
  if (!index && !completions) return std::nullopt;
  if (!index) {
    throw ConfigError(
        "JOB_COMPLETIONS is set but JOB_COMPLETION_INDEX is not: not a pod of an "
        "indexed Job (completionMode: Indexed); pass --shard K/N, or --shard all");
  }
  if (!completions) {
    throw ConfigError("JOB_COMPLETION_INDEX=" + inert_text(*index) +
                      " is set but the number of shards is not: set JOB_COMPLETIONS in the Job's "
                      "container env to its .spec.completions, or pass --shard " +
                      inert_text(*index) + "/N");
  }
  const std::string origin =
      "JOB_COMPLETION_INDEX=" + inert_text(*index) + " JOB_COMPLETIONS=" + inert_text(*completions);
  const auto k = whole_number(*index);
  const auto n = whole_number(*completions);
  if (!k || !n || *n == 0 || *n > kMaxShards || *k >= *n) {
    throw ConfigError("the indexed Job's variables are not an index below a count of 1 to " +
                      std::to_string(kMaxShards) + " (" + origin +
                      "); pass --shard K/N, or --shard all");
  }
  return Shard{*k, *n, ShardSource::kubernetes, origin};
}

}  // namespace

std::optional<Shard> scheduler_shard(const EnvLookup& env) {
  const std::optional<Shard> slurm = slurm_shard(env);
  const std::optional<Shard> job = kubernetes_shard(env);
  if (slurm && job && (slurm->index != job->index || slurm->count != job->count)) {
    throw ConfigError(
        "Slurm and Kubernetes give different shards: " + shard_label(slurm->index, slurm->count) +
        " (" + slurm->origin + ") and " + shard_label(job->index, job->count) + " (" + job->origin +
        "); pass --shard K/N");
  }
  return slurm ? slurm : job;
}

std::optional<Shard> resolve_shard(std::optional<std::string_view> option, const EnvLookup& env) {
  const ShardChoice choice = parse_shard_option(option);
  if (choice.given && !choice.shard) return std::nullopt;  // --shard all
  const std::optional<Shard> scheduler = scheduler_shard(env);
  if (!choice.given) return scheduler;
  if (scheduler &&
      (scheduler->index != choice.shard->index || scheduler->count != choice.shard->count)) {
    throw ConfigError(
        "--shard",
        std::string(*option) + " is " + shard_label(choice.shard->index, choice.shard->count) +
            ", but the scheduler says " + shard_label(scheduler->index, scheduler->count) + " (" +
            scheduler->origin + "); give one of them, or --shard all for every case");
  }
  return choice.shard;
}

std::vector<HostDevice> choose_devices(std::string_view text,
                                       const std::vector<HostDevice>& available) {
  std::string there;
  for (const HostDevice& d : available)
    there += (there.empty() ? "" : ", ") + std::to_string(d.index);
  const std::string here =
      available.empty() ? std::string("this host has none")
                        : "this host has " + std::to_string(available.size()) + " (" + there + ")";
  if (text == "all") {
    if (available.empty()) throw ConfigError("--devices", "all: " + here);
    return available;
  }
  if (text.empty()) {
    throw ConfigError("--devices", "is empty; give ids (e.g. 0,1) or all (" + here + ")");
  }
  std::vector<HostDevice> chosen;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view id = text.substr(at, comma - at);
    const std::optional<std::size_t> k = whole_number(id);
    if (!k) {
      throw ConfigError(
          "--devices",
          "must be device ids separated by commas (e.g. 0,1) or all, got " + single_quoted(text));
    }
    const auto found = std::find_if(available.begin(), available.end(), [&](const HostDevice& d) {
      return d.index >= 0 && static_cast<std::size_t>(d.index) == *k;
    });
    if (found == available.end()) {
      throw ConfigError("--devices", "device " + std::to_string(*k) + " is not here: " + here);
    }
    for (const HostDevice& c : chosen) {
      if (c.index == found->index) {
        throw ConfigError("--devices", "device " + std::to_string(*k) +
                                           " is given twice: each device runs one process");
      }
      if (!c.uuid.empty() && c.uuid == found->uuid) {
        throw ConfigError("--devices", "devices " + std::to_string(c.index) + " and " +
                                           std::to_string(*k) + " are one device (" + c.uuid +
                                           "): each device runs one process");
      }
    }
    chosen.push_back(*found);
    at = comma + 1;
  }
  return chosen;
}

Shard device_shard(const std::optional<Shard>& task, std::size_t d, std::size_t devices) {
  const std::size_t tasks = task ? task->count : 1;
  const std::size_t s = task ? task->index : 0;
  if (devices == 0 || d >= devices || tasks > kMaxShards / devices) {
    throw ConfigError("--devices", std::to_string(devices) + " devices in each of " +
                                       std::to_string(tasks) + " tasks make more than " +
                                       std::to_string(kMaxShards) + " shards");
  }
  Shard shard{s * devices + d, tasks * devices, ShardSource::option, ""};
  shard.origin = "device " + std::to_string(d) + " of the " + std::to_string(devices) +
                 " of --devices" +
                 (task ? " in " + shard_label(task->index, task->count) + " (" + task->origin + ")"
                       : std::string());
  return shard;
}

std::vector<std::size_t> deal_cases(const std::vector<double>& costs, std::size_t count) {
  if (count == 0 || count > kMaxShards) {
    throw ConfigError("shards", "a sweep is dealt into 1 to " + std::to_string(kMaxShards) +
                                    " shards, not " + std::to_string(count));
  }
  for (std::size_t i = 0; i < costs.size(); ++i) {
    if (!std::isfinite(costs[i]) || costs[i] <= 0) {
      throw ConfigError("shards",
                        "case " + std::to_string(i) + "'s cost is not a finite number above 0");
    }
  }
  // Costliest first; equal costs in their order (a stable sort), so equal costs deal round robin.
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  // The least loaded shard, ties to the lower index: a min-heap of (load, shard).
  using Load = std::pair<double, std::size_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<>> shards;
  for (std::size_t s = 0; s < count; ++s) shards.emplace(0.0, s);
  std::vector<std::size_t> dealt(costs.size(), 0);
  for (const std::size_t c : order) {
    auto [load, s] = shards.top();
    shards.pop();
    dealt[c] = s;
    shards.emplace(load + costs[c], s);
  }
  return dealt;
}

std::size_t own_cases(const ShardPlan& plan) {
  std::size_t own = 0;
  for (const DealtCase& c : plan.cases) own += c.shard == plan.shard.index ? 1 : 0;
  return own;
}

std::string describe_shard(const ShardPlan& plan) {
  return std::string(kShardRecordMark) + shard_label(plan.shard.index, plan.shard.count) + " (" +
         plan.shard.origin + "), " + std::to_string(own_cases(plan)) + " of its " +
         cases_text(plan.cases.size()) +
         "; gpumeter merge of every shard's record gives the whole sweep";
}

DealtCases::DealtCases(const ShardPlan& plan) {
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    index_.emplace(std::make_pair(plan.cases[i].row.case_name, plan.cases[i].row.params), i);
  }
}

std::optional<std::size_t> DealtCases::find(const RowKey& row) const {
  if (const auto it = index_.find({row.case_name, row.params}); it != index_.end()) {
    return it->second;
  }
  // The row's params less some of them: every proper subset, looked up. A row has a few params;
  // one of more than this many is no row of a dealt case with params of its own added.
  constexpr std::size_t kMostParams = 8;
  if (row.params.empty() || row.params.size() > kMostParams) return std::nullopt;
  const std::vector<std::pair<std::string, std::string>> all(row.params.begin(), row.params.end());
  const std::size_t subsets = std::size_t{1} << all.size();
  std::optional<std::size_t> found;
  for (std::size_t mask = 0; mask + 1 < subsets; ++mask) {
    Params some;
    for (std::size_t b = 0; b < all.size(); ++b) {
      if ((mask >> b) & 1U) some.insert(all[b]);
    }
    const auto it = index_.find({row.case_name, some});
    if (it == index_.end()) continue;
    if (found) return std::nullopt;  // two cases could be the row's
    found = it->second;
  }
  return found;
}

ShardPlan plan_shard(const Shard& shard, const std::vector<RowKey>& cases,
                     std::vector<double> costs) {
  if (costs.empty()) costs.assign(cases.size(), 1.0);
  if (costs.size() != cases.size()) throw Error("plan_shard: one cost per case");
  const std::vector<std::size_t> dealt = deal_cases(costs, shard.count);
  ShardPlan plan{shard, {}};
  plan.cases.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    RowKey row = cases[i];
    row.implementation.clear();
    plan.cases.push_back(DealtCase{std::move(row), costs[i], dealt[i]});
  }
  return plan;
}

std::string shard_plan_problem(const ShardPlan& plan) {
  const Shard& s = plan.shard;
  if (s.count == 0 || s.count > kMaxShards) {
    return "a count of " + std::to_string(s.count) + " shards (1 to " + std::to_string(kMaxShards) +
           ")";
  }
  if (s.index >= s.count) return shard_label(s.index, s.count) + ": no such shard";
  std::set<RowKey> seen;
  std::vector<double> costs;
  costs.reserve(plan.cases.size());
  for (const DealtCase& c : plan.cases) {
    if (!c.row.implementation.empty()) {
      return case_label(c.row) + ": a case is dealt whole, never one implementation";
    }
    if (!seen.insert(c.row).second) return case_label(c.row) + " is dealt twice";
    if (!std::isfinite(c.cost) || c.cost <= 0) return case_label(c.row) + ": a cost not above 0";
    costs.push_back(c.cost);
  }
  const std::vector<std::size_t> dealt = deal_cases(costs, s.count);
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    if (plan.cases[i].shard != dealt[i]) {
      return case_label(plan.cases[i].row) + " is said to be in " +
             shard_label(plan.cases[i].shard, s.count) + ", but the dealing puts it in " +
             shard_label(dealt[i], s.count);
    }
  }
  return {};
}

}  // namespace gpumeter
