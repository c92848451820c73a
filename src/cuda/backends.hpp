#pragma once
// The two CUDA backends, built by make_cuda_backend / make_cuda_events_backend.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "device_steps.hpp"
#include "gpumeter/backend/backend.hpp"
#include "gpumeter/backend/trace.hpp"
#include "gpumeter/cuda.hpp"

namespace gpumeter::detail {
class NvmlWatch;
}

namespace gpumeter::cuda {

class CuptiSession;

// What the CUDA backends share: what they are (the device they measure, its L2 flush), their
// DeviceSteps (the steps the driver orders, T5, through CudaDeviceSteps) and their
// EnvironmentProbe (NVML's readings of the device and of this process on it). They differ only
// in their Collector: how they label or time a call.
class CudaBackendBase : public Backend {
 public:
  // Makes the context and gpumeter's own buffers (the L2 flush's) now, then reads the
  // context floor (P7), so that no case's memory includes them.
  CudaBackendBase(const CudaBackendOptions& options, DeviceIdentity identity);
  ~CudaBackendBase() override;

  // What it is.
  DeviceIdentity device() const override { return identity_; }
  std::string l2_flush_mode() const override;
  // DeviceSteps.
  void synchronize(const char* context) override;
  void drain(std::size_t iteration, const char* after) override;
  void clear_cache(std::size_t iteration) override;
  void after_user_code(std::size_t iteration, const char* what) override;
  // EnvironmentProbe.
  DeviceStateReading read_device_state() const override;
  std::optional<ClockReading> read_clock() override;
  std::optional<long long> process_device_memory() override;
  std::optional<long long> context_floor_memory() const override { return context_floor_; }
  std::optional<std::vector<DeviceProcess>> new_device_processes() override;

 protected:
  // The device steps for these options, for one phase: from open_phase until close or abandon.
  void start_phase();
  void end_phase() noexcept;
  CudaDeviceSteps& steps();

  CudaBackendOptions options_;
  DeviceIdentity identity_;

 private:
  std::optional<CudaDeviceSteps> steps_;
  std::unique_ptr<detail::NvmlWatch> watch_;
  std::optional<long long> context_floor_;
  // The other processes on the device when the backend was made (nullopt: not listed).
  std::optional<std::vector<long>> processes_at_start_;
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
