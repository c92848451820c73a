#include "clock_probe.hpp"

namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace

extern "C" __global__ void gpumeter_clock_probe(unsigned long long ns,
                                                unsigned long long not_before,
                                                unsigned long long* stamps) {
  const unsigned long long start = global_ns();
  unsigned long long now = start;
  while (now - start < ns || now < not_before) now = global_ns();
  stamps[0] = start;
  stamps[1] = now;
}

namespace gpumeter::cuda {

cudaError_t launch_clock_probe(std::uint64_t ns, std::uint64_t not_before, std::uint64_t* stamps,
                               cudaStream_t stream) {
  gpumeter_clock_probe<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(ns),
                                            static_cast<unsigned long long>(not_before),
                                            reinterpret_cast<unsigned long long*>(stamps));
  return cudaGetLastError();
}

}  // namespace gpumeter::cuda
