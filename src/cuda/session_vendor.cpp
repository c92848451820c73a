// CUDA's device backends as a Session chooses among them (gpumeter/device_backends.hpp): CUPTI's
// kernel records, CUDA event pairs, and the synchronized wall clock on a CUDA device. Built into
// the session library where the CUDA backend is built; src/session/vendors.cpp registers it.
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/cuda.hpp"
#include "gpumeter/device_backends.hpp"
#include "gpumeter/device_lock.hpp"

namespace gpumeter {
namespace {

class CudaDeviceBackends final : public DeviceBackends {
 public:
  std::string device_kind() const override { return "cuda"; }

  std::string unusable(int index) const override {
    // cudaGetDeviceCount initialises the driver and creates no context.
    const CudaAvailability gpu = cuda_availability(index);
    return gpu.usable ? std::string() : gpu.reason;
  }

  VendorBackend choose(const SessionOptions& o, bool make) const override {
    CudaBackendOptions options;
    options.device = o.device;
    options.allow_events_fallback = o.allow_events_fallback;
    options.share_cupti_with_idle_client = o.share_cupti;
    options.release_cupti_after_each_phase = o.release_cupti;
    options.device_shared = o.lock_options.allow_contended;
    options.tolerated_device_processes = o.tolerated_device_processes;
    std::string flags = std::string(o.allow_events_fallback ? "+fallback" : "") +
                        (o.release_cupti ? "+release" : "");
    if (o.tolerated_device_processes) {
      flags += "+tolerating";
      for (const long pid : *o.tolerated_device_processes) flags += ":" + std::to_string(pid);
    }
    VendorBackend out;
    if (o.timing == Timing::events) {
      out.key = "events" + flags;
      if (make) {
        out.backend =
            make_cuda_events_backend(options, "CUDA events chosen with " + o.spelling.events);
      }
    } else if (o.timing == Timing::host) {
      // A GPU present: the synchronized wall clock, so GPU work is inside the time.
      out.key = "wall" + flags;
      if (make) out.backend = make_cuda_wall_backend(options);
    } else {
      out.key = "cupti" + flags;
      if (make) out.backend = make_cuda_backend(options);
    }
    return out;
  }

  std::vector<HostDevice> devices() const override {
    std::vector<HostDevice> out;
    const int count = cuda_device_count();
    for (int k = 0; k < count; ++k) out.push_back(HostDevice{k, cuda_device_uuid(k)});
    return out;
  }

  std::string device_uuid(int index) const override { return cuda_device_uuid(index); }

  Ceilings measure_ceilings(Backend& backend) const override {
    return gpumeter::measure_ceilings(backend);
  }

  void set_sharing(bool share) const noexcept override { set_cupti_sharing(share); }
  void release() const noexcept override { release_cupti_subscription(); }
};

}  // namespace

std::shared_ptr<const DeviceBackends> make_cuda_device_backends() {
  return std::make_shared<CudaDeviceBackends>();
}

}  // namespace gpumeter
