#pragma once
// The two CUDA backends, built by make_cuda_backend / make_cuda_events_backend.
#include <cstddef>
#include <memory>
#include <string>

#include "gpumeter/backend.hpp"
#include "gpumeter/cuda_backend.hpp"

namespace gpumeter::cuda {

class CuptiSession;

std::unique_ptr<Backend> make_cupti_backend(const CudaBackendOptions& options,
                                            DeviceIdentity identity, CuptiSession& session);
std::unique_ptr<Backend> make_events_backend(const CudaBackendOptions& options,
                                             DeviceIdentity identity, std::string reason);

// options.activity_buffer_bytes * 4^attempt; ConfigError when that overflows or attempt < 0.
std::size_t buffer_bytes_for_attempt(std::size_t base, int attempt);

}  // namespace gpumeter::cuda
