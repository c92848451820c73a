// What one whole gpumeter::measure() costs in wall time, for a 1-block kernel and a ~60 us
// kernel, against the 125 ms budget (25 ms warm-up + 100 ms measure).
//
// Measured: wall time of measure() (steady clock), the iterations it ran (3 calibration +
// warm-up + measure; repeated phases after lost records are reported, not counted), and the
// device time those iterations must take at least (iterations x the median latency of one
// call). Wall minus that is gpumeter's overhead: launches, the L2 flush before every
// iteration, two device drains per iteration, CUPTI's per-phase setup and the final flush.
// The L2 flush's share is read off the same measurement with the flush switched off (not a
// copy of the flush here, which could drift from what the backend does). The budget is
// device time of calls; short kernels reach the 200-iteration cap long before it, so their
// wall time is mostly overhead.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "cuda_memory.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "known_kernels.hpp"
#include "number_option.hpp"

namespace {

using gpumeter::testkit::cuda_ok;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-overhead: wall time of one gpumeter::measure() against its budget",
               "gpumeter-overhead"};
  int device = 0;
  std::string json_path;
  gpumeter::check_number(app.add_option("--device", device, "CUDA device index"),
                         gpumeter::kDeviceIndex);
  app.add_option("--json", json_path, "write the results here");
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;
  if (const auto bad = gpumeter::testkit::check_output_file(app, "--json", json_path)) return *bad;
  try {
    const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(device);
    if (!avail.usable) throw gpumeter::DeviceError(avail.reason);

    gpumeter::CudaBackendOptions options;
    options.device = device;
    const auto t_setup = Clock::now();
    const std::unique_ptr<gpumeter::Backend> backend = gpumeter::make_cuda_backend(options);
    const double setup_ms = ms_since(t_setup);
    gpumeter::CudaBackendOptions no_flush_options = options;
    no_flush_options.l2_flush = false;
    const std::unique_ptr<gpumeter::Backend> no_flush =
        gpumeter::make_cuda_backend(no_flush_options);
    const double budget_ms =
        gpumeter::to_ms(gpumeter::kMeasureBudget.warmup_ns + gpumeter::kMeasureBudget.measure_ns);

    struct Work {
      std::string name;
      std::function<void()> launch;
    };
    const std::vector<Work> work = {
        {"one_block", [] { gpumeter::testkit::launch_empty(cudaStreamLegacy); }},
        {"spin_60us", [] { gpumeter::testkit::launch_spin(60'000, nullptr, cudaStreamLegacy); }},
    };

    nlohmann::json out;
    out["method"] = std::string(gpumeter::to_string(backend->method()));
    out["backend_setup_ms"] = setup_ms;
    out["budget_ms"] = budget_ms;
    std::printf("backend setup (CUPTI load, subscription, drop-counter proof): %.1f ms\n",
                setup_ms);
    std::printf("budget (warm-up + measure): %.0f ms\n\n", budget_ms);
    std::printf("%-10s %-8s | %8s | %5s | %12s | %13s | %12s | %7s\n", "kernel", "run", "wall ms",
                "iters", "calls dev ms", "wall-calls ms", "per iter us", "retries");
    struct Run {
      const char* name;
      gpumeter::Backend* backend;
    };
    for (const Work& w : work) {
      for (const Run run : {Run{"first", backend.get()}, Run{"again", backend.get()},
                            Run{"no-flush", no_flush.get()}}) {
        const auto t0 = Clock::now();
        const gpumeter::Measurement m =
            gpumeter::measure(*run.backend, gpumeter::Call{w.launch, {}});
        const double wall_ms = ms_since(t0);
        const gpumeter::Summary s = gpumeter::summarize(m.samples, m.method, m.retries);
        const std::size_t iterations =
            gpumeter::kCalibrationRuns + m.warmup_iterations + m.measure_iterations;
        const double calls_ms = static_cast<double>(iterations) * s.latency.median_ns / 1e6;
        const double overhead_ms = wall_ms - calls_ms;
        const double per_iter_us = overhead_ms * 1e3 / static_cast<double>(iterations);
        std::printf("%-10s %-8s | %8.1f | %5zu | %12.2f | %13.1f | %12.1f | %7d\n", w.name.c_str(),
                    run.name, wall_ms, iterations, calls_ms, overhead_ms, per_iter_us, m.retries);
        out["runs"].push_back({{"kernel", w.name},
                               {"run", run.name},
                               {"l2_flush", run.backend == backend.get()},
                               {"wall_ms", wall_ms},
                               {"iterations", iterations},
                               {"warmup_iterations", m.warmup_iterations},
                               {"measure_iterations", m.measure_iterations},
                               {"call_latency_median_ns", s.latency.median_ns},
                               {"device_busy_median_ns", s.device_busy.median_ns},
                               {"calls_device_ms", calls_ms},
                               {"wall_minus_calls_ms", overhead_ms},
                               {"overhead_per_iteration_us", per_iter_us},
                               {"retries", m.retries}});
      }
    }
    std::printf(
        "\nwall-calls = wall time minus (iterations x median call latency): the L2 flush "
        "(write of 2x L2, then a read of it), two drains per iteration and CUPTI setup/flush "
        "per phase. no-flush: the same with the flush off (not a valid measurement; it only "
        "shows the flush's share). Retried phases are not in 'iters'.\n");
    if (!json_path.empty()) {
      std::ofstream f(json_path);
      f << out.dump(2) << "\n";
      if (!f) throw std::runtime_error("cannot write " + json_path);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-overhead: %s\n", e.what());
    return 1;
  }
}
