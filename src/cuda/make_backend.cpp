// Choosing the CUDA backend: CUPTI when it works; the events fallback only when allowed.
#include <cstdlib>
#include <cstring>
#include <string>

#include "backends.hpp"
#include "cuda_process.hpp"
#include "cupti_session.hpp"
#include "device.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/cuda_environment.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace {

void validate(const CudaBackendOptions& o) {
  if (o.activity_buffer_bytes < 8 || o.activity_buffer_bytes % 8 != 0) {
    throw ConfigError(
        "CudaBackendOptions::activity_buffer_bytes must be a multiple of 8 and at "
        "least 8 (CUPTI aligns records to 8 bytes); got " +
        std::to_string(o.activity_buffer_bytes));
  }
  (void)cuda::to_cupti(o.correlation_kind);  // throws on a value outside the enum
}

bool env_is_one(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

bool events_fallback_allowed(const CudaBackendOptions& options) {
  return options.allow_events_fallback || env_is_one(kAllowEventsFallbackEnv);
}

std::unique_ptr<Backend> make_cuda_backend(const CudaBackendOptions& options) {
  validate(options);
  DeviceIdentity identity = cuda_device_identity(options.device);  // DeviceError first: P3

  std::string cause;
  try {
    cuda::CuptiSession& session =
        cuda::CudaProcess::instance().cupti(options.share_cupti_with_idle_client);
    // Proven here, once per process, so the first measurement does not pay for it. Unproven,
    // a zero reading means nothing and a lost kernel record would silently shrink a sample.
    if (!session.drop_counter_live(options.device) && !options.allow_unproven_drop_counter &&
        !env_is_one(kAllowUnprovenDropCounterEnv)) {
      throw CuptiUnavailable(
          std::string("CUPTI's dropped-record counter could not be proven live here (it did "
                      "not count the records a deliberately tiny buffer had to drop), so a "
                      "lost record would go unseen. To measure anyway, with that deviation "
                      "recorded on every row, set ") +
          kAllowUnprovenDropCounterEnv + "=1 or CudaBackendOptions::allow_unproven_drop_counter");
    }
    return cuda::make_cupti_backend(options, std::move(identity), session);
  } catch (const CuptiUnavailable& e) {
    cause = e.what();
  }
  if (events_fallback_allowed(options)) {
    const std::string by = options.allow_events_fallback
                               ? std::string("CudaBackendOptions::allow_events_fallback")
                               : std::string(kAllowEventsFallbackEnv) + "=1";
    return cuda::make_events_backend(
        options, std::move(identity),
        "CUPTI unavailable: " + cause + "; CUDA events fallback allowed by " + by +
            " (events on the legacy default stream: device_busy == latency, kernels not "
            "counted, work on non-blocking streams not bracketed)");
  }
  throw CuptiUnavailable(
      cause + ". No number is produced without CUPTI unless the CUDA-events fallback is allowed (" +
      kAllowEventsFallbackEnv +
      "=1 or CudaBackendOptions::allow_events_fallback): it times each call with one event "
      "pair, so device_busy == latency, kernels are not counted, and its rows never compare "
      "with CUPTI rows.");
}

std::unique_ptr<Backend> make_cuda_events_backend(const CudaBackendOptions& options,
                                                  std::string reason) {
  validate(options);
  DeviceIdentity identity = cuda_device_identity(options.device);
  if (reason.empty()) reason = "CUDA events chosen explicitly";
  return cuda::make_events_backend(options, std::move(identity), std::move(reason));
}

std::unique_ptr<Backend> make_cuda_wall_backend(const CudaBackendOptions& options) {
  validate(options);
  DeviceIdentity identity = cuda_device_identity(options.device);
  return cuda::make_wall_backend(options, std::move(identity));
}

CuptiStatus cupti_status() {
  return cuda::CudaProcess::instance().cupti_status();
}

void release_cupti_subscription() noexcept {
  cuda::CudaProcess::instance().release_cupti_subscription();
}

void set_cupti_sharing(bool share_with_idle_client) noexcept {
  cuda::CudaProcess::instance().set_cupti_sharing(share_with_idle_client);
}

}  // namespace gpumeter
