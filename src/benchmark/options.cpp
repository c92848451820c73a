// The benchmark programs' command line (options.hpp).
#include "options.hpp"

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/option_spec.hpp"
#include "gpumeter/option_table.hpp"
#include "gpumeter/run_target.hpp"
#include "gpumeter/version.hpp"
#include "number_option.hpp"
#include "table_option.hpp"

namespace gpumeter::program {

std::string program_name(const char* argv0) {
  return std::filesystem::path(argv0 != nullptr ? argv0 : "benchmark").filename().string();
}

// One line for the user, controls shown, never obeyed.
void say(const std::string& program, const std::string& message) {
  std::cerr << program << ": " << inert_text(message) << '\n';
}

// Each part by the core's rule (kBudgetMsRule), in the words of every numeric option.
Budget parse_budget(const std::string& text) {
  const BudgetValue b = read_budget("--budget", text);
  if (!b.ok()) throw ConfigError(b.problem);
  return Budget{budget_ns_from_ms(b.warmup_ms), budget_ns_from_ms(b.measure_ms),
                kMeasureBudget.min_iterations, kMeasureBudget.max_iterations};
}

std::optional<PrecisionTarget> parse_precision(const Options& o) {
  if (const RunTargetConflict conflict =
          run_target_conflict(!o.budget.empty(), !o.precision.empty(), !o.max_time.empty(),
                              {"--budget", "--precision", "--max-time"});
      !conflict.empty()) {
    throw ConfigError(conflict.problem);
  }
  if (o.precision.empty()) return std::nullopt;
  // Read by the rules every front end reads them by (option_spec.hpp): a fraction, 1% or 0.01;
  // a duration, 10s, 500ms or bare seconds.
  const auto read = [](const char* name, const std::string& text, const NumberRule& rule) {
    if (const std::string problem = number_problem(name, text, rule); !problem.empty()) {
      throw ConfigError(problem);
    }
    return read_number(text, rule).value;
  };
  PrecisionTarget t;
  t.relative = read("--precision", o.precision, kPrecisionTargetRule);
  if (!o.max_time.empty()) {
    t.max_time_ns = static_cast<Nanos>(read("--max-time", o.max_time, kPrecisionTimeRule) * 1e9);
  }
  return t;
}

namespace {

// The table's entry of `name` (option_table.hpp), which must say what CLI11 is told: a flag or an
// option with a value. A name it lacks, or lists otherwise, is this file's mistake, refused on any
// program's first run and by the unit test (test_options.cpp).
const ProgramOption& entry(std::string_view name, bool takes_value) {
  const ProgramOption* o = find_program_option(name);
  if (o == nullptr || o->name != name || o->meaning.takes_value != takes_value) {
    throw std::logic_error(
        "the benchmark programs' option " + std::string(name) + " is " +
        (o == nullptr ? "not in the option table" : "listed otherwise in the option table") +
        " (option_table.cpp)");
  }
  return *o;
}

// The table's internal options are hidden from --help.
CLI::Option* hidden_if_internal(CLI::Option* option, const ProgramOption& o) {
  if (o.role == OptionRole::internal) option->group("");
  return option;
}

// Each option with its entry's help and number rule (table_option.hpp).
CLI::Option* flag(CLI::App& app, std::string_view name, bool& into) {
  const ProgramOption& o = entry(name, false);
  return hidden_if_internal(add_flag_option(app, name, o.meaning, into), o);
}

template <class T>
CLI::Option* value(CLI::App& app, std::string_view name, T& into,
                   const std::string& default_text = "") {
  const ProgramOption& o = entry(name, true);
  return hidden_if_internal(add_value_option(app, name, o.meaning, into, default_text), o);
}

CLI::Option* value_function(CLI::App& app, std::string_view name,
                            std::function<void(const std::string&)> into) {
  const ProgramOption& o = entry(name, true);
  return hidden_if_internal(add_value_function(app, name, o.meaning, std::move(into)), o);
}

// --timing's names: the session's (kTimingNames), less auto: a program of GPU work times it on
// the GPU or says why not (exit 5), never falling back to the host clock unasked.
std::vector<std::string> program_timing_names() {
  std::vector<std::string> names;
  for (const TimingName& t : kTimingNames) {
    if (t.timing != Timing::automatic) names.emplace_back(t.name);
  }
  return names;
}

}  // namespace

bool cli_takes_value(const CLI::Option& option) {
  return option.get_expected_max() > 0;
}

void add_options(CLI::App& app, Options& o, const std::string& program) {
  app.set_version_flag("--version", program + " (gpumeter " + std::string(version()) + ")",
                       option_help(entry("--version", false).meaning));
  flag(app, "--list", o.list);
  value(app, "--filter", o.filter);
  value_function(app, "--shard", [&o](const std::string& v) { o.shard = v; });
  auto* device = value(app, "--device", o.device);
  value_function(app, "--devices", [&o](const std::string& v) { o.devices = v; })->excludes(device);
  value(app, "--axis", o.axes);
  value(app, "--timing", o.timing)->check(CLI::IsMember(program_timing_names()));
  flag(app, "--allow-events-fallback", o.allow_events_fallback);
  value(app, "--budget", o.budget, option_spec("--budget").default_text);
  value(app, "--precision", o.precision);
  value(app, "--max-time", o.max_time, option_spec("--max-time").default_text);
  value(app, "--out", o.out, Options{}.out);
  auto* md = flag(app, "--md", o.md);
  // --csv and --wide: every table-printing program's, with their help (table_format_option.hpp).
  add_table_format_flags(app, o.table);
  md->excludes(app.get_option("--csv"));
  flag(app, "--quiet", o.quiet);
  flag(app, "--isolate", o.isolate);
  value(app, "--timeout", o.timeout_s);
  flag(app, "--no-lock", o.no_lock);
  flag(app, "--allow-contended", o.allow_contended);
  value(app, "--lock-timeout", o.lock_timeout_s, format_shortest(kDefaultLockTimeoutS));
  value(app, "--gpumeter-child", o.child_case);
  value(app, "--gpumeter-child-record-fd", o.child_record_fd);
  value(app, "--gpumeter-child-lock-fd", o.child_lock_fd);
  value(app, "--gpumeter-child-ceilings", o.child_ceilings);
  value(app, "--gpumeter-shard-origin", o.shard_origin);
  // Whatever registered an option (the table-format flags), the table lists it as CLI11 has it.
  for (const CLI::Option* option : app.get_options()) {
    if (option == app.get_help_ptr() || option == app.get_help_all_ptr()) continue;
    for (const std::string& name : option->get_lnames()) {
      entry("--" + name, cli_takes_value(*option));
    }
  }
  app.footer(exit_codes_help({{kExitOk, "every case measured (or skipped by its benchmark)"},
                              {kExitFailed,
                               "a case produced no number, or a row failed its null test (the "
                               "record says why)"},
                              {kExitUsage},
                              {kExitInternal},
                              {kExitBusy},
                              {kExitNoDevice},
                              {kExitSignalBase,
                               "signal N (Ctrl-C: 130) stopped the sweep, and the cases finished "
                               "before it are in the partial record it names"}}) +
             " The device lock is $GPU_LOCK, else /tmp/gpumeter-gpu-<uuid>.lock.");
}

SessionOptions session_options(const Options& o, bool parent) {
  SessionOptions s;
  s.device = o.device;
  s.timing = o.timing.empty() ? Timing::build_default : parse_timing(o.timing, "--timing");
  s.allow_events_fallback = o.allow_events_fallback;
  // A case's process measures with the ceilings its parent gave it, when it was given some.
  s.ceilings = o.child_ceilings.empty();
  s.lock = !parent ? LockChoice::held_by_parent : o.no_lock ? LockChoice::skip : LockChoice::take;
  s.lock_options.timeout_s = o.lock_timeout_s;
  s.lock_options.allow_contended = o.allow_contended;
  return s;
}

}  // namespace gpumeter::program
