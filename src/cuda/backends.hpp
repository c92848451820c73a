#pragma once
// The two CUDA backends, built by make_cuda_backend / make_cuda_events_backend.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "gpumeter/backend.hpp"
#include "gpumeter/cuda_backend.hpp"

namespace gpumeter::cuda {

class CuptiSession;
class IterationRunner;

// What the CUPTI and the events backends share: the device they measure, how they prepare
// each iteration, and how they report that device. They differ only in how they time a call.
class CudaBackendBase : public Backend {
 public:
  CudaBackendBase(const CudaBackendOptions& options, DeviceIdentity identity)
      : options_(options), identity_(std::move(identity)) {}

  DeviceIdentity device() const override { return identity_; }
  std::string l2_flush_mode() const override;
  DeviceStateReading read_device_state() const override;
  void synchronize() override;

 protected:
  // The per-iteration steps (T5) for these options, settled before the phase starts.
  IterationRunner start_phase() const;

  CudaBackendOptions options_;
  DeviceIdentity identity_;
};

std::unique_ptr<Backend> make_cupti_backend(const CudaBackendOptions& options,
                                            DeviceIdentity identity, CuptiSession& session);
std::unique_ptr<Backend> make_events_backend(const CudaBackendOptions& options,
                                             DeviceIdentity identity, std::string reason);

// options.activity_buffer_bytes * 4^attempt; ConfigError when that overflows or attempt < 0.
std::size_t buffer_bytes_for_attempt(std::size_t base, int attempt);

}  // namespace gpumeter::cuda
