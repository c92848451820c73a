// The backend choice in a build with the CUDA backend.
#include "choice.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"

namespace gpumeter::session_detail {

void check_timing_is_built(const SessionOptions&) {
  // Every way of timing is built; whether a device answers is known only later.
}

void check_devices_are_built(const SessionOptions&) {
  // Every device the driver lists can be asked for.
}

std::string unusable_device(const SessionOptions& options) {
  if (options.timing == Timing::host || options.timing == Timing::host_only ||
      options.timing == Timing::automatic) {
    return "";
  }
  // cudaGetDeviceCount initialises the driver and creates no context: a sweep's parent stays
  // off the device.
  const CudaAvailability gpu = cuda_availability(options.device);
  return gpu.usable ? std::string() : gpu.reason;
}

Chosen choose_backend(const SessionOptions& o, bool make) {
  Chosen out;
  if (o.timing == Timing::host_only) {
    out.key = "host-only";
    out.deviations.push_back("host backend instead of a GPU: the host backend was asked for");
    if (make) out.backend = make_host_backend();
    return out;
  }
  const CudaAvailability gpu = cuda_availability(o.device);
  if (!gpu.usable) {
    if (o.timing == Timing::automatic) {
      out.deviations.push_back("host backend instead of a GPU: " + gpu.reason);
    } else if (o.timing != Timing::host) {
      throw DeviceError(Session::no_usable_gpu(o, gpu.reason));
    }
    // Host work: timed by the host clock.
    out.key = "host";
    if (make) out.backend = make_host_backend();
    return out;
  }
  CudaBackendOptions options;
  options.device = o.device;
  options.allow_events_fallback = o.allow_events_fallback;
  options.share_cupti_with_idle_client = o.share_cupti;
  options.release_cupti_after_each_phase = o.release_cupti;
  options.device_shared = o.lock_options.allow_contended;
  options.tolerated_device_processes = o.tolerated_device_processes;
  std::string flags =
      std::string(o.allow_events_fallback ? "+fallback" : "") + (o.release_cupti ? "+release" : "");
  if (o.tolerated_device_processes) {
    flags += "+tolerating";
    for (const long pid : *o.tolerated_device_processes) flags += ":" + std::to_string(pid);
  }
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
  out.key = std::to_string(o.device) + ":" + out.key;
  return out;
}

Ceilings measure_device_ceilings(Backend& backend) {
  return measure_ceilings(backend);
}

void set_cupti_sharing(bool share) noexcept {
  gpumeter::set_cupti_sharing(share);
}

void release_cupti() noexcept {
  release_cupti_subscription();
}

}  // namespace gpumeter::session_detail
