#pragma once
// What gpumeter knows about CUDA that is true for the whole process. This is gpumeter's one
// process-wide mutable object, and it has to be: CUPTI allows one subscription and one pair
// of buffer callbacks per process (plain C function pointers, which must find their session),
// the L2-flush buffer is allocated once per device and kept (T5), a sticky CUDA error ruins
// the device's context for the rest of the process, and the ceilings are measured once per
// process. Never destroyed: CUPTI may call back and CUDA tears itself down at exit, so
// freeing these in a static destructor would race the runtime's own teardown.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "cuda_util.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/summary.hpp"

namespace gpumeter::cuda {

class CuptiSession;

class CudaProcess {
 public:
  static CudaProcess& instance();
  CudaProcess(const CudaProcess&) = delete;
  CudaProcess& operator=(const CudaProcess&) = delete;

  // The CUPTI session, created on first use. Throws CuptiUnavailable with the cause, the
  // same cause on every later call (CUPTI is not retried within a process), except when another
  // client held the subscription: that is asked again next time, and with
  // `share_with_idle_client` the session goes on without a subscription (see CuptiSession).
  CuptiSession& cupti(bool share_with_idle_client = false);
  CuptiSession* session_for_callbacks() const noexcept { return session_.load(); }
  CuptiStatus cupti_status();
  // See gpumeter::release_cupti_subscription; a no-op before the session exists.
  void release_cupti_subscription() noexcept;
  // See gpumeter::set_cupti_sharing.
  void set_cupti_sharing(bool share_with_idle_client) noexcept;

  // The L2-flush buffer of `device`: at least twice its L2, allocated on first use and kept.
  // nullptr when the device reports no L2.
  const DeviceBuffer* flush_buffer(int device);

  // A sticky error on `device` (T6, fail closed): once set, every later measurement refuses.
  void mark_sticky(int device, const std::string& what);
  std::optional<std::string> sticky_error(int device) const;
  // Throws DeviceError when `device` has a sticky error.
  void require_not_sticky(int device) const;

  // The ceilings of `device` as `timed_by` times them (a backend's method and flush), measured
  // by `measure` the first time only.
  Ceilings ceilings(int device, const std::string& timed_by,
                    const std::function<Ceilings()>& measure);

 private:
  CudaProcess() = default;

  mutable std::mutex mutex_;
  std::unique_ptr<CuptiSession> owned_session_;
  std::atomic<CuptiSession*> session_{nullptr};
  std::optional<std::string> cupti_failure_;
  std::string cupti_library_;
  std::optional<int> cupti_version_;
  std::map<int, std::unique_ptr<DeviceBuffer>> flush_buffers_;
  std::map<int, std::string> sticky_;
  std::map<std::pair<int, std::string>, Ceilings> ceilings_;
  std::mutex ceilings_measure_mutex_;  // one measurement at a time; not held by readers
};

}  // namespace gpumeter::cuda
