#pragma once
// Owners of device memory and streams for the GPU tests and the CUDA benchmarks: freed on
// every path, never copied.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gpumeter::testkit {

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
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

class OwnedStream {
 public:
  explicit OwnedStream(unsigned flags = cudaStreamNonBlocking) {
    cuda_ok(cudaStreamCreateWithFlags(&s_, flags), "cudaStreamCreate");
  }
  ~OwnedStream() { (void)cudaStreamDestroy(s_); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace gpumeter::testkit
