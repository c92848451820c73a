#include <cstddef>

#include "cuda_process.hpp"

#include "cupti_session.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::cuda {

CudaProcess& CudaProcess::instance() {
  static CudaProcess* const process = new CudaProcess();  // never destroyed: see the header
  return *process;
}

CuptiSession& CudaProcess::cupti(bool share_with_idle_client) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (owned_session_) return *owned_session_;
  if (cupti_failure_) throw CuptiUnavailable(*cupti_failure_);
  try {
    owned_session_ = std::make_unique<CuptiSession>(share_with_idle_client);
  } catch (const CuptiHeld&) {
    throw;  // another client holds CUPTI for now: asked again next time, not remembered
  } catch (const CuptiUnavailable& e) {
    cupti_failure_ = e.what();
    throw;
  }
  cupti_library_ = owned_session_->api().library;
  cupti_version_ = static_cast<int>(owned_session_->api().version);
  session_.store(owned_session_.get());
  return *owned_session_;
}

void CudaProcess::release_cupti_subscription() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (owned_session_) owned_session_->release_subscription();
}

void CudaProcess::set_cupti_sharing(bool share_with_idle_client) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (owned_session_) owned_session_->set_share_with_idle_client(share_with_idle_client);
}

CuptiStatus CudaProcess::cupti_status() {
  CuptiStatus status;
  try {
    CuptiSession& session = cupti();
    status.usable = true;
    status.drop_counter_live = session.drop_counter_known();
  } catch (const CuptiUnavailable& e) {
    status.cause = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  status.library = cupti_library_;
  status.version = cupti_version_;
  return status;
}

const DeviceBuffer* CudaProcess::flush_buffer(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = flush_buffers_.find(device);
  if (found != flush_buffers_.end()) return found->second.get();
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "reading the L2 size", device);
  std::unique_ptr<DeviceBuffer> buffer;
  if (l2 > 0) buffer = std::make_unique<DeviceBuffer>(2 * static_cast<std::size_t>(l2), device);
  return flush_buffers_.emplace(device, std::move(buffer)).first->second.get();
}

void CudaProcess::mark_sticky(int device, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  sticky_.emplace(device, what);  // the first error is the cause; later ones are its echoes
}

std::optional<std::string> CudaProcess::sticky_error(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = sticky_.find(device);
  if (found == sticky_.end()) return std::nullopt;
  return found->second;
}

void CudaProcess::require_not_sticky(int device) const {
  if (const auto what = sticky_error(device)) {
    throw DeviceError("CUDA device " + std::to_string(device) +
                      " cannot be measured in this process: an earlier call left a sticky CUDA "
                      "error (" +
                      *what +
                      "), which makes the device's context unusable until the process exits. "
                      "Fix the failing call and start a new process.");
  }
}

Ceilings CudaProcess::ceilings(int device, const std::string& timed_by,
                               const std::function<Ceilings()>& measure) {
  std::lock_guard<std::mutex> measuring(ceilings_measure_mutex_);
  const std::pair<int, std::string> key{device, timed_by};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = ceilings_.find(key);
    if (found != ceilings_.end()) return found->second;
  }
  const Ceilings measured = measure();
  std::lock_guard<std::mutex> lock(mutex_);
  ceilings_[key] = measured;
  return measured;
}

}  // namespace gpumeter::cuda
