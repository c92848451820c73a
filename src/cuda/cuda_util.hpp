#pragma once
// Small helpers over the CUDA runtime: errors named by their CUDA code, and RAII owners.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace gpumeter::cuda {

// "cudaErrorIllegalAddress (an illegal memory access was encountered)".
std::string error_text(cudaError_t error);

// Throws DeviceError "<what> on CUDA device <device>: <error_text>" unless error is success.
void check(cudaError_t error, const char* what, int device);

// A device allocation that frees itself. Not copyable: one owner per allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, int device);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Pinned host memory the device writes through a mapping and the host reads after
// synchronizing (cudaHostAlloc, mapped): a kernel's own readings, without a copy back.
class HostMappedBuffer {
 public:
  HostMappedBuffer(std::size_t bytes, int device);
  ~HostMappedBuffer();
  HostMappedBuffer(const HostMappedBuffer&) = delete;
  HostMappedBuffer& operator=(const HostMappedBuffer&) = delete;

  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// A CUDA event that destroys itself.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }
  Event& operator=(Event&&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// A non-blocking stream that destroys itself.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Milliseconds between two completed events, as integer nanoseconds.
long long elapsed_ns(cudaEvent_t from, cudaEvent_t to, int device);

}  // namespace gpumeter::cuda
