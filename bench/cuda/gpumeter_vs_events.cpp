// gpumeter's device_busy beside CUDA events, for a 1-block kernel and a bandwidth-bound kernel
// moving 512 MiB, and a bare mode for Nsight Compute.
//
//   gpumeter-vs-events [--json out.json]       CUPTI (gpumeter) and CUDA events, one table
//   gpumeter-vs-events --mode bare --kernel one_block --iterations 20
//       launches the kernel alone, with no CUPTI, for
//       ncu --clock-control none --metrics gpu__time_duration.sum gpumeter-vs-events --mode bare
//       ...
//
// ncu and gpumeter's CUPTI session cannot share a process (CUPTI serves one client), hence a
// separate run; scripts/device-check.sh puts the three columns side by side. Expect ncu to
// read a constant ~1 us above CUPTI (measured on the H200: 1.89 vs 0.90 us for a 1-block kernel)
// and events to read the launch interval, not the kernel, for short kernels.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "cuda_memory.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "known_kernels.hpp"
#include "number_option.hpp"

namespace {

using gpumeter::testkit::cuda_ok;
using gpumeter::testkit::DeviceMemory;

// 256 MiB read + 256 MiB written: far beyond the H200's 60 MB L2, so the kernel streams HBM.
constexpr std::size_t kBandwidthBytesEachWay = std::size_t{256} << 20;

struct Kernel {
  std::string name;
  double bytes_moved = 0;
  std::function<void()> launch;
};

struct Kernels {
  std::unique_ptr<DeviceMemory> in;
  std::unique_ptr<DeviceMemory> out;
  std::vector<Kernel> list;
};

Kernels make_kernels(int device, const std::string& which) {
  Kernels k;
  int sms = 0;
  cuda_ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  if (which == "one_block" || which == "all") {
    k.list.push_back({"one_block", 0, [] { gpumeter::testkit::launch_empty(cudaStreamLegacy); }});
  }
  if (which == "bandwidth" || which == "all") {
    k.in = std::make_unique<DeviceMemory>(kBandwidthBytesEachWay);
    k.out = std::make_unique<DeviceMemory>(kBandwidthBytesEachWay);
    cuda_ok(cudaMemset(k.in->get(), 1, kBandwidthBytesEachWay), "cudaMemset");
    const std::size_t n = kBandwidthBytesEachWay / 16;
    void* in = k.in->get();
    void* out = k.out->get();
    const int blocks = sms * 4;
    k.list.push_back({"bandwidth", 2.0 * kBandwidthBytesEachWay, [=] {
                        gpumeter::testkit::launch_copy(in, out, n, blocks, cudaStreamLegacy);
                      }});
  }
  if (k.list.empty()) throw gpumeter::ConfigError("unknown --kernel " + which);
  return k;
}

nlohmann::json summary_json(const gpumeter::Measurement& m) {
  const gpumeter::Summary s = gpumeter::summarize(m.samples, m.method, m.retries);
  nlohmann::json j;
  j["method"] = std::string(gpumeter::to_string(m.method));
  j["reason"] = m.reason;
  j["n_samples"] = s.n_samples;
  j["device_busy_median_ns"] = s.device_busy.median_ns;
  j["device_busy_p10_ns"] = s.device_busy.p10_ns;
  j["device_busy_p90_ns"] = s.device_busy.p90_ns;
  j["latency_median_ns"] = s.latency.median_ns;
  j["max_n_kernels"] = s.max_n_kernels ? nlohmann::json(*s.max_n_kernels) : nlohmann::json();
  j["retries"] = m.retries;
  j["drop_counter_live"] = m.drop_counter_live;
  return j;
}

int run_bare(int device, const std::string& which, int iterations) {
  // No gpumeter backend here: CUPTI stays unloaded, so ncu can attach.
  cuda_ok(cudaSetDevice(device), "cudaSetDevice");
  Kernels k = make_kernels(device, which);
  for (const Kernel& kernel : k.list) {
    for (int i = 0; i < iterations; ++i) {
      kernel.launch();
      cuda_ok(cudaDeviceSynchronize(), "kernel");
    }
    std::printf("bare: %d launches of %s\n", iterations, kernel.name.c_str());
  }
  return 0;
}

int run_compare(int device, const std::string& which, const std::string& json_path) {
  gpumeter::CudaBackendOptions options;
  options.device = device;
  const std::unique_ptr<gpumeter::Backend> cupti = gpumeter::make_cuda_backend(options);
  const std::unique_ptr<gpumeter::Backend> events =
      gpumeter::make_cuda_events_backend(options, "comparison column: CUDA events");
  // The same CUPTI timing after a write-only flush, which leaves dirty lines in L2: the
  // difference is what the flush's own write-backs cost the measured kernel.
  gpumeter::CudaBackendOptions dirty_options = options;
  dirty_options.l2_flush_mode = gpumeter::CudaBackendOptions::L2Flush::write;
  const std::unique_ptr<gpumeter::Backend> cupti_dirty = gpumeter::make_cuda_backend(dirty_options);
  Kernels k = make_kernels(device, which);

  nlohmann::json out;
  const gpumeter::DeviceIdentity id = cupti->device();
  out["device"] = {{"index", id.index}, {"name", id.name}, {"uuid", id.uuid}, {"arch", id.arch}};
  out["protocol"] =
      "both columns: gpumeter::measure (calibrate, 25 ms warm-up, 100 ms measure, L2 flushed "
      "and device drained before each iteration); CUPTI column = device_busy, events column = "
      "one event pair per iteration on the legacy default stream";
  std::printf("%-10s | %-32s | %-32s | %s\n", "kernel", "gpumeter (CUPTI) device_busy us",
              "CUDA events per iteration us", "events / CUPTI");
  std::printf("%-10s | %-32s | %-32s | %s\n", "", "median [p10, p90]", "median [p10, p90]", "");
  for (const Kernel& kernel : k.list) {
    const gpumeter::Call call{kernel.launch, {}};
    const gpumeter::Measurement mc = gpumeter::measure(*cupti, call);
    const gpumeter::Measurement me = gpumeter::measure(*events, call);
    const gpumeter::Measurement md = gpumeter::measure(*cupti_dirty, call);
    const nlohmann::json jd = summary_json(md);
    const nlohmann::json jc = summary_json(mc);
    const nlohmann::json je = summary_json(me);
    const double c = jc["device_busy_median_ns"].get<double>();
    const double e = je["device_busy_median_ns"].get<double>();
    char col_c[64];
    char col_e[64];
    std::snprintf(col_c, sizeof(col_c), "%.2f [%.2f, %.2f]", c / 1e3,
                  jc["device_busy_p10_ns"].get<double>() / 1e3,
                  jc["device_busy_p90_ns"].get<double>() / 1e3);
    std::snprintf(col_e, sizeof(col_e), "%.2f [%.2f, %.2f]", e / 1e3,
                  je["device_busy_p10_ns"].get<double>() / 1e3,
                  je["device_busy_p90_ns"].get<double>() / 1e3);
    std::printf("%-10s | %-32s | %-32s | %.2fx\n", kernel.name.c_str(), col_c, col_e, e / c);
    nlohmann::json row = {{"kernel", kernel.name},
                          {"cupti", jc},
                          {"cuda_events", je},
                          {"cupti_after_write_only_flush", jd}};
    const double d = jd["device_busy_median_ns"].get<double>();
    std::printf("%-10s   after a write-only L2 flush: %.2f us (%+.2f us)\n", "", d / 1e3,
                (d - c) / 1e3);
    if (kernel.bytes_moved > 0) {
      row["bytes_moved"] = kernel.bytes_moved;
      row["cupti_TBps"] = kernel.bytes_moved / c * 1e9 / 1e12;
      row["events_TBps"] = kernel.bytes_moved / e * 1e9 / 1e12;
      std::printf("%-10s   %.3f TB/s by device_busy, %.3f TB/s by events\n", "",
                  row["cupti_TBps"].get<double>(), row["events_TBps"].get<double>());
    }
    out["kernels"].push_back(row);
    // One line per kernel for scripts (device-check.sh merges it with the ncu column).
    std::printf("RESULT kernel=%s cupti_us=%.3f events_us=%.3f cupti_dirty_us=%.3f\n",
                kernel.name.c_str(), c / 1e3, e / 1e3, d / 1e3);
  }
  std::printf(
      "ncu column: run this program with --mode bare under "
      "`ncu --clock-control none --metrics gpu__time_duration.sum` (a separate process)\n");
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    f << out.dump(2) << "\n";
    if (!f) throw std::runtime_error("cannot write " + json_path);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gpumeter-vs-events: gpumeter's device_busy beside CUDA events (and ncu, via --mode bare)",
      "gpumeter-vs-events"};
  std::string mode = "compare";
  std::string kernel = "all";
  int iterations = 20;
  int device = 0;
  std::string json_path;
  app.add_option("--mode", mode, "compare (CUPTI and events) or bare (kernel alone, for ncu)")
      ->check(CLI::IsMember({"compare", "bare"}));
  app.add_option("--kernel", kernel, "one_block, bandwidth or all")
      ->check(CLI::IsMember({"one_block", "bandwidth", "all"}));
  gpumeter::check_number(
      app.add_option("--iterations", iterations, "launches per kernel in bare mode"),
      gpumeter::kPositiveCount);
  gpumeter::check_number(app.add_option("--device", device, "CUDA device index"),
                         gpumeter::kDeviceIndex);
  app.add_option("--json", json_path, "write the results here (compare mode)");
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;
  if (const auto bad = gpumeter::testkit::check_output_file(app, "--json", json_path)) return *bad;
  try {
    const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(device);
    if (!avail.usable) throw gpumeter::DeviceError(avail.reason);
    return mode == "bare" ? run_bare(device, kernel, iterations)
                          : run_compare(device, kernel, json_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-vs-events: %s\n", e.what());
    return 1;
  }
}
