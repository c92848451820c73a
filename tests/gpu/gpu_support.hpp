#pragma once
// Shared pieces of the GPU tests: skipping with the reason when no device is usable, device
// memory that frees itself, and the spin kernel's self-measured durations.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <cstddef>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda_memory.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/measure.hpp"
#include "known_kernels.hpp"

// Skips the test, saying why, when device 0 cannot be used (no GPU, no driver).
#define GPUMETER_REQUIRE_GPU()                                               \
  do {                                                                       \
    const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(0); \
    if (!avail.usable) GTEST_SKIP() << avail.reason;                         \
  } while (0)

namespace gpumeter::test {

using namespace gpumeter::testkit;  // the shared kernels and owners, unqualified in tests

inline Nanos median(std::vector<Nanos> v) {
  if (v.empty()) throw std::invalid_argument("median of nothing");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline std::vector<Nanos> busy_of(const Measurement& m) {
  std::vector<Nanos> out;
  for (const Sample& s : m.samples) out.push_back(s.device_busy_ns);
  return out;
}

inline std::vector<Nanos> latency_of(const Measurement& m) {
  std::vector<Nanos> out;
  for (const Sample& s : m.samples) out.push_back(s.latency_ns);
  return out;
}

// A spin kernel of a known duration; every call writes its stamps to a slot of its own, so
// the durations of the last N calls (the measured phase, which runs last) can be read back.
class SpinWork {
 public:
  static constexpr std::size_t kSlots = 8192;

  SpinWork(Nanos ns, cudaStream_t stream)
      : ns_(static_cast<std::uint64_t>(ns)),
        stream_(stream),
        stamps_(kSlots * 2 * sizeof(std::uint64_t)) {
    cuda_ok(cudaMemset(stamps_.get(), 0, stamps_.bytes()), "cudaMemset");
  }

  Call call() {
    return Call{[this] { launch(); }, {}};
  }

  void launch() {
    launch_spin(ns_, stamps_.as<std::uint64_t>() + 2 * (calls_ % kSlots), stream_);
    ++calls_;
  }

  std::size_t calls() const { return calls_; }

  // Durations the kernel measured itself, for the last `n` calls, oldest first.
  std::vector<Nanos> last_durations(std::size_t n) const {
    std::vector<Nanos> out;
    for (const auto& [start, end] : last_spans(n)) out.push_back(end - start);
    return out;
  }

  // The global-timer stamps the kernel read when it began and when it ended, for the last `n`
  // calls, oldest first: an account of when it ran that is not CUPTI's.
  std::vector<std::pair<Nanos, Nanos>> last_spans(std::size_t n) const {
    if (n > calls_ || n > kSlots) throw std::invalid_argument("not that many calls recorded");
    std::vector<std::uint64_t> host(kSlots * 2);
    cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    cuda_ok(cudaMemcpy(host.data(), stamps_.get(), stamps_.bytes(), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
    std::vector<std::pair<Nanos, Nanos>> out;
    for (std::size_t k = calls_ - n; k < calls_; ++k) {
      const std::size_t slot = k % kSlots;
      out.emplace_back(static_cast<Nanos>(host[2 * slot]), static_cast<Nanos>(host[2 * slot + 1]));
    }
    return out;
  }

 private:
  std::uint64_t ns_;
  cudaStream_t stream_;
  DeviceMemory stamps_;
  std::size_t calls_ = 0;
};

}  // namespace gpumeter::test
