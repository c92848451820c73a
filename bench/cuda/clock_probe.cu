// A device-side reading of the SM clock: cycles (clock64) over device time (%globaltimer) while
// one thread spins, for gpumeter-watch-cost's comparison with NVML's reading.
#include <cstdint>

#include "clock_probe.hpp"

namespace {

__device__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void probe(std::uint64_t spin_ns, unsigned long long* out) {
  const std::uint64_t g0 = globaltimer();
  const long long c0 = clock64();
  while (globaltimer() - g0 < spin_ns) {
  }
  const std::uint64_t g1 = globaltimer();
  const long long c1 = clock64();
  out[0] = g1 - g0;
  out[1] = static_cast<unsigned long long>(c1 - c0);
}

}  // namespace

cudaError_t launch_clock_probe(std::uint64_t spin_ns, unsigned long long* out) {
  probe<<<1, 1>>>(spin_ns, out);
  return cudaGetLastError();
}
