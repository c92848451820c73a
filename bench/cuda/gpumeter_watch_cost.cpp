// The cost of watching: what CUPTI's records add to launches, split by record kind, and what
// gpumeter's own session adds. One call = 1000 launches of an empty 1-block kernel on the legacy
// stream; its wall time (launch, launch, ..., synchronize) is read 20 times per configuration,
// each configuration in a fresh process (CUPTI's state lasts a process):
//   plain          no CUPTI at all
//   K              concurrent-kernel records only
//   K+R            + runtime-API records of the launch APIs (the minimal session that can
//                    attribute a runtime launch)
//   K+R+E          + external-correlation records, an id pushed around the call
//   K+D / K+D+E    driver-API records instead of runtime ones
//   K+R+D+E        both API domains and the correlation (gpumeter's session before the probe)
//   gpumeter       gpumeter's measure() of the call: its latency median, and the per-launch cost
//                  the backend measured
// and for each raw configuration the records per launch of each kind, counted from CUPTI's
// buffers: the count is where the time goes.
#include <cuda_runtime.h>
#include <cupti.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "clock_probe.hpp"
#include "command_line.hpp"
#include "cuda_memory.hpp"
#include "cupti_session.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "known_kernels.hpp"
#include "nvml_watch.hpp"

extern char** environ;

namespace {

using gpumeter::testkit::cuda_ok;
using Clock = std::chrono::steady_clock;
constexpr int kLaunches = 1000;
constexpr int kRounds = 20;

// Records per kind, counted as CUPTI hands buffers back.
std::mutex counts_mutex;
std::map<std::string, long long> counts;

void CUPTIAPI requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  constexpr std::size_t kBytes = 8u << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = kBytes;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                        std::size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(counts_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        ++counts["kernel"];
        break;
      case CUPTI_ACTIVITY_KIND_RUNTIME:
        ++counts["runtime"];
        break;
      case CUPTI_ACTIVITY_KIND_DRIVER:
        ++counts["driver"];
        break;
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        ++counts["external"];
        break;
      default:
        ++counts["other"];
        break;
    }
  }
  std::free(buffer);
}

void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    throw gpumeter::Error(std::string(what) + ": " + (text != nullptr ? text : "?"));
  }
}

// Every API of a domain off but the launch-type ones (after the kind is on: enabling a kind
// switches its APIs back on).
void launch_apis_only(bool runtime) {
  const CUpti_CallbackDomain domain =
      runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  const auto size = runtime ? static_cast<CUpti_CallbackId>(CUPTI_RUNTIME_TRACE_CBID_SIZE)
                            : static_cast<CUpti_CallbackId>(CUPTI_DRIVER_TRACE_CBID_SIZE);
  for (CUpti_CallbackId cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    const std::uint8_t on = gpumeter::cuda::is_launch_type_api(name) ? 1 : 0;
    if (runtime) {
      (void)cuptiActivityEnableRuntimeApi(cbid, on);
    } else {
      (void)cuptiActivityEnableDriverApi(cbid, on);
    }
  }
}

double one_call_ms() {
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto t0 = Clock::now();
  for (int k = 0; k < kLaunches; ++k) gpumeter::testkit::launch_empty(cudaStreamLegacy);
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

nlohmann::json run_raw(const std::string& config) {
  cuda_ok(cudaSetDevice(0), "cudaSetDevice");
  (void)one_call_ms();  // context and module
  const bool cupti = config != "plain";
  const bool runtime = config.find('R') != std::string::npos;
  const bool driver = config.find('D') != std::string::npos;
  const bool external = config.find('E') != std::string::npos;
  if (cupti) {
    check(cuptiActivityRegisterCallbacks(requested, completed), "cuptiActivityRegisterCallbacks");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable kernel");
    if (runtime) check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "enable runtime");
    if (driver) check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "enable driver");
    if (external)
      check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), "enable ext");
    if (runtime) launch_apis_only(true);
    if (driver) launch_apis_only(false);
    (void)one_call_ms();  // CUPTI's first instrumented launches
    check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "flush");
    counts.clear();
  }
  std::vector<double> ms;
  for (int r = 0; r < kRounds; ++r) {
    if (external)
      check(
          cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 1000 + r),
          "push");
    ms.push_back(one_call_ms());
    std::uint64_t popped = 0;
    if (external)
      check(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped),
            "pop");
  }
  nlohmann::json out;
  out["config"] = config;
  out["call_ms_median"] = median(ms);
  out["call_ms_min"] = *std::min_element(ms.begin(), ms.end());
  out["call_ms_max"] = *std::max_element(ms.begin(), ms.end());
  if (cupti) {
    check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "flush");
    nlohmann::json per_launch;
    for (const auto& [kind, n] : counts) {
      per_launch[kind] = static_cast<double>(n) / (static_cast<double>(kRounds) * kLaunches);
    }
    out["records_per_launch"] = per_launch;
  }
  return out;
}

nlohmann::json run_gpumeter(const std::string& config) {
  gpumeter::CudaBackendOptions options;
  const std::unique_ptr<gpumeter::Backend> backend = gpumeter::make_cuda_backend(options);
  const gpumeter::Call call{[] {
                              for (int k = 0; k < kLaunches; ++k) {
                                gpumeter::testkit::launch_empty(cudaStreamLegacy);
                              }
                            },
                            {}};
  const gpumeter::Measurement m = gpumeter::measure(*backend, call);
  const gpumeter::Summary s = gpumeter::summarize(m.samples, m.method, m.retries);
  nlohmann::json out;
  out["config"] = config;
  out["latency_ms_median"] = s.latency.median_ns / 1e6;
  out["device_busy_ms_median"] = s.device_busy.median_ns / 1e6;
  out["samples"] = s.n_samples;
  const std::optional<gpumeter::Nanos> cost = backend->launch_cost();
  out["launch_cost_ns"] = cost ? nlohmann::json(*cost) : nlohmann::json(nullptr);
  return out;
}

// What one clock reading costs, and what it says: NVML's SM clock query plus its reasons query
// (gpumeter's reading between iterations), against a device-side probe (a kernel spinning
// `spin_ns` that counts cycles over device time, launched and synchronized), 200 of each.
nlohmann::json clock_readings(const std::string& uuid) {
  constexpr int kReads = 200;
  const gpumeter::detail::NvmlWatch watch(uuid);
  nlohmann::json out;
  std::vector<double> nvml_us;
  std::vector<double> nvml_mhz;
  for (int i = 0; i < kReads && watch.read_clock(); ++i) {
    const auto t0 = Clock::now();
    const std::optional<gpumeter::ClockReading> c = watch.read_clock();
    nvml_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (c) nvml_mhz.push_back(c->sm_mhz);
  }
  out["nvml_read_us_median"] =
      nvml_us.empty() ? nlohmann::json(nullptr) : nlohmann::json(median(nvml_us));
  out["nvml_sm_mhz_median"] =
      nvml_mhz.empty() ? nlohmann::json(nullptr) : nlohmann::json(median(nvml_mhz));
  out["nvml_why_not"] = watch.why_not();
  unsigned long long* buf = nullptr;
  cuda_ok(cudaMalloc(&buf, 2 * sizeof(unsigned long long)), "cudaMalloc");
  for (const std::uint64_t spin_ns : {2'000ULL, 10'000ULL}) {
    std::vector<double> us;
    std::vector<double> mhz;
    for (int i = 0; i < kReads; ++i) {
      const auto t0 = Clock::now();
      cuda_ok(launch_clock_probe(spin_ns, buf), "clock probe");
      unsigned long long host[2] = {0, 0};
      cuda_ok(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      if (host[0] > 0)
        mhz.push_back(1e3 * static_cast<double>(host[1]) / static_cast<double>(host[0]));
    }
    const std::string key = "probe_" + std::to_string(spin_ns / 1000) + "us";
    out[key + "_read_us_median"] = median(us);
    out[key + "_sm_mhz_median"] = median(mhz);
    out[key + "_sm_mhz_min"] = *std::min_element(mhz.begin(), mhz.end());
    out[key + "_sm_mhz_max"] = *std::max_element(mhz.begin(), mhz.end());
  }
  (void)cudaFree(buf);
  return out;
}

// Runs this program again with --config, in a fresh process, and returns its JSON line.
nlohmann::json child(const char* self, const std::string& config) {
  char path[] = "/tmp/gpumeter-watch-cost-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw gpumeter::Error("mkstemp failed");
  ::close(fd);
  const std::string cfg = "--config=" + config;
  const std::string out = std::string("--out=") + path;
  std::vector<char*> argv{const_cast<char*>(self), const_cast<char*>(cfg.c_str()),
                          const_cast<char*>(out.c_str()), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0) {
    throw gpumeter::Error("posix_spawn failed");
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::ifstream in(path);
  nlohmann::json j;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !(in >> j)) {
    j = nlohmann::json{{"config", config}, {"error", "the configuration's process failed"}};
  }
  ::unlink(path);
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-watch-cost: what CUPTI's records add to 1000 tiny launches",
               "gpumeter-watch-cost"};
  std::string config;
  std::string out_path;
  std::string json_path;
  app.add_option("--config", config, "one configuration, in this process (internal)");
  app.add_option("--out", out_path, "where --config writes its JSON (internal)");
  app.add_option("--json", json_path, "write every configuration's results here");
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;
  if (const auto bad = gpumeter::testkit::check_output_file(app, "--json", json_path)) return *bad;
  try {
    if (!config.empty()) {
      const nlohmann::json j =
          config.rfind("gpumeter", 0) == 0 ? run_gpumeter(config) : run_raw(config);
      std::ofstream(out_path) << j.dump() << '\n';
      return 0;
    }
    const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(0);
    if (!avail.usable) throw gpumeter::DeviceError(avail.reason);
    nlohmann::json all = nlohmann::json::array();
    for (const char* c : {"plain", "K", "K+R", "K+R+E", "K+D", "K+D+E", "K+R+D+E"}) {
      all.push_back(child(argv[0], c));
    }
    all.push_back(child(argv[0], "gpumeter"));
    const double plain = all[0].value("call_ms_median", 0.0);
    std::printf(
        "| configuration | 1000 launches + sync (ms, median of %d) | x plain | records per launch "
        "|\n|---|---|---|---|\n",
        kRounds);
    for (const nlohmann::json& j : all) {
      const double ms = j.contains("call_ms_median")      ? j["call_ms_median"].get<double>()
                        : j.contains("latency_ms_median") ? j["latency_ms_median"].get<double>()
                                                          : 0.0;
      std::string records = j.contains("records_per_launch") ? j["records_per_launch"].dump() : "";
      if (j.contains("launch_cost_ns"))
        records = "latency; per-launch cost " + j["launch_cost_ns"].dump() + " ns";
      if (j.contains("error")) records = j["error"].get<std::string>();
      std::printf("| %s | %.3f | %.2f | %s |\n", j["config"].get<std::string>().c_str(), ms,
                  plain > 0 ? ms / plain : 0.0, records.c_str());
    }
    const nlohmann::json clocks = clock_readings(gpumeter::cuda_device_identity(0).uuid);
    std::printf("\nclock readings: %s\n", clocks.dump().c_str());
    nlohmann::json everything{{"configurations", all}, {"clock_readings", clocks}};
    if (!json_path.empty()) std::ofstream(json_path) << everything.dump(2) << '\n';
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-watch-cost: %s\n", e.what());
    return 1;
  }
}
