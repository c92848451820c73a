#pragma once
// What the example benchmarks share: CUDA error checks that name the error, owners of device
// memory, the non-zero input values every benchmark fills its inputs with (the same numbers on
// the host, for the references), and a tolerance check for outputs.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpumeter_examples {

// Throws gpumeter::DeviceError "WHAT: cudaErrorName (description)" unless `e` is cudaSuccess.
void check(cudaError_t e, const char* what);

// After a kernel launch: a bad configuration is reported at once, not at the next synchronize.
inline void check_launch(const char* kernel) {
  check(cudaGetLastError(), kernel);
}

// Device memory freed with its owner, never copied.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer() { (void)cudaFree(ptr_); }  // may fail after a sticky error: nothing to do then
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A stream of the case's own (capture needs one that is not the legacy default stream).
class OwnedStream {
 public:
  OwnedStream();
  ~OwnedStream() { (void)cudaStreamDestroy(stream_); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Element i of input `seed`: a magnitude in [0.5, 1.5] with a random sign, never zero (a
// kernel timed on zeros can take shortcuts real data does not). Integer mixing (splitmix64)
// and exact float steps only, so host and device compute the same bits.
__host__ __device__ inline float example_value(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull * (std::uint64_t{seed} + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const float magnitude = 0.5f + static_cast<float>(z >> 40) * 0x1p-24f;  // 24 bits: [0, 1)
  return (z & 1) != 0 ? -magnitude : magnitude;
}

// The same value rounded to bf16, as the device holds it, read back as a float.
inline float example_value_bf16(std::uint64_t i, std::uint32_t seed) {
  return __bfloat162float(__float2bfloat16(example_value(i, seed)));
}

// Fill device memory with example_value(i, seed) for i in [0, n), on `stream` (fill.cu).
void fill_values(float* out, std::size_t n, std::uint32_t seed, cudaStream_t stream);
void fill_values(__nv_bfloat16* out, std::size_t n, std::uint32_t seed, cudaStream_t stream);

// Makes device memory NaN (all bits set), so an output nobody wrote fails its check; returns
// once the device has done it.
void poison(void* out, std::size_t bytes);

// Copies n elements of device memory to the host.
std::vector<float> to_host(const float* device, std::size_t n);
std::vector<float> to_host(const __nv_bfloat16* device, std::size_t n);
std::vector<double> to_doubles(const std::vector<float>& v);

// Each got[i] must be within rtol * |want[i]| + atol of want[i] (NaN never is); else throws
// gpumeter::VerificationFailed naming the implementation, the element, both values and the bound.
void check_close(const std::string& implementation, const std::vector<double>& got,
                 const std::vector<double>& want, double rtol, double atol);

// The device's SM count, and a grid for a grid-stride kernel over `items`: enough blocks to
// fill every SM (2048 resident threads per SM on sm_90), no more than the items need.
int sm_count(int device);
int grid_for(std::size_t items, int threads, int sms);

}  // namespace gpumeter_examples
