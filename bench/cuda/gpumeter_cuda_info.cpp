// gpumeter-cuda-info: what gpumeter finds on this machine, as JSON: the device, CUPTI (and
// why not), the dropped-record counter's proof, and optionally the measured ceilings.
// Exit codes: 0 CUPTI usable, 2 no usable device, 3 CUPTI unavailable (the cause is printed).
// Run under a profiler (ncu) it shows the cause gpumeter gives when CUPTI is taken.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include "command_line.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "number_option.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-cuda-info: the CUDA device and CUPTI as gpumeter finds them",
               "gpumeter-cuda-info"};
  int device = 0;
  bool ceilings = false;
  gpumeter::check_number(app.add_option("--device", device, "CUDA device index"),
                         gpumeter::kDeviceIndex);
  app.add_flag("--ceilings", ceilings, "also measure copy bandwidth and bf16 GEMM rate");
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;

  nlohmann::json out;
  const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(device);
  out["device_count"] = avail.device_count;
  out["usable"] = avail.usable;
  if (!avail.usable) {
    out["reason"] = avail.reason;
    std::cout << out.dump(2) << "\n";
    return 2;
  }
  int rc = 0;
  try {
    const gpumeter::DeviceIdentity id = gpumeter::cuda_device_identity(device);
    out["device"] = {{"index", id.index},
                     {"name", id.name},
                     {"uuid", id.uuid},
                     {"arch", id.arch},
                     {"multiprocessors", id.multiprocessors.value_or(0)},
                     {"l2_bytes", id.l2_bytes.value_or(0)},
                     {"memory_bytes", id.memory_bytes.value_or(0)}};
    gpumeter::CudaBackendOptions options;
    options.device = device;
    std::unique_ptr<gpumeter::Backend> backend;
    try {
      backend = gpumeter::make_cuda_backend(options);
      out["backend"] = std::string(gpumeter::to_string(backend->method()));
    } catch (const gpumeter::CuptiUnavailable& e) {
      out["backend_error"] = e.what();
      rc = 3;
    }
    const gpumeter::CuptiStatus s = gpumeter::cupti_status();
    out["cupti"] = {{"usable", s.usable},
                    {"version", s.version ? nlohmann::json(*s.version) : nlohmann::json()},
                    {"library", s.library},
                    {"cause", s.cause},
                    {"drop_counter_live", s.drop_counter_live ? nlohmann::json(*s.drop_counter_live)
                                                              : nlohmann::json()}};
    if (ceilings && backend) {
      // Timed by the backend the rows would be timed by, as a record's are.
      const gpumeter::Ceilings c = gpumeter::measure_ceilings(*backend);
      out["ceilings"] = nlohmann::json::parse(gpumeter::ceilings_to_json(c));
    }
  } catch (const gpumeter::Error& e) {
    out["error"] = e.what();
    rc = rc == 0 ? 1 : rc;
  }
  std::cout << out.dump(2) << "\n";
  return rc;
}
