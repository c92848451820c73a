// `gpumeter merge`: the records of the shards of one sweep (run on one device, one way of timing)
// joined into one record, so tables and comparisons see the whole sweep.
#include "merge.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpumeter/ceilings.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/version.hpp"

namespace gpumeter::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> files;
  std::string out;
  bool allow_mixed = false;
};

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

Command add_merge_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("merge", "Join the records of the shards of one sweep into one record.");
  sub->add_option("records", options->files, "Record files, two or more")
      ->required()
      ->expected(2, -1);
  sub->add_option("-o,--output", options->out, "The merged record to write (never overwritten)")
      ->required();
  sub->add_flag("--allow-mixed", options->allow_mixed,
                "Join records of different devices, timing methods or budgets (the merged record "
                "says so)");
  return {
      sub, [options](Io& io) -> int {
        std::vector<Record> in;
        try {
          in = read_records(std::vector<fs::path>(options->files.begin(), options->files.end()));
        } catch (const InvalidRecord& e) {
          print_error(io, "merge", e.what());
          return kExitUsage;
        }
        Record out;
        out.run_id = new_run_id();
        out.created_utc = utc_now_iso();
        out.gpumeter_version = version();
        out.argv = {"gpumeter", "merge"};
        for (const std::string& f : options->files) out.argv.push_back(f);
        const Record& first = in.front();
        copy_measured_setup(first, out);

        std::vector<std::string> mixed;
        std::set<std::string> methods;
        std::set<RowKey> rows;
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
              print_error(io, "merge",
                          options->files[i] + ": the row " + row_label(res.row) +
                              " is in two of the records; a sweep's shards hold "
                              "different rows");
              return kExitUsage;
            }
            out.results.push_back(res);
          }
          out.failures.insert(out.failures.end(), r.failures.begin(), r.failures.end());
          add_deviations_once(r, out);
        }
        // Each shard's process measured its own ceilings: the merged record's are the
        // fastest run any of them saw, and every row's percentages are of those.
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
                "each record measured its own ceilings; the merged record's are the fastest "
                "run of any of them, and every percent of peak is of those");
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
          if (!options->allow_mixed) {
            print_error(io, "merge",
                        "the records differ in " + what +
                            ": not shards of one sweep. Pass --allow-mixed to "
                            "join them anyway (the merged record says so)");
            return kExitUsage;
          }
          out.deviations.push_back("merged records that differ in " + what +
                                   "; the header (host, device, state, configuration) is "
                                   "the first record's");
        }
        out.deviations.push_back("merged from " + std::to_string(in.size()) +
                                 " records: " + run_ids);
        out.comparisons = compare_results(out.results);

        // Written beside the target under its run-unique name, then linked to the name asked
        // for: link() fails rather than replace a file, so nothing is ever overwritten.
        const fs::path target = options->out;
        const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
        if (fs::exists(target)) {
          print_error(io, "merge",
                      target.string() + " already exists; records are never overwritten");
          return kExitUsage;
        }
        fs::path written;
        try {
          written = write_record(out, dir);
        } catch (const Error& e) {
          print_error(io, "merge", e.what());
          return kExitUsage;
        }
        if (written != target) {
          if (::link(written.c_str(), target.c_str()) != 0) {
            const int error = errno;
            ::unlink(written.c_str());
            print_error(io, "merge",
                        "cannot create " + target.string() + ": " + std::strerror(error));
            return kExitUsage;
          }
          ::unlink(written.c_str());
        }
        io.out << target.string() << "\n" << std::flush;
        return kExitOk;
      }};
}

}  // namespace gpumeter::cli
