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
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/reporter.hpp"
#include "gpumeter/table.hpp"
#include "number_option.hpp"
#include "temporary_file.hpp"
#ifdef GPUMETER_HAVE_CUDA
#include "gpumeter/cuda_backend.hpp"
#endif

namespace {

struct Options {
  std::string backend = "auto";
  int device = 0;
  bool allow_events_fallback = false;
  std::string out_dir = "gpumeter-results";
  bool wide = false;
};

struct Chosen {
  std::unique_ptr<gpumeter::Backend> backend;
  gpumeter::example::ExampleWork work;
  std::vector<std::string> deviations;
  gpumeter::Ceilings ceilings;
};

Chosen choose(const Options& o) {
  Chosen c;
  std::string why_host;
#ifdef GPUMETER_HAVE_CUDA
  if (o.backend != "host") {
    const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(o.device);
    if (avail.usable) {
      gpumeter::CudaBackendOptions opt;
      opt.device = o.device;
      opt.allow_events_fallback = o.allow_events_fallback;
      c.backend = gpumeter::make_cuda_backend(opt);
      c.work = gpumeter::example::cuda_example_work(o.device);
      // Timed by the backend that times the rows; without them only the percentages are
      // missing, and the record says why.
      try {
        c.ceilings = gpumeter::measure_ceilings(*c.backend);
      } catch (const gpumeter::Error& e) {
        c.deviations.push_back(std::string("ceilings not measured (no percent of peak): ") +
                               e.what());
      }
      return c;
    }
    if (o.backend == "cuda") throw gpumeter::DeviceError(avail.reason);
    why_host = avail.reason;
  }
#else
  if (o.backend == "cuda") {
    throw gpumeter::ConfigError("this gpumeter was built without the CUDA backend");
  }
  why_host = "this gpumeter was built without the CUDA backend";
#endif
  if (o.backend == "host") why_host = "the host backend was asked for";
  // One short line; the record's deviations below say why in full.
  std::printf("%s: the same pipeline runs on the host backend (host-wall timing, CPU work).\n\n",
              o.backend == "host" ? "Host backend asked for" : "No usable GPU");
  c.backend = gpumeter::make_host_backend();
  c.work = gpumeter::example::host_example_work();
  c.deviations.push_back("host backend instead of a GPU: " + why_host);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-example: measure the bundled example work and print its table",
               "gpumeter-example"};
  Options o;
  app.add_option("--backend", o.backend, "auto, cuda or host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}));
  gpumeter::check_number(app.add_option("--device", o.device, "CUDA device index"),
                         gpumeter::kDeviceIndex);
  app.add_flag("--allow-events-fallback", o.allow_events_fallback,
               "time with CUDA events when CUPTI cannot be used (rows marked cuda-events)");
  app.add_option("--out", o.out_dir, "directory for the JSON record");
  app.add_flag("--wide", o.wide, "every column in the table (the record holds them all)");
  app.footer(
      "Exit codes: 0 every case measured; 1 a case produced no number (the notes say why); 2 a "
      "usage error, or --out cannot be written (nothing measured); 3 an internal error.");
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;

  // Where the record goes is checked before anything is measured.
  try {
    gpumeter::prepare_output_directory(o.out_dir);
  } catch (const gpumeter::Error& e) {
    std::fprintf(stderr, "gpumeter-example: --out %s: %s\n", o.out_dir.c_str(), e.what());
    return 2;
  }

  try {
    Chosen c = choose(o);
    std::printf("Measuring %s on %s (%s)\n", c.work.description.c_str(),
                c.backend->device().name.c_str(),
                std::string(gpumeter::to_string(c.backend->method())).c_str());
    gpumeter::RunOptions run;
    run.argv.assign(argv, argv + argc);
    run.deviations = c.deviations;
    run.ceilings = c.ceilings;
    run.progress = [](const gpumeter::Case& done, std::size_t i, std::size_t n) {
      std::fprintf(stderr, "  [%zu/%zu] %s\n", i, n, done.name.c_str());
    };
    gpumeter::Record rec = gpumeter::run_cases(*c.backend, c.work.cases, run);
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
      return 1;
    }
    return 0;
  } catch (const gpumeter::Error& e) {
    std::fprintf(stderr, "gpumeter-example: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-example: internal error: %s\n", e.what());
    return 3;
  }
}
