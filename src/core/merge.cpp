#include "gpumeter/detail/merge.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/row_checks.hpp"

namespace gpumeter {
namespace {

// The kind of device: boards of one kind merge, each row keeping its own board (B10); devices of
// two kinds (two names) are mixed.
std::string device_of(const Record& r) {
  return r.device.name.empty() ? r.device.kind : r.device.name + " (" + r.device.kind + ")";
}

std::string config_of(const Record& r) {
  const RunConfig& c = r.config;
  return std::to_string(c.budget.warmup_ns) + "/" + std::to_string(c.budget.measure_ns) + "/" +
         std::to_string(c.budget.min_iterations) + "/" + std::to_string(c.budget.max_iterations) +
         "/" + (c.l2_flush ? "flush:" + c.l2_flush_mode : "noflush") + "/" + c.schedule;
}

// The shards of one sweep, checked and joined: every record a shard of one dealing, run the same
// way, each shard once; a missing or partial shard refused unless allowed, and then its cases
// that have no row are failures of the merged record, named. Adds the merge's deviations to `out`.
// The records of shards by their index (nullptr: missing), after the checks that they are shards of
// one sweep; empty where no record is a shard. Run before the rows are joined, so a shard given
// twice is named as such, not by its first row.
std::vector<const Record*> shards_of_one_sweep(const std::vector<Record>& in) {
  const auto is_shard = [](const Record& r) { return r.shard.has_value(); };
  if (std::none_of(in.begin(), in.end(), is_shard)) return {};
  const Record& first = in.front();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in[i].shard) {
      throw MergeRefused(
          "a whole sweep's record among shards: the shards of one sweep merge with each other, "
          "each run with --shard K/N or under a scheduler's array index",
          i);
    }
  }
  const ShardPlan& plan = *first.shard;
  const std::size_t count = plan.shard.count;
  const std::vector<std::string> arguments = sweep_arguments(first.argv);
  std::vector<const Record*> by_index(count, nullptr);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Record& r = in[i];
    const ShardPlan& p = *r.shard;
    const std::string which = shard_label(p.shard.index, p.shard.count);
    if (p.shard.count != count) {
      throw MergeRefused(which + " is of a sweep dealt into " + std::to_string(p.shard.count) +
                             " shards, the first record's into " + std::to_string(count) +
                             ": not shards of one sweep",
                         i);
    }
    if (p.cases != plan.cases) {
      throw MergeRefused(which +
                             " was dealt from other cases than the first record's (other "
                             "axes, filters or benchmarks): not shards of one sweep",
                         i);
    }
    if (sweep_arguments(r.argv) != arguments) {
      std::string a;
      for (const std::string& s : sweep_arguments(r.argv)) a += (a.empty() ? "" : " ") + s;
      std::string b;
      for (const std::string& s : arguments) b += (b.empty() ? "" : " ") + s;
      throw MergeRefused(which + " ran as '" + a + "', the first record's shard as '" + b +
                             "': shards of one sweep run one program with the same options",
                         i);
    }
    if (r.gpumeter_version != first.gpumeter_version) {
      throw MergeRefused(which + " was measured by gpumeter " + r.gpumeter_version +
                             ", the first record's shard by " + first.gpumeter_version,
                         i);
    }
    if (by_index[p.shard.index] != nullptr) {
      throw MergeRefused(which + " is in two of the records", i);
    }
    by_index[p.shard.index] = &r;
  }
  return by_index;
}

// What a missing or partial shard left out becomes failures of `out`, named, where allowed; the
// merge's deviations say which shards it joined.
void join_shards(const std::vector<const Record*>& by_index, const MergeOptions& options,
                 Record& out) {
  if (by_index.empty()) return;
  const ShardPlan* found = nullptr;
  for (const Record* r : by_index) {
    if (r != nullptr) found = &*r->shard;
  }
  const ShardPlan& plan = *found;
  const std::size_t count = plan.shard.count;

  // What each shard left out: a missing shard all its cases, a partial one those it did not
  // finish (no row and no failure).
  const DealtCases dealt_cases(plan);
  std::vector<bool> present(plan.cases.size(), false);
  const auto mark = [&](const RowKey& row) {
    if (const std::optional<std::size_t> i = dealt_cases.find(row)) present[*i] = true;
  };
  for (const Result& res : out.results) mark(res.row);
  for (const Failure& f : out.failures) mark(f.row);
  std::vector<std::size_t> dealt_to(count, 0);
  for (const DealtCase& c : plan.cases) ++dealt_to[c.shard];
  std::vector<std::string> problems;
  std::vector<Failure> lost;
  std::size_t empty = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const Record* r = by_index[k];
    // A shard of more shards than cases holds none: an empty part, never needed (B10).
    if (dealt_to[k] == 0) {
      ++empty;
      continue;
    }
    const std::string partial = r != nullptr ? partial_record_note(*r) : std::string();
    if (r != nullptr && partial.empty()) continue;
    std::size_t dealt = 0;
    std::size_t missing = 0;
    std::string first_missing;
    for (std::size_t i = 0; i < plan.cases.size(); ++i) {
      const DealtCase& c = plan.cases[i];
      if (c.shard != k) continue;
      ++dealt;
      if (present[i]) continue;
      if (missing++ == 0) first_missing = case_label(c.row);
      lost.push_back(Failure{
          c.row, r == nullptr ? "ShardMissing" : "ShardIncomplete",
          r == nullptr
              ? shard_label(k, count) + " of the sweep is not among the records merged"
              : shard_label(k, count) + " stopped before this case (its record is partial)"});
    }
    const std::string which = shard_label(k, count);
    problems.push_back(
        r == nullptr
            ? which + " is missing (its " + cases_text(dealt) + ", " + first_missing + " first)"
            : which + " is partial: " + std::to_string(missing) + " of its " + cases_text(dealt) +
                  " did not run (" + first_missing + (missing > 1 ? " first)" : ")"));
  }
  if (!problems.empty() && !options.allow_missing_shards) {
    std::string what;
    for (const std::string& p : problems) what += (what.empty() ? "" : "; ") + p;
    throw MergeRefused(what +
                       ". Merge every shard of the sweep, or pass --allow-missing-shards to "
                       "merge these (the cases that did not run become failures, named)");
  }
  // The partial shards' own marks are replaced by what the merge says of them: every case of the
  // sweep now has a row or a failure.
  out.deviations.erase(std::remove_if(out.deviations.begin(), out.deviations.end(),
                                      [](const std::string& d) {
                                        return d.rfind(kPartialRecordMark, 0) == 0 ||
                                               d.rfind(kShardRecordMark, 0) == 0;
                                      }),
                       out.deviations.end());
  for (const std::string& p : problems) {
    out.deviations.push_back(p + "; its cases that did not run are failures of this record");
  }
  out.failures.insert(out.failures.end(), lost.begin(), lost.end());
  out.deviations.push_back("the " + std::to_string(count) + " shards of one sweep of " +
                           cases_text(plan.cases.size()) + ", " +
                           (problems.empty()
                                ? "every shard merged"
                                : std::to_string(problems.size()) + " of them missing or partial") +
                           (empty == 0 ? std::string()
                                       : " (" + std::to_string(empty) +
                                             (empty == 1 ? " of them holds" : " of them hold") +
                                             " no case: more shards than cases)"));

  // The rows in the sweep's order, as its whole run would hold them: by case, in the dealing's
  // order, a case's rows in their own order.
  const auto case_of = [&](const RowKey& row) {
    return dealt_cases.find(row).value_or(plan.cases.size());
  };
  std::stable_sort(out.results.begin(), out.results.end(), [&](const Result& a, const Result& b) {
    return case_of(a.row) < case_of(b.row);
  });
  std::stable_sort(
      out.failures.begin(), out.failures.end(),
      [&](const Failure& a, const Failure& b) { return case_of(a.row) < case_of(b.row); });
}

}  // namespace

Record merge_records(const std::vector<Record>& in, const MergeOptions& options) {
  // One record merges too: a sweep's only shard (a one-task array, or the one that survived) or a
  // whole sweep, which it copies under the merge's identity.
  if (in.empty()) throw MergeRefused("a merge needs a record");
  Record out;
  out.run_id = options.run_id;
  out.created_utc = options.created_utc;
  out.gpumeter_version = options.gpumeter_version;
  out.argv = options.argv;
  const Record& first = in.front();
  copy_measured_setup(first, out);
  const std::vector<const Record*> shards = shards_of_one_sweep(in);

  std::vector<std::string> mixed;
  std::set<std::string> methods;
  std::set<RowKey> rows;
  std::set<std::tuple<RowKey, Phase, PhaseSetting, Statistic>> phase_keys;
  std::set<std::tuple<RowKey, int, PhaseSetting>> total_keys;
  std::string run_ids;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Record& r = in[i];
    run_ids += (i ? ", " : "") + r.run_id;
    // Never joined, even when mixed records are allowed: one record states its intervals and
    // precision outcomes by one version's rules, and a run to a precision stopped by its own.
    if (records_rules_version(r.schema_version) != records_rules_version(first.schema_version)) {
      throw MergeRefused("record " + std::to_string(i + 1) + " (" + r.run_id +
                             ") was judged by the comparison rules of schema version " +
                             std::to_string(r.schema_version) + ", the first by those of version " +
                             std::to_string(first.schema_version) +
                             "; one record holds one version's: merge records of one version",
                         i);
    }
    if (device_of(r) != device_of(first))
      mixed.push_back("devices (" + device_of(first) + " and " + device_of(r) + ")");
    if (config_of(r) != config_of(first))
      mixed.push_back("configurations (budgets, flush or schedule)");
    if (r.project_commit != first.project_commit) mixed.push_back("project commits");
    for (const Result& res : r.results) {
      methods.insert(std::string(to_string(res.measurement.method)));
      if (!rows.insert(res.row).second) {
        throw MergeRefused("the row " + row_label(res.row) +
                               " is in two of the records; a sweep's shards hold different rows",
                           i);
      }
      // A merged record holds one configuration (the first record's): a row another budget or
      // schedule ran (allowed mixed) would read as a count its config cannot give, which the
      // reader refuses; refused here instead, naming the row.
      if (config_of(r) != config_of(first)) {
        if (const std::string why = iteration_count_problem(res, out.config); !why.empty()) {
          throw MergeRefused("the row " + row_label(res.row) +
                                 " ran with another configuration than the first record's, "
                                 "which the merged record keeps: " +
                                 why,
                             i);
        }
      }
      // The merged record names the first's device: on the host CPU, a row that read kernel
      // records or device events would be one no host can give, which the reader refuses
      // (row_checks.hpp). Refused here, mixed or not, naming the row.
      if (out.device.kind == "host" && res.measurement.method != TimingMethod::host_clock) {
        throw MergeRefused("the row " + row_label(res.row) + ", timed by " +
                               std::string(to_string(res.measurement.method)) +
                               ", cannot be held in a record of " + device_of(first) +
                               " (the first record's device): the host CPU has no kernel records "
                               "or device events",
                           i);
      }
      // B10: each row keeps its board; one that names none is its own record's device's.
      out.results.push_back(res);
      if (!out.results.back().board.known())
        out.results.back().board = board_of(r.device, r.device_state);
    }
    out.failures.insert(out.failures.end(), r.failures.begin(), r.failures.end());
    add_deviations_once(r, out);
    // Phases and totals are rows too: each measured once. A candidate's runtime is kept once,
    // and two records naming different runtimes for one candidate are not one sweep.
    for (const PhaseReading& p : r.phases) {
      if (!phase_keys.emplace(p.row, p.phase, p.setting, p.statistic).second) {
        throw MergeRefused("the phase " + std::string(to_string(p.phase)) + " of " +
                               row_label(p.row) + " is in two of the records",
                           i);
      }
      out.phases.push_back(p);
    }
    for (const MeasuredTotal& t : r.totals) {
      if (!total_keys.emplace(t.row, t.calls, t.setting).second) {
        throw MergeRefused("the total of " + std::to_string(t.calls) + " calls of " +
                               row_label(t.row) + " is in two of the records",
                           i);
      }
      out.totals.push_back(t);
    }
    for (const CandidateRuntime& c : r.runtimes) {
      const auto same = std::find_if(
          out.runtimes.begin(), out.runtimes.end(),
          [&](const CandidateRuntime& o) { return o.implementation == c.implementation; });
      if (same == out.runtimes.end()) {
        out.runtimes.push_back(c);
      } else if (same->runtime != c.runtime || same->version != c.version ||
                 same->device_alias != c.device_alias || same->arch != c.arch) {
        mixed.push_back("the runtime of " + c.implementation);
      }
    }
  }
  // Each shard's process measured its own ceilings: the merged record's are the fastest run any
  // of them saw, and every row's percentages are of those.
  std::vector<Ceilings> ceilings;
  for (const Record& r : in) ceilings.push_back(r.ceilings);
  const std::optional<Ceilings> joined = join_ceilings(ceilings);
  if (!joined) {
    mixed.push_back("ceilings (timed by different methods, or recorded without their runs)");
  } else {
    const bool differ = std::any_of(in.begin(), in.end(), [&](const Record& r) {
      return r.ceilings.flops_per_s != joined->flops_per_s ||
             r.ceilings.bytes_per_s != joined->bytes_per_s ||
             r.ceilings.runs.size() != joined->runs.size();
    });
    out.ceilings = *joined;
    if (differ) {
      out.deviations.push_back(
          "each record measured its own ceilings; the merged record's are the fastest run of any "
          "of them, and every percent of peak is of those");
    }
  }
  for (Result& res : out.results) summarize_result(res, out.ceilings);
  if (methods.size() > 1) {
    std::string list;
    for (const std::string& m : methods) list += (list.empty() ? "" : ", ") + m;
    mixed.push_back("timing methods (" + list + ")");
  }
  if (!mixed.empty()) {
    std::sort(mixed.begin(), mixed.end());
    mixed.erase(std::unique(mixed.begin(), mixed.end()), mixed.end());
    std::string what;
    for (const std::string& m : mixed) what += (what.empty() ? "" : "; ") + m;
    if (!options.allow_mixed) {
      throw MergeRefused("the records differ in " + what +
                         ": not shards of one sweep. Pass --allow-mixed to join them anyway (the "
                         "merged record says so)");
    }
    out.deviations.push_back("merged records that differ in " + what +
                             "; the header (host, device, state, configuration) is the first "
                             "record's");
  }
  // A record holds one program's section; the rows of several programs merge, their sections
  // (processes, instance counts, kernels outside every range) do not, and the record says so:
  // in its data (merged_programs, which the reader checks the rows' origins against) and in a
  // deviation for people. A record merged from program runs already says where its sections are:
  // merged again, it still holds rows of programs without their sections (found by the reader's
  // fuzz target).
  std::string programs;
  std::size_t program_records = 0;
  for (const Record& r : in) {
    if (!r.program && !r.merged_programs) continue;
    // Counted, not read off the names: a run id may be empty (found by the fuzz target too).
    ++program_records;
    programs += (program_records == 1 ? "" : ", ") + r.run_id;
  }
  if (program_records > 0) {
    out.merged_programs = true;
    const std::string said = merged_programs_deviation(programs);
    if (std::find(out.deviations.begin(), out.deviations.end(), said) == out.deviations.end()) {
      out.deviations.push_back(said);
    }
  }
  join_shards(shards, options, out);
  out.deviations.push_back("merged from " + std::to_string(in.size()) + " records: " + run_ids);
  // The records' rules (one version's, above): older ones merge into a record of their rules.
  out.schema_version = first.schema_version;
  finish_record(out, out.schema_version);
  return out;
}

}  // namespace gpumeter
