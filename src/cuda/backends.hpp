#pragma once
// The two CUDA backends, built by make_cuda_backend / make_cuda_events_backend.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gpumeter/backend.hpp"
#include "gpumeter/cuda_backend.hpp"
#include "iteration.hpp"

namespace gpumeter::detail {
class NvmlWatch;
}

namespace gpumeter::cuda {

class CuptiSession;

// What the CUPTI and the events backends share: the device they measure, the device steps the
// driver orders (T5), and how they report that device. They differ only in how they label or
// time a call.
class CudaBackendBase : public Backend {
 public:
  // Makes the context and gpumeter's own buffers (the L2 flush's) now, then reads the
  // context floor (P7), so that no case's memory includes them.
  CudaBackendBase(const CudaBackendOptions& options, DeviceIdentity identity);
  ~CudaBackendBase() override;

  DeviceIdentity device() const override { return identity_; }
  std::string l2_flush_mode() const override;
  DeviceStateReading read_device_state() const override;
  void synchronize(const char* context) override;
  void drain(std::size_t iteration, const char* after) override;
  void clear_cache(std::size_t iteration) override;
  void after_user_code(std::size_t iteration, const char* what) override;
  std::optional<ClockReading> read_clock() override;
  std::optional<long long> process_device_memory() override;
  std::optional<long long> context_floor_memory() const override { return context_floor_; }

 protected:
  // The device steps for these options, for one phase: from open_phase until close or abandon.
  void start_phase();
  void end_phase() noexcept;
  DeviceSteps& steps();

  CudaBackendOptions options_;
  DeviceIdentity identity_;

 private:
  std::optional<DeviceSteps> steps_;
  std::unique_ptr<detail::NvmlWatch> watch_;
  std::optional<long long> context_floor_;
};

std::unique_ptr<Backend> make_cupti_backend(const CudaBackendOptions& options,
                                            DeviceIdentity identity, CuptiSession& session);
std::unique_ptr<Backend> make_events_backend(const CudaBackendOptions& options,
                                             DeviceIdentity identity, std::string reason);
std::unique_ptr<Backend> make_wall_backend(const CudaBackendOptions& options,
                                           DeviceIdentity identity);

// options.activity_buffer_bytes * 4^attempt; ConfigError when that overflows or attempt < 0.
std::size_t buffer_bytes_for_attempt(std::size_t base, int attempt);

}  // namespace gpumeter::cuda
