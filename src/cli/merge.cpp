// `gpumeter merge`: the records of the shards of one sweep (run on boards of one kind, one way of
// timing) joined into one record, so tables and comparisons see the whole sweep; each row keeps its
// board.
#include "merge.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command_options.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/version.hpp"

namespace gpumeter::cli {
namespace {

namespace fs = std::filesystem;

struct MergeArguments {
  std::vector<std::string> files;
  std::string out;
  bool allow_mixed = false;
  bool allow_missing_shards = false;
};

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeArguments>();
  CLI::App* sub =
      app.add_subcommand("merge", "Join the records of the shards of one sweep into one record.");
  sub->add_option("records", options->files,
                  "Record files: the shards of a sweep (one alone where it is the only shard, or "
                  "a whole sweep's record)")
      ->required()
      ->expected(1, -1);
  add_command_option(*sub, "-o,--output", options->out)->required();
  add_command_flag(*sub, "--allow-mixed", options->allow_mixed);
  add_command_flag(*sub, "--allow-missing-shards", options->allow_missing_shards);
  sub->footer(
      exit_codes_help({{kExitOk, "the merged record was written (its path on stdout)"},
                       {kExitUsage,
                        "bad arguments, a record that cannot be read, records that are not shards "
                        "of one sweep (a shard missing or partial among them), or an output that "
                        "exists"},
                       {kExitInternal}}));
  return {sub, [options](Io& io) -> int {
            // -o names the file itself: a folder there would otherwise read as "the record
            // already exists".
            std::error_code ec;
            if (fs::is_directory(options->out, ec)) {
              print_error(io, "merge",
                          "-o " + options->out +
                              " is a directory; name the merged record's file (e.g. " +
                              (fs::path(options->out) / "merged.json").string() + ")");
              return kExitUsage;
            }
            std::vector<Record> in;
            try {
              in =
                  read_records(std::vector<fs::path>(options->files.begin(), options->files.end()));
            } catch (const InvalidRecord& e) {
              print_error(io, "merge", e.what());
              return exit_code_of_error(e);
            }
            MergeOptions merge;
            merge.allow_mixed = options->allow_mixed;
            merge.allow_missing_shards = options->allow_missing_shards;
            merge.run_id = new_run_id();
            merge.created_utc = utc_now_iso();
            merge.gpumeter_version = version();
            merge.argv = {"gpumeter", "merge"};
            for (const std::string& f : options->files) merge.argv.push_back(f);
            Record out;
            try {
              out = merge_records(in, merge);
            } catch (const MergeRefused& e) {
              print_error(io, "merge",
                          e.record() ? options->files[*e.record()] + ": " + e.what() : e.what());
              return exit_code_of_error(e);
            }

            // Written atomically under the name asked for, never over an existing file (the one
            // atomic writer: temporary, fsync, link or renameat2, directory fsync).
            const fs::path target = options->out;
            try {
              (void)write_record_to(out, target);
            } catch (const Error& e) {
              print_error(io, "merge", e.what());
              return kExitUsage;
            }
            io.out << inert_text(target.string()) << "\n" << std::flush;
            return kExitOk;
          }};
}

}  // namespace gpumeter::cli
