#pragma once
// A vendor's device backends, as a Session chooses among them: the one seam between the session
// and a vendor. The session holds every rule of the choice (the host clock for want of a device,
// the deviations, the cache of kept backends) and asks the vendor only what the vendor alone
// knows: whether its device answers, which of its backends times a way of timing, its devices, its
// ceilings and the names of its methods. CUDA's is src/cuda/session_vendor.cpp; a test's replay
// of recorded traces is another (tests/unit/test_replay_vendor.cpp), registered at run time.
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/session.hpp"

namespace gpumeter {

struct VendorBackend {
  std::unique_ptr<Backend> backend;  // null when not asked to make it
  // What the session's cache of kept backends tells apart for one device ("cupti+fallback"):
  // two sessions of one key share one backend.
  std::string key;
};

class DeviceBackends {
 public:
  virtual ~DeviceBackends() = default;

  // The device kind its backends name in DeviceIdentity::kind ("cuda"): the session measures
  // ceilings only on a device of this kind.
  virtual std::string device_kind() const = 0;
  // Why device `index` cannot be used for device timing; "" when it can. Creates no context (a
  // sweep's parent stays off the device).
  virtual std::string unusable(int index) const = 0;
  // The backend that times `options` (Timing::build_default, automatic, kernel records, events
  // or host) on a device unusable() accepted. Made only when `make`; the key always.
  virtual VendorBackend choose(const SessionOptions& options, bool make) const = 0;
  // The devices of this host, by index, their uuids read without a context.
  virtual std::vector<HostDevice> devices() const = 0;
  // Device `index`'s uuid, for its lock; "" when it cannot be read.
  virtual std::string device_uuid(int index) const = 0;
  // The device's ceilings, timed by `backend` (one of this vendor's); throws what measuring throws.
  virtual Ceilings measure_ceilings(Backend& backend) const = 0;
  // The caller's word on sharing the vendor's instrumentation with an idle client, given before
  // each session uses a backend; and giving it back when a session ends (release_cupti).
  virtual void set_sharing(bool share) const noexcept { (void)share; }
  virtual void release() const noexcept {}
};

// The vendor this process times devices with: the one use_device_backends() gave, else the
// build's (CUDA's where it was built), else nullptr (a build with the host clock only).
const DeviceBackends* device_backends();
// Replaces the build's vendor for the rest of the process (a test's replay, an embedder's own);
// nullptr gives the build's back. Call it before any session: a kept backend stays as made.
void use_device_backends(std::shared_ptr<const DeviceBackends> vendor);
// Device `index`'s uuid, for its lock: the vendor's reading, or the driver's where the build has
// no device backend.
std::string device_uuid(int index);
// The device backend a build without one lacks, as a sentence names it ("the CUDA backend").
std::string missing_device_backend();

}  // namespace gpumeter
