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

#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/measurement.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/device_backends.hpp"
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
  // Never destroyed: a device runtime tears itself down at exit, before static destructors.
  static KeptBackends* kept = new KeptBackends();
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
  const DeviceBackends* vendor = device_backends();
  if (vendor == nullptr) {
    throw ConfigError(
        "--devices spreads a sweep over the GPUs of a host, and this gpumeter was "
        "built without " +
        missing_device_backend() + " (" + options.spelling.host +
        " times host work in one process)");
  }
  return vendor->devices();
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
  return std::make_unique<DeviceLock>(device, device_uuid(device), options);
}

void Session::check_timing_is_built(const SessionOptions& o) {
  if (device_backends() != nullptr) return;  // whether a device answers is known only later
  if (o.timing == Timing::cupti || o.timing == Timing::events) {
    const std::string asked = o.timing == Timing::cupti ? o.spelling.cupti : o.spelling.events;
    const std::string missing = missing_device_backend();
    throw ConfigError(asked + " needs " + missing + ", and this gpumeter was built without " +
                      missing + "; " + o.spelling.host + " times with the host clock");
  }
}

std::string Session::unusable_device(const SessionOptions& options) {
  const DeviceBackends* vendor = device_backends();
  // The host clock needs no device; auto takes it where none answers. A build without a device
  // backend lets only those through (check_timing_is_built).
  if (vendor == nullptr || options.timing == Timing::host || options.timing == Timing::host_only ||
      options.timing == Timing::automatic) {
    return "";
  }
  return vendor->unusable(options.device);
}

std::string Session::no_usable_gpu(const SessionOptions& options, const std::string& why) {
  return why + "; nothing was measured; " + options.spelling.host +
         " times host work on the host clock";
}

namespace {

struct Chosen {
  std::unique_ptr<Backend> backend;
  // What the cache of kept backends tells apart: two sessions of the same key share one backend.
  std::string key;
  // Where the choice departs from the protocol (the host clock taken for want of a GPU).
  std::vector<std::string> deviations;
};

// The backend the options ask for. Made only when `make` (the cache may hold it already); the key
// and the deviations always.
Chosen choose_backend(const SessionOptions& o, bool make) {
  Session::check_timing_is_built(o);
  Chosen out;
  if (o.timing == Timing::host_only) {
    out.key = "host-only";
    out.deviations.push_back("host backend instead of a GPU: the host backend was asked for");
    if (make) out.backend = make_host_backend();
    return out;
  }
  const DeviceBackends* vendor = device_backends();
  const std::string why = vendor != nullptr
                              ? vendor->unusable(o.device)
                              : "this gpumeter was built without " + missing_device_backend();
  if (!why.empty()) {
    // Without a device backend the build's default is the host clock: said, like auto's.
    if (o.timing == Timing::automatic || (vendor == nullptr && o.timing != Timing::host)) {
      out.deviations.push_back("host backend instead of a GPU: " + why);
    } else if (o.timing != Timing::host) {
      throw DeviceError(Session::no_usable_gpu(o, why));
    }
    // Host work: timed by the host clock.
    out.key = "host";
    if (make) out.backend = make_host_backend();
    return out;
  }
  VendorBackend chosen = vendor->choose(o, make);
  out.backend = std::move(chosen.backend);
  out.key = std::to_string(o.device) + ":" + chosen.key;
  return out;
}

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
  for (const std::string& d : choose_backend(options, false).deviations) {
    out.push_back(fallback_line(options, d));
  }
  return out;
}

Session::Session(SessionOptions options) : options_(std::move(options)) {
  check_timing_is_built(options_);
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
  // The vendor's instrumentation is never left claimed after a session ends, also when its
  // measurement failed.
  if (!moved_from_ && backend_ != nullptr && options_.release_cupti) {
    if (const DeviceBackends* vendor = device_backends()) vendor->release();
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
    Chosen chosen = choose_backend(options_, false);
    auto it = kept.by_key.find(chosen.key);
    if (it == kept.by_key.end()) {
      chosen = choose_backend(options_, true);
      it = kept.by_key.emplace(chosen.key, std::move(chosen.backend)).first;
    }
    backend_ = it->second.get();
    said = std::move(chosen.deviations);
  } else {
    Chosen chosen = choose_backend(options_, true);
    owned_ = std::move(chosen.backend);
    backend_ = owned_.get();
    said = std::move(chosen.deviations);
  }
  // This session's word on sharing the vendor's instrumentation, should it claim it again (after a
  // release): a kept backend may have been made by an earlier session that said otherwise.
  if (const DeviceBackends* vendor = device_backends()) vendor->set_sharing(options_.share_cupti);
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
  const DeviceBackends* vendor = device_backends();
  if (!options_.ceilings || vendor == nullptr || timed_by.device().kind != vendor->device_kind()) {
    return ceilings_;
  }
  // Timed by the backend that times the rows. Without them the rows still stand; only their
  // percentages are missing, and the record says why.
  try {
    ceilings_ = vendor->measure_ceilings(timed_by);
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
      const std::string records(to_string(TimingMethod::kernel_records));
      out.push_back("timed with " + std::string(to_string(TimingMethod::device_events)) +
                    " instead of " + records + " (" + r.measurement.reason +
                    "): a different statistic, never compared with " + records + " rows");
      break;
    }
  }
  return out;
}

}  // namespace gpumeter
