// gpumeter::main: a benchmark program's entry (B1). It parses the command line (options.cpp),
// plans the cases and runs the sweep (sweep.cpp); a case's process under --isolate enters here
// too (isolate.cpp), and the record is checkpointed case by case (checkpoint.cpp).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devices.hpp"
#include "gpumeter/benchmark.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/help_format.hpp"
#include "gpumeter/session.hpp"
#include "isolate.hpp"
#include "options.hpp"
#include "sweep.hpp"

namespace gpumeter {

using program::Options;
using program::program_name;
using program::say;

int main(int argc, char** argv) {
  const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
  Options o;
  CLI::App app{program +
                   ": gpumeter benchmarks. Each case (a benchmark at one value of each of its "
                   "axes) runs its implementations in A B C C B A order; the record is "
                   "written case by case, then the table is printed from it.",
               program};
  use_wrapping_help(app);
  program::add_options(app, o, program);

  try {
    // Before the parser, which would read `--shard= --quiet` as --shard --quiet.
    refuse_empty_assignments(std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
  } catch (const ConfigError& e) {
    say(program, e.what());
    std::cerr << "Run '" << program << " --help' for the options.\n";
    return exit_code_of_error(e);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    say(program, e.what());
    std::cerr << "Run '" << program << " --help' for the options.\n";
    return kExitUsage;
  }
  try {
    if (o.timeout_s > 0 && !o.isolate) {
      throw ConfigError(
          "--timeout needs --isolate: a case running in this process cannot be "
          "stopped without losing the process");
    }
    std::vector<const Benchmark*> benchmarks;
    for (const auto& b : registry().benchmarks()) benchmarks.push_back(b.get());
    if (benchmarks.empty()) throw ConfigError("this program registers no benchmark");
    std::vector<PlannedCase> cases = plan_cases(benchmarks, o.axes, o.filter);
    // The same answer with --list as without: a filter that selects nothing is a usage error.
    if (cases.empty()) throw ConfigError("no case matches --filter '" + o.filter + "'");
    // B10: this task's share of the sweep, dealt from every selected case, so each task of an
    // array finds its own without the others. A case's process (--isolate) deals the same way.
    std::optional<std::string_view> shard_option;
    if (o.shard) shard_option = *o.shard;
    std::optional<Shard> s = resolve_shard(shard_option, process_environment());
    if (o.devices) {
      // One process per device, each dealt its shard of this task's sweep (devices.cpp).
      const SessionOptions choice = program::session_options(o, true);
      Session::check_timing_is_built(choice);
      const std::vector<HostDevice> devices =
          choose_devices(*o.devices, Session::host_devices(choice));
      return program::run_on_devices(o, std::vector<std::string>(argv, argv + argc), cases, program,
                                     s, devices);
    }
    std::optional<ShardPlan> shard;
    if (s) {
      // A process of --devices is told which device and task its shard is of.
      if (!o.shard_origin.empty() && s->source == ShardSource::option) s->origin = o.shard_origin;
      shard = plan_shard(*s, program::case_keys(cases));
      std::vector<PlannedCase> mine;
      for (std::size_t k = 0; k < cases.size(); ++k) {
        if (shard->cases[k].shard == s->index) mine.push_back(cases[k]);
      }
      if (mine.empty()) {
        // More shards than cases: this one is an empty part of the sweep, which a merge of the
        // others does not need. Nothing is measured, no lock taken, no record written.
        if (!o.quiet && !o.list) {
          say(program, shard_label(s->index, s->count) + " (" + s->origin + ") holds none of the " +
                           std::to_string(cases.size()) +
                           " selected cases (more shards than cases): nothing to measure, no "
                           "record written; a merge of the other shards is the whole sweep");
        }
        return kExitOk;
      }
      if (o.child_case < 0 && !o.quiet && !o.list) {
        say(program, shard_label(s->index, s->count) + " (" + s->origin +
                         "): " + std::to_string(mine.size()) + " of the sweep's " +
                         cases_text(cases.size()));
      }
      cases = std::move(mine);
    }
    if (o.list) {
      for (std::size_t k = 0; k < cases.size(); ++k)
        std::cout << k << '\t' << cases[k].label << '\n';
      return kExitOk;
    }
    if (o.child_case >= 0) {
      if (static_cast<std::size_t>(o.child_case) >= cases.size() || o.child_record_fd < 0) {
        throw ConfigError("internal: a child case out of the plan");
      }
      program::keep_child_descriptors(o);
      cases = {cases[static_cast<std::size_t>(o.child_case)]};
      o.quiet = true;
      shard.reset();  // the parent's record is the shard's; a case's process hands it one case
    }
    if (!o.budget.empty())
      (void)program::parse_budget(o.budget);  // a bad budget is a usage error now
    (void)program::parse_precision(o);        // so are a bad target and cap
    const SessionOptions choice = program::session_options(o, o.child_case < 0);
    Session::check_timing_is_built(choice);
    if (o.child_case < 0) {
      // Said once, before the lock or any case: every case would fail without a device.
      if (const std::string why = Session::unusable_device(choice); !why.empty()) {
        say(program, Session::no_usable_gpu(choice, why));
        return kExitNoDevice;
      }
    }
    return program::run_sweep(o, std::vector<std::string>(argv, argv + argc), cases, program,
                              std::move(shard));
  } catch (const ConfigError& e) {
    say(program, e.what());
    std::cerr << "Run '" << program << " --help' for the options.\n";
    return exit_code_of_error(e);
  } catch (const Error& e) {
    say(program, std::string(error_name(e)) + ": " + e.what());
    return exit_code_of_error(e);
  } catch (const std::exception& e) {
    say(program, std::string("internal error: ") + e.what());
    return kExitInternal;
  }
}

}  // namespace gpumeter
