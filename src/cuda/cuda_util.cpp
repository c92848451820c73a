#include "cuda_util.hpp"

#include <cstring>

#include <cmath>
#include <cstddef>
#include <utility>

#include "gpumeter/errors.hpp"

namespace gpumeter::cuda {

std::string error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

void check(cudaError_t error, const char* what, int device) {
  if (error == cudaSuccess) return;
  throw DeviceError(std::string(what) + " on CUDA device " + std::to_string(device) +
                    " failed: " + error_text(error));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, int device) : bytes_(bytes) {
  check(cudaSetDevice(device), "cudaSetDevice", device);
  const cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // an out-of-memory error is not sticky; leave none behind
    ptr_ = nullptr;
    check(e, ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str(), device);
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) (void)cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

HostMappedBuffer::HostMappedBuffer(std::size_t bytes, int device) {
  check(cudaSetDevice(device), "cudaSetDevice", device);
  check(cudaHostAlloc(&ptr_, bytes, cudaHostAllocMapped),
        ("cudaHostAlloc (mapped) of " + std::to_string(bytes) + " bytes").c_str(), device);
  std::memset(ptr_, 0, bytes);
}

HostMappedBuffer::~HostMappedBuffer() {
  if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);
}

Event::Event() {
  const cudaError_t e = cudaEventCreate(&event_);
  if (e != cudaSuccess) throw DeviceError("cudaEventCreate failed: " + error_text(e));
}

Event::~Event() {
  if (event_ != nullptr) (void)cudaEventDestroy(event_);
}

Stream::Stream() {
  const cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  if (e != cudaSuccess) throw DeviceError("cudaStreamCreate failed: " + error_text(e));
}

Stream::~Stream() {
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

long long elapsed_ns(cudaEvent_t from, cudaEvent_t to, int device) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime", device);
  return std::llround(static_cast<double>(ms) * 1e6);
}

}  // namespace gpumeter::cuda
