// Session: the lock, the backend, the ceilings and the deviations of one front end's run.
#include "gpumeter/session.hpp"

#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "choice.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/measurement.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"

namespace gpumeter {
namespace {

// The backends kept for the life of the process (SessionOptions::keep_backend), by device and
// way of timing.
struct KeptBackends {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Backend>> by_key;
};
KeptBackends& kept_backends() {
  static KeptBackends* kept = new KeptBackends();  // never destroyed: CUDA tears itself down
  return *kept;
}

// kStandInDevicesEnv's count, or nullopt when unset. Stand-ins are the host CPU: asked for under
// another timing they would replace a GPU's device time, so they are refused there.
std::optional<int> stand_in_devices(const SessionOptions& o) {
  const char* text = std::getenv(kStandInDevicesEnv);
  if (text == nullptr) return std::nullopt;
  const std::string value = text;
  const bool digits = !value.empty() && value.size() <= 3 &&
                      value.find_first_not_of("0123456789") == std::string::npos;
  const int n = digits ? std::atoi(value.c_str()) : 0;
  if (n < 1 || n > kMaxStandInDevices) {
    throw ConfigError(std::string(kStandInDevicesEnv) + "='" + inert_text(value) +
                      "': the number of stand-in devices, 1 to " +
                      std::to_string(kMaxStandInDevices));
  }
  if (o.timing != Timing::host && o.timing != Timing::host_only) {
    throw ConfigError(std::string(kStandInDevicesEnv) +
                      " stands in devices for tests under the host clock only: give " +
                      o.spelling.host + ", or unset it");
  }
  if (o.device < 0 || o.device >= n) {
    throw ConfigError("device " + std::to_string(o.device) + ": " + kStandInDevicesEnv + "=" +
                      value + " stands in devices 0 to " + std::to_string(n - 1));
  }
  return n;
}

std::string stand_in_uuid(int index) {
  return "stand-in-" + std::to_string(index);
}

}  // namespace

std::vector<HostDevice> Session::host_devices(const SessionOptions& options) {
  std::vector<HostDevice> out;
  SessionOptions first = options;
  first.device = 0;
  if (const std::optional<int> n = stand_in_devices(first)) {
    for (int k = 0; k < *n; ++k) out.push_back(HostDevice{k, stand_in_uuid(k)});
    return out;
  }
  session_detail::check_devices_are_built(options);
  const int count = cuda_device_count();
  for (int k = 0; k < count; ++k) out.push_back(HostDevice{k, cuda_device_uuid(k)});
  return out;
}

std::string timing_names_text() {
  std::string text;
  const std::size_t n = std::size(kTimingNames);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) text += i + 1 == n ? " or " : ", ";
    text += "'" + std::string(kTimingNames[i].name) + "'";
  }
  return text;
}

Timing parse_timing(std::string_view name, const std::string& option) {
  for (const TimingName& t : kTimingNames) {
    if (name == t.name) return t.timing;
  }
  throw ConfigError(
      option, "must be " + timing_names_text() + ", not '" + inert_text(std::string(name)) + "'");
}

std::unique_ptr<DeviceLock> take_device_lock(int device, const DeviceLockOptions& options) {
  return std::make_unique<DeviceLock>(device, cuda_device_uuid(device), options);
}

void Session::check_timing_is_built(const SessionOptions& options) {
  session_detail::check_timing_is_built(options);
}

std::string Session::unusable_device(const SessionOptions& options) {
  return session_detail::unusable_device(options);
}

std::string Session::no_usable_gpu(const SessionOptions& options, const std::string& why) {
  return why + "; nothing was measured; " + options.spelling.host +
         " times host work on the host clock";
}

namespace {
// The user's warning for a deviation of the backend choice (the host clock taken for want of a
// GPU): what was measured instead and the two options that decide it.
std::string fallback_line(const SessionOptions& o, const std::string& deviation) {
  return "measured with the host clock, not the GPU's device time (" + deviation + "); " +
         o.spelling.cupti + " requires a GPU, " + o.spelling.host + " asks for the host clock";
}
}  // namespace

std::vector<std::string> Session::planned_fallbacks(const SessionOptions& options) {
  std::vector<std::string> out;
  if (options.timing == Timing::host_only || !unusable_device(options).empty()) return out;
  for (const std::string& d : session_detail::choose_backend(options, false).deviations) {
    out.push_back(fallback_line(options, d));
  }
  return out;
}

Session::Session(SessionOptions options) : options_(std::move(options)) {
  session_detail::check_timing_is_built(options_);
  stand_in_ = stand_in_devices(options_).has_value();
  // The lock before anything touches the device (P1); a stand-in's is its own, by its uuid.
  switch (options_.lock) {
    case LockChoice::take:
      lock_ = stand_in_
                  ? std::make_unique<DeviceLock>(options_.device, stand_in_uuid(options_.device),
                                                 options_.lock_options)
                  : take_device_lock(options_.device, options_.lock_options);
      deviations_ = lock_->deviations();
      break;
    case LockChoice::skip:
      deviations_.push_back("device lock not taken (" + options_.spelling.no_lock +
                            "): nothing kept other runs off the device");
      break;
    case LockChoice::held_by_parent:
      break;  // the parent's record says what its lock found
  }
}

Session::Session(Session&& other) noexcept
    : options_(std::move(other.options_)),
      lock_(std::move(other.lock_)),
      stand_in_(other.stand_in_),
      owned_(std::move(other.owned_)),
      backend_(other.backend_),
      ceilings_done_(other.ceilings_done_),
      ceilings_(std::move(other.ceilings_)),
      deviations_(std::move(other.deviations_)),
      fallbacks_(std::move(other.fallbacks_)) {
  other.moved_from_ = true;
}

Session::~Session() {
  // CUPTI is never left claimed after a session ends, also when its measurement failed.
  if (!moved_from_ && backend_ != nullptr && options_.release_cupti) {
    session_detail::release_cupti();
  }
}

Backend& Session::backend() {
  if (backend_ != nullptr) return *backend_;
  if (stand_in_) {
    // Made here, never kept: a stand-in is for a benchmark program's process of its own.
    owned_ = make_host_stand_in_backend(options_.device);
    backend_ = owned_.get();
    deviations_.push_back("device " + std::to_string(options_.device) + " is a stand-in (" +
                          kStandInDevicesEnv +
                          "): the host CPU timed by the host clock under a device id and uuid of "
                          "its own, for tests of spreading a sweep over devices; no GPU was used");
    return *backend_;
  }
  std::vector<std::string> said;
  if (options_.keep_backend) {
    KeptBackends& kept = kept_backends();
    std::lock_guard<std::mutex> guard(kept.mutex);
    session_detail::Chosen chosen = session_detail::choose_backend(options_, false);
    auto it = kept.by_key.find(chosen.key);
    if (it == kept.by_key.end()) {
      chosen = session_detail::choose_backend(options_, true);
      it = kept.by_key.emplace(chosen.key, std::move(chosen.backend)).first;
    }
    backend_ = it->second.get();
    said = std::move(chosen.deviations);
  } else {
    session_detail::Chosen chosen = session_detail::choose_backend(options_, true);
    owned_ = std::move(chosen.backend);
    backend_ = owned_.get();
    said = std::move(chosen.deviations);
  }
  // This session's word on sharing CUPTI, should it claim CUPTI again (after a release): a kept
  // backend may have been made by an earlier session that said otherwise.
  session_detail::set_cupti_sharing(options_.share_cupti);
  for (std::string& d : said) {
    // The choice departs only by taking the host clock in place of a GPU's device time.
    if (options_.timing != Timing::host_only) fallbacks_.push_back(fallback_line(options_, d));
    deviations_.push_back(std::move(d));
  }
  return *backend_;
}

const Ceilings& Session::ceilings() {
  if (ceilings_done_) return ceilings_;
  Backend& timed_by = backend();
  ceilings_done_ = true;
  if (!options_.ceilings || timed_by.device().kind != "cuda") return ceilings_;
  // Timed by the backend that times the rows. Without them the rows still stand; only their
  // percentages are missing, and the record says why.
  try {
    ceilings_ = session_detail::measure_device_ceilings(timed_by);
  } catch (const Error& e) {
    deviations_.push_back(std::string("ceilings not measured (no percent of peak): ") + e.what());
  }
  return ceilings_;
}

void Session::use_ceilings(Ceilings ceilings) {
  ceilings_ = std::move(ceilings);
  ceilings_done_ = true;
}

std::vector<std::string> Session::fallbacks(const Record& measured) const {
  std::vector<std::string> out = fallbacks_;
  if (options_.timing == Timing::events) return out;
  for (const Result& r : measured.results) {
    if (r.measurement.method == TimingMethod::device_events) {
      out.push_back("timed with CUDA events instead of CUPTI (" + r.measurement.reason +
                    "): a different statistic, never compared with CUPTI's");
      break;
    }
  }
  return out;
}

}  // namespace gpumeter
