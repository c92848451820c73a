// The bundled GPU work: a bandwidth-bound copy in two implementations, a 1-block kernel,
// and a null test (the copy at 1x and 4x the bytes).
#include <cuda_runtime.h>
#include <cstddef>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "example_work.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::example {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw DeviceError(std::string("example: ") + what + ": " + cudaGetErrorString(e));
  }
}

// 64 Mi floats = 256 MiB per buffer: far larger than the 60 MB L2 of an H200, so a copy
// streams from HBM. The null test's base copies a quarter of it.
constexpr std::size_t kFloats = std::size_t{64} << 20;

__global__ void copy_scalar(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = in[i];
  }
}

// 16-byte loads and stores; n must be a multiple of 4.
__global__ void copy_vector(const float4* __restrict__ in, float4* __restrict__ out,
                            std::size_t n4) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n4;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = in[i];
  }
}

__global__ void one_block(float* out) {
  out[threadIdx.x] = out[threadIdx.x] * 0.5f + 1.0f;
}

struct CudaBuffers {
  int device = 0;
  int blocks = 0;
  float* src = nullptr;
  float* dst = nullptr;
  float* small = nullptr;
  CudaBuffers() = default;
  CudaBuffers(const CudaBuffers&) = delete;
  CudaBuffers& operator=(const CudaBuffers&) = delete;
  ~CudaBuffers() {
    cudaSetDevice(device);
    cudaFree(src);
    cudaFree(dst);
    cudaFree(small);
  }
};

void launch_scalar(const CudaBuffers& b, std::size_t n) {
  copy_scalar<<<b.blocks, 256>>>(b.src, b.dst, n);
  check(cudaGetLastError(), "copy_scalar launch");
}

void launch_vector(const CudaBuffers& b, std::size_t n) {
  copy_vector<<<b.blocks, 256>>>(reinterpret_cast<const float4*>(b.src),
                                 reinterpret_cast<float4*>(b.dst), n / 4);
  check(cudaGetLastError(), "copy_vector launch");
}

// Poisons the output, runs one copy, and checks every element against the input.
std::function<void()> verifier(CudaBuffers* b, void (*launch)(const CudaBuffers&, std::size_t),
                               std::string name) {
  return [b, launch, name] {
    check(cudaSetDevice(b->device), "cudaSetDevice");
    check(cudaMemset(b->dst, 0xFF, kFloats * sizeof(float)), "poison output");
    launch(*b, kFloats);
    check(cudaDeviceSynchronize(), "copy");
    std::vector<float> in(kFloats), out(kFloats);
    check(cudaMemcpy(in.data(), b->src, kFloats * sizeof(float), cudaMemcpyDeviceToHost), "D2H");
    check(cudaMemcpy(out.data(), b->dst, kFloats * sizeof(float), cudaMemcpyDeviceToHost), "D2H");
    if (std::memcmp(in.data(), out.data(), kFloats * sizeof(float)) != 0) {
      throw VerificationFailed(name + ": the output differs from the input");
    }
  };
}

}  // namespace

ExampleWork cuda_example_work(int device) {
  auto b = std::make_shared<CudaBuffers>();
  b->device = device;
  check(cudaSetDevice(device), "cudaSetDevice");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  b->blocks = 4 * sms;  // enough resident blocks per SM to keep loads in flight
  check(cudaMalloc(&b->src, kFloats * sizeof(float)), "cudaMalloc src");
  check(cudaMalloc(&b->dst, kFloats * sizeof(float)), "cudaMalloc dst");
  check(cudaMalloc(&b->small, 256 * sizeof(float)), "cudaMalloc small");
  {
    std::vector<float> host(kFloats);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : host) v = dist(rng);  // random data, never zeros
    check(cudaMemcpy(b->src, host.data(), kFloats * sizeof(float), cudaMemcpyHostToDevice), "H2D");
    check(cudaMemcpy(b->small, host.data(), 256 * sizeof(float), cudaMemcpyHostToDevice), "H2D");
  }
  CudaBuffers* p = b.get();
  const double bytes = 2.0 * kFloats * sizeof(float);  // read once, written once

  ExampleWork w;
  w.description = "GPU: a 256 MiB copy (scalar vs 16-byte accesses), a 1-block kernel";
  w.owner = b;

  Case copy;
  copy.name = "copy-f32";
  copy.params = {{"bytes", std::to_string(kFloats * sizeof(float))}};
  copy.workload.bytes = bytes;
  copy.implementations.push_back({"scalar", Call{[p] { launch_scalar(*p, kFloats); }, {}},
                                  verifier(p, launch_scalar, "scalar")});
  copy.implementations.push_back({"float4", Call{[p] { launch_vector(*p, kFloats); }, {}},
                                  verifier(p, launch_vector, "float4")});
  w.cases.push_back(std::move(copy));

  Case tiny;
  tiny.name = "one-block";
  tiny.params = {{"threads", "256"}};
  tiny.implementations.push_back({"one-block",
                                  Call{[p] {
                                         one_block<<<1, 256>>>(p->small);
                                         check(cudaGetLastError(), "one_block");
                                       },
                                       {}},
                                  {}});
  w.cases.push_back(std::move(tiny));

  // P6: the null test hook. The timed call copies a quarter of the buffer; scaled k times it
  // copies k quarters (the whole buffer at k = kNullTestScale), and must take about k times as
  // long.
  constexpr auto scale = static_cast<std::size_t>(kNullTestScale);
  Case null_test;
  null_test.name = "null-test:copy-f32";
  null_test.params = {{"base_bytes", std::to_string(kFloats / scale * sizeof(float))}};
  Implementation quarter{"float4", {}, {}, {}};
  quarter.scaled = [p](int k) { launch_vector(*p, kFloats / scale * static_cast<std::size_t>(k)); };
  quarter.call.run = [scaled = quarter.scaled] { scaled(1); };
  null_test.implementations.push_back(std::move(quarter));
  w.cases.push_back(std::move(null_test));
  return w;
}

}  // namespace gpumeter::example
