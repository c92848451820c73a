// gpumeter's main job: measure the bundled example work, write the record, print the table
// and the verdicts read back from that record. On the GPU where one is usable; otherwise the
// same pipeline on the host backend, saying so.
#include <CLI/CLI.hpp>
#include <cstddef>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "command_line.hpp"
#include "example_work.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/option_spec.hpp"
#include "gpumeter/records.hpp"
#include "gpumeter/report.hpp"
#include "gpumeter/session.hpp"
#include "table_option.hpp"
#include "temporary_file.hpp"

namespace {

struct Options {
  std::string timing = "auto";
  int device = 0;
  bool allow_events_fallback = false;
  std::string out_dir = "gpumeter-results";
  bool wide = false;
};

// What the options ask of the session: how to time, on which device. The session takes the
// device lock and chooses the backend; the work follows the backend's device. --timing takes the
// session's names with the session's meanings, as every program's does: host on a usable GPU is
// the synchronized wall clock around the GPU work, elsewhere the host clock around the host work.
gpumeter::SessionOptions session_options(const Options& o) {
  gpumeter::SessionOptions s;
  s.device = o.device;
  s.timing = gpumeter::parse_timing(o.timing, "--timing");
  s.allow_events_fallback = o.allow_events_fallback;
  return s;
}

// The session's timing names (kTimingNames), which --timing takes.
std::vector<std::string> timing_names() {
  std::vector<std::string> names;
  for (const gpumeter::TimingName& t : gpumeter::kTimingNames) names.emplace_back(t.name);
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-example: measure the bundled example work and print its table",
               "gpumeter-example"};
  Options o;
  const gpumeter::OptionSpec& timing = gpumeter::option_spec("--timing");
  app.add_option(std::string(timing.name), o.timing,
                 gpumeter::option_help(timing.meaning, timing.default_text))
      ->check(CLI::IsMember(timing_names()));
  // --device and --out: the shared options' specs, as every front end takes them; --out's
  // default is this program's own (the spec leaves it to each).
  const gpumeter::OptionSpec& device = gpumeter::option_spec("--device");
  gpumeter::add_value_option(app, device.name, device.meaning, o.device, device.default_text);
  // --allow-events-fallback and --wide mean what they mean in the benchmark programs: one help.
  app.add_flag("--allow-events-fallback", o.allow_events_fallback,
               std::string(gpumeter::kAllowEventsFallbackOption.help));
  gpumeter::add_value_option(app, "--out", gpumeter::option_spec("--out").meaning, o.out_dir,
                             o.out_dir);
  app.add_flag("--wide", o.wide, std::string(gpumeter::kWideOption.help));
  app.footer(
      gpumeter::exit_codes_help(
          {{gpumeter::kExitOk, "every case measured"},
           {gpumeter::kExitFailed, "a case produced no number (the notes say why)"},
           {gpumeter::kExitUsage, "a usage error, or --out cannot be written (nothing measured)"},
           {gpumeter::kExitInternal},
           {gpumeter::kExitBusy},
           {gpumeter::kExitNoDevice,
            "--timing cupti or events on a machine with no usable CUDA GPU (one line says "
            "so; nothing measured)"}}) +
      " The device lock is $GPU_LOCK, else /tmp/gpumeter-gpu-<uuid>.lock.");
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;

  try {
    // Where the record goes is checked before anything is measured: a usage error, as a
    // program's --out is.
    try {
      gpumeter::prepare_output_directory(o.out_dir);
    } catch (const gpumeter::Error& e) {
      throw gpumeter::ConfigError("--out " + o.out_dir + ": " + e.what());
    }
    const gpumeter::SessionOptions choice = session_options(o);
    gpumeter::Session::check_timing_is_built(choice);
    // Said once, before the lock: --timing cupti without a usable GPU has nothing to measure,
    // and every program says so with the same code (5).
    if (const std::string why = gpumeter::Session::unusable_device(choice); !why.empty()) {
      std::fprintf(stderr, "gpumeter-example: %s\n",
                   gpumeter::Session::no_usable_gpu(choice, why).c_str());
      return gpumeter::kExitNoDevice;
    }
    gpumeter::Session session(choice);
    gpumeter::Backend& backend = session.backend();
    const bool on_gpu = backend.device().kind == "cuda";
    gpumeter::example::ExampleWork work;
#ifdef GPUMETER_HAVE_CUDA
    if (on_gpu) work = gpumeter::example::cuda_example_work(o.device);
#endif
    if (!on_gpu) {
      // One short line; the record's deviations below say why in full.
      std::printf(
          "No usable GPU: the same pipeline runs on the host backend (host-clock timing, CPU "
          "work).\n\n");
      work = gpumeter::example::host_example_work();
    }
    std::printf("Measuring %s on %s (%s)\n", work.description.c_str(),
                backend.device().name.c_str(),
                std::string(gpumeter::to_string(backend.method())).c_str());
    gpumeter::RunOptions run;
    run.argv.assign(argv, argv + argc);
    run.ceilings = session.ceilings();
    run.deviations = session.deviations();
    run.progress = [](const gpumeter::Case& done, std::size_t i, std::size_t n) {
      std::fprintf(stderr, "  [%zu/%zu] %s\n", i, n, done.name.c_str());
    };
    gpumeter::Record rec = gpumeter::run_cases(backend, work.cases, run);
    rec.run_id = gpumeter::new_run_id();
    const auto path = gpumeter::write_record(rec, o.out_dir);
    // Everything below is read back from the file: the record is the only source of tables.
    const std::vector<gpumeter::Record> records = gpumeter::read_records({path});
    const std::string table = gpumeter::make_reporter(o.wide ? gpumeter::ReportFormat::wide_markdown
                                                             : gpumeter::ReportFormat::markdown)
                                  ->render(records);
    std::printf("\n%s\nRecord: %s\n", table.c_str(), path.c_str());
    if (!records.front().failures.empty()) {
      std::fprintf(stderr, "gpumeter-example: %zu case(s) produced no number; the notes say why\n",
                   records.front().failures.size());
      return gpumeter::kExitFailed;
    }
    return gpumeter::kExitOk;
  } catch (const gpumeter::Error& e) {
    // The code is the catalogue's, as every program's (exit_code_of_error).
    std::fprintf(stderr, "gpumeter-example: %s\n", e.what());
    return gpumeter::exit_code_of_error(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-example: internal error: %s\n", e.what());
    return gpumeter::kExitInternal;
  }
}
