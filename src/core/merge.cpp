#include "gpumeter/merge.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gpumeter/ceilings.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/summary.hpp"

namespace gpumeter {
namespace {

std::string device_of(const Record& r) {
  return r.device.uuid.empty() ? r.device.kind + ":" + r.device.name : r.device.uuid;
}

std::string config_of(const Record& r) {
  const RunConfig& c = r.config;
  return std::to_string(c.budget.warmup_ns) + "/" + std::to_string(c.budget.measure_ns) + "/" +
         std::to_string(c.budget.min_iterations) + "/" + std::to_string(c.budget.max_iterations) +
         "/" + (c.l2_flush ? "flush:" + c.l2_flush_mode : "noflush") + "/" + c.schedule;
}

}  // namespace

Record merge_records(const std::vector<Record>& in, const MergeOptions& options) {
  if (in.size() < 2) throw MergeRefused("a merge needs two records or more");
  Record out;
  out.run_id = options.run_id;
  out.created_utc = options.created_utc;
  out.gpumeter_version = options.gpumeter_version;
  out.argv = options.argv;
  const Record& first = in.front();
  copy_measured_setup(first, out);

  std::vector<std::string> mixed;
  std::set<std::string> methods;
  std::set<RowKey> rows;
  std::set<std::tuple<RowKey, Phase, PhaseSetting, Statistic>> phase_keys;
  std::set<std::tuple<RowKey, int, PhaseSetting>> total_keys;
  std::string run_ids;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Record& r = in[i];
    run_ids += (i ? ", " : "") + r.run_id;
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
      out.results.push_back(res);
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
  for (Result& res : out.results) {
    const Measurement& m = res.measurement;
    res.summary = summarize(m.samples, m.method, m.retries, res.workload, out.ceilings);
  }
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
  // (processes, instance counts, kernels outside every range) do not, and the record says so.
  // A record merged from program runs already says where its sections are: merged again, it
  // still holds rows of programs without their sections (found by the reader's fuzz target).
  std::string programs;
  std::size_t program_records = 0;
  for (const Record& r : in) {
    const bool merged_programs =
        std::any_of(r.deviations.begin(), r.deviations.end(),
                    [](const std::string& d) { return d.rfind(kMergedProgramsMark, 0) == 0; });
    if (!r.program && !merged_programs) continue;
    // Counted, not read off the names: a run id may be empty (found by the fuzz target too).
    ++program_records;
    programs += (program_records == 1 ? "" : ", ") + r.run_id;
  }
  if (program_records > 0) {
    out.deviations.push_back(
        std::string(kMergedProgramsMark) + programs +
        "): their rows are here, their program sections (processes, instance counts, kernels "
        "outside every range) are in the records merged");
  }
  out.deviations.push_back("merged from " + std::to_string(in.size()) + " records: " + run_ids);
  out.comparisons = compare_results(out.results);
  return out;
}

}  // namespace gpumeter
