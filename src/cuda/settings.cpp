// B11: the CUDA settings a candidate could change to slow other work on the device, read for
// the tamper check of `gpumeter evaluate`.
#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <vector>

#include "gpumeter/cuda.hpp"

namespace gpumeter {

std::vector<std::pair<std::string, long long>> read_cuda_settings(int device) {
  std::vector<std::pair<std::string, long long>> out;
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return out;
  if (cudaSetDevice(device) != cudaSuccess) return out;
  unsigned int flags = 0;
  if (cudaGetDeviceFlags(&flags) == cudaSuccess) out.emplace_back("device_flags", flags);
  const std::pair<const char*, cudaLimit> limits[] = {
      {"limit_stack_size", cudaLimitStackSize},
      {"limit_printf_fifo_size", cudaLimitPrintfFifoSize},
      {"limit_malloc_heap_size", cudaLimitMallocHeapSize},
      {"limit_dev_runtime_pending_launch_count", cudaLimitDevRuntimePendingLaunchCount},
      {"limit_max_l2_fetch_granularity", cudaLimitMaxL2FetchGranularity},
  };
  for (const auto& [name, limit] : limits) {
    std::size_t value = 0;
    if (cudaDeviceGetLimit(&value, limit) == cudaSuccess) {
      out.emplace_back(name, static_cast<long long>(value));
    }
  }
  cudaFuncCache cache = cudaFuncCachePreferNone;
  if (cudaDeviceGetCacheConfig(&cache) == cudaSuccess) {
    out.emplace_back("cache_config", static_cast<long long>(cache));
  }
  (void)cudaGetLastError();  // a refused query leaves nothing behind for the next call
  (void)cudaSetDevice(current);
  return out;
}

}  // namespace gpumeter
