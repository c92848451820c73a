// The benchmark programs' command line (options.hpp).
#include "options.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/version.hpp"
#include "number_option.hpp"

namespace gpumeter::program {

std::string program_name(const char* argv0) {
  return std::filesystem::path(argv0 != nullptr ? argv0 : "benchmark").filename().string();
}

// One line for the user, controls shown, never obeyed.
void say(const std::string& program, const std::string& message) {
  std::cerr << program << ": " << inert_text(message) << '\n';
}

// Each part by the rule every numeric option follows (number_option.hpp).
Budget parse_budget(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos) {
    throw ConfigError("--budget must be WARMUP_MS,MEASURE_MS (e.g. 25,100), got '" + text + "'");
  }
  // The budget's rule is the core's (budget_ms_valid: above 0, at most kMaxBudgetMs); its words
  // are every numeric option's.
  constexpr NumberRule kBudgetMs{0, true, kMaxBudgetMs, false, " ms"};
  auto ms = [&](const std::string& part, const char* name) {
    const std::string problem = number_problem(name, part, kBudgetMs);
    if (!problem.empty()) throw ConfigError(problem);
    return budget_ns_from_ms(std::strtod(part.c_str(), nullptr));
  };
  return Budget{ms(text.substr(0, comma), "--budget's warm-up"),
                ms(text.substr(comma + 1), "--budget's measurement"), kMeasureBudget.min_iterations,
                kMeasureBudget.max_iterations};
}

std::optional<PrecisionTarget> parse_precision(const Options& o) {
  if (o.precision.empty()) {
    if (!o.max_time.empty()) {
      throw ConfigError("--max-time caps a run to a target precision: give --precision too");
    }
    return std::nullopt;
  }
  if (!o.budget.empty()) {
    throw ConfigError(
        "--budget and --precision exclude each other: a run to a precision measures until it "
        "gets there (or --max-time), not for a fixed budget");
  }
  auto strip = [](std::string text, std::string_view suffix) {
    if (text.size() >= suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      text.resize(text.size() - suffix.size());
      return std::make_pair(text, true);
    }
    return std::make_pair(text, false);
  };
  PrecisionTarget t;
  // A percent, with or without its sign: "1%" and "1" both ask for 1%.
  const std::string pct = strip(o.precision, "%").first;
  constexpr NumberRule kPercent{kMinPrecisionTarget * 100, false, kMaxPrecisionTarget * 100, false,
                                "%"};
  if (const std::string problem = number_problem("--precision", pct, kPercent); !problem.empty()) {
    throw ConfigError(problem);
  }
  t.relative = std::strtod(pct.c_str(), nullptr) / 100.0;
  if (!o.max_time.empty()) {
    auto [text, in_ms] = strip(o.max_time, "ms");
    if (!in_ms) text = strip(text, "s").first;
    const double scale = in_ms ? 1e-3 : 1.0;
    const NumberRule seconds{to_ms(kMinPrecisionTime) / 1000.0 / scale, false,
                             to_ms(kMaxPrecisionTime) / 1000.0 / scale, false,
                             in_ms ? " ms" : " s"};
    if (const std::string problem = number_problem("--max-time", text, seconds); !problem.empty()) {
      throw ConfigError(problem);
    }
    t.max_time_ns = static_cast<Nanos>(std::strtod(text.c_str(), nullptr) * scale * 1e9);
  }
  return t;
}

void add_options(CLI::App& app, Options& o, const std::string& program) {
  app.set_version_flag("--version", program + " (gpumeter " + std::string(version()) + ")");
  app.add_flag("--list", o.list, "List the cases the other options select, and exit");
  app.add_option("--filter", o.filter, "Only cases whose label matches this regular expression");
  app.add_option_function<std::string>(
      "--shard", [&o](const std::string& value) { o.shard = value; },
      "K/N: measure shard K (from 0) of N of the selected cases, dealt the same way in "
      "every task, a case's implementations together; all: every case. By default a "
      "Slurm array task's or a Kubernetes indexed Job's index (docs/cluster.md)");
  auto* device =
      check_number(app.add_option("--device", o.device, "CUDA device index"), kDeviceIndex);
  app.add_option_function<std::string>(
         "--devices", [&o](const std::string& value) { o.devices = value; },
         "0,1,...|all: spread the sweep over these devices of this host, one process and "
         "one device lock each, the cases dealt as for --shard, the parts merged into one "
         "record (docs/cluster.md)")
      ->excludes(device);
  app.add_option("--axis", o.axes,
                 "Override an axis: name=v1,v2, name=start:stop[:step], or on an integer axis "
                 "name=2^a:2^b[:factor] (repeatable)");
  app.add_option("--timing", o.timing,
                 "cupti (device time, the default with CUDA; without a usable GPU the program "
                 "exits 5), events (CUDA event pairs) or host (synchronized wall clock, for host "
                 "work; the default without CUDA)")
      ->check(CLI::IsMember({"cupti", "events", "host"}));
  app.add_flag("--allow-events-fallback", o.allow_events_fallback,
               "Time with CUDA events when CUPTI cannot be used (rows say so)");
  app.add_option("--budget", o.budget,
                 "WARMUP_MS,MEASURE_MS per implementation (default " +
                     format_shortest(to_ms(kMeasureBudget.warmup_ns)) + "," +
                     format_shortest(to_ms(kMeasureBudget.measure_ns)) + ")");
  app.add_option("--precision", o.precision,
                 "Measure every case until its comparisons resolve this relative difference (or a "
                 "lone implementation's level is within it), e.g. 1%; instead of --budget");
  app.add_option("--max-time", o.max_time,
                 "The cap of a case run to --precision: seconds, e.g. 10s or 500ms (default 10s)");
  app.add_option("--out", o.out, "Directory for the record (default gpumeter-results)");
  auto* md = app.add_flag("--md", o.md, "Print the markdown table (the default)");
  add_table_format_flags(app, o.table);
  md->excludes(app.get_option("--csv"));
  app.add_flag("--quiet", o.quiet, "Print nothing but errors (no progress, no table)");
  app.add_flag("--isolate", o.isolate,
               "Run each case in a fresh process: a fault or a hang fails that case only");
  check_number(app.add_option("--timeout", o.timeout_s,
                              "Seconds a case may run before it is stopped (needs --isolate)"),
               kLimitSeconds);
  app.add_flag("--no-lock", o.no_lock,
               "Do not take the device's exclusive lock (the record says so); by default the "
               "sweep holds it, after checking that no other process uses the device");
  app.add_flag("--allow-contended", o.allow_contended,
               "Measure even when other processes use the device (the record is marked "
               "contended)");
  check_number(app.add_option("--lock-timeout", o.lock_timeout_s,
                              "Seconds to wait for another run's device lock (default " +
                                  format_shortest(kDefaultLockTimeoutS) + ")"),
               kWaitSeconds);
  app.add_option("--gpumeter-child", o.child_case)->group("");
  app.add_option("--gpumeter-child-record-fd", o.child_record_fd)->group("");
  app.add_option("--gpumeter-child-lock-fd", o.child_lock_fd)->group("");
  app.add_option("--gpumeter-child-ceilings", o.child_ceilings)->group("");
  app.add_option("--gpumeter-shard-origin", o.shard_origin)->group("");
  app.footer(
      "Exit codes: 0 every case measured (or skipped by its benchmark); 1 a case produced no "
      "number, or a row failed its null test (the record says why); 2 a usage error; 3 an internal "
      "error; 4 the device stayed busy or another run held its lock (nothing measured); 5 no "
      "usable CUDA GPU for a program that measures GPU work (nothing measured); 128+N signal N "
      "(Ctrl-C: 130) stopped the sweep, and the cases finished before it are in the partial "
      "record it names. The device lock is $GPU_LOCK, else /tmp/gpumeter-gpu-<uuid>.lock.");
}

SessionOptions session_options(const Options& o, bool parent) {
  SessionOptions s;
  s.device = o.device;
  s.timing = o.timing == "cupti"    ? Timing::cupti
             : o.timing == "events" ? Timing::events
             : o.timing == "host"   ? Timing::host
                                    : Timing::build_default;
  s.allow_events_fallback = o.allow_events_fallback;
  // A case's process measures with the ceilings its parent gave it, when it was given some.
  s.ceilings = o.child_ceilings.empty();
  s.lock = !parent ? LockChoice::held_by_parent : o.no_lock ? LockChoice::skip : LockChoice::take;
  s.lock_options.timeout_s = o.lock_timeout_s;
  s.lock_options.allow_contended = o.allow_contended;
  return s;
}

}  // namespace gpumeter::program
