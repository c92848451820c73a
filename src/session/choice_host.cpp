// The backend choice in a build without the CUDA backend: the host clock only.
#include "choice.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"

namespace gpumeter::session_detail {

namespace {
constexpr const char* kNoCuda = "this gpumeter was built without the CUDA backend";
}

void check_timing_is_built(const SessionOptions& o) {
  if (o.timing == Timing::cupti || o.timing == Timing::events) {
    const std::string asked = o.timing == Timing::cupti ? o.spelling.cupti : o.spelling.events;
    throw ConfigError(asked + " needs the CUDA backend, and " + kNoCuda + "; " + o.spelling.host +
                      " times with the host clock");
  }
}

void check_devices_are_built(const SessionOptions& o) {
  throw ConfigError("--devices spreads a sweep over the GPUs of a host, and " +
                    std::string(kNoCuda) + " (" + o.spelling.host +
                    " times host work in one process)");
}

std::string unusable_device(const SessionOptions&) {
  return "";  // the host clock, the only choice check_timing_is_built lets through
}

Chosen choose_backend(const SessionOptions& o, bool make) {
  check_timing_is_built(o);
  Chosen out;
  out.key = "host";
  if (make) out.backend = make_host_backend();
  if (o.timing == Timing::host_only) {
    out.deviations.push_back("host backend instead of a GPU: the host backend was asked for");
  } else if (o.timing != Timing::host) {
    out.deviations.push_back(std::string("host backend instead of a GPU: ") + kNoCuda);
  }
  return out;
}

Ceilings measure_device_ceilings(Backend&) {
  throw ConfigError("the ceilings are measured on a CUDA device, and " + std::string(kNoCuda));
}

void set_cupti_sharing(bool) noexcept {}
void release_cupti() noexcept {}

}  // namespace gpumeter::session_detail
