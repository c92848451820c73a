#pragma once
// Small pieces the CUDA benchmark programs share.
#include <cuda_runtime.h>
#include <cstddef>

#include <stdexcept>
#include <string>

namespace gpumeter::bench {

inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")");
  }
}

class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes) : bytes_(bytes) {
    cuda_ok(cudaMalloc(&ptr_, bytes), "cudaMalloc");
  }
  ~DeviceMemory() { (void)cudaFree(ptr_); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

}  // namespace gpumeter::bench
