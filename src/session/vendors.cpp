// The registry of device backends: the one file that knows which vendors this build has. A vendor
// is added here (and its file to src/session/CMakeLists.txt); the session asks it through
// gpumeter/device_backends.hpp and names none.
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "gpumeter/device_backends.hpp"
#include "gpumeter/device_lock.hpp"

namespace gpumeter {

#ifdef GPUMETER_SESSION_CUDA
std::shared_ptr<const DeviceBackends> make_cuda_device_backends();  // src/cuda/session_vendor.cpp
#endif

namespace {

std::shared_ptr<const DeviceBackends> built_vendor() {
#ifdef GPUMETER_SESSION_CUDA
  return make_cuda_device_backends();
#else
  return nullptr;
#endif
}

struct Registry {
  std::mutex mutex;
  std::shared_ptr<const DeviceBackends> vendor = built_vendor();
};
Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: kept backends outlive static teardown
  return *r;
}

}  // namespace

const DeviceBackends* device_backends() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> guard(r.mutex);
  return r.vendor.get();
}

void use_device_backends(std::shared_ptr<const DeviceBackends> vendor) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> guard(r.mutex);
  r.vendor = vendor != nullptr ? std::move(vendor) : built_vendor();
}

std::string device_uuid(int index) {
  if (const DeviceBackends* vendor = device_backends()) return vendor->device_uuid(index);
  // A build without a device backend still locks a GPU the driver lists, by its uuid, so it never
  // measures beside another gpumeter's run on that GPU.
  return cuda_device_uuid(index);
}

std::string missing_device_backend() {
  return "the CUDA backend";  // the only device backend gpumeter ships
}

}  // namespace gpumeter
