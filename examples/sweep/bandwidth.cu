// Memory-bound work: a float4 copy over sizes from L2-sized to far beyond L2 (bandwidth), and
// an in-place scale whose input an untimed reset restores before each call (inplace_scale).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks.hpp"
#include "common.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter_examples {
namespace {

constexpr int kThreads = 256;

__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out,
                            std::size_t n4) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n4; i += stride) {
    out[i] = in[i];
  }
}

__global__ void scale_in_place(float* x, float factor, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    x[i] *= factor;
  }
}

struct CopyBuffers {
  explicit CopyBuffers(std::size_t bytes) : in(bytes), out(bytes) {}
  DeviceBuffer in;
  DeviceBuffer out;
};

}  // namespace

void bandwidth(gpumeter::Setup& s) {
  const long long bytes = s.get_int("bytes");
  if (bytes <= 0 || bytes % 16 != 0) {
    throw gpumeter::ConfigError("bandwidth: bytes=" + std::to_string(bytes) +
                                " is not a positive multiple of 16 (the copy moves float4s)");
  }
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  const auto n4 = static_cast<std::size_t>(bytes) / 16;
  const std::size_t n = 4 * n4;  // floats
  const int blocks = grid_for(n4, kThreads, sm_count(s.device()));
  constexpr std::uint32_t kSeed = 1;

  auto b = std::make_shared<CopyBuffers>(static_cast<std::size_t>(bytes));
  fill_values(b->in.as<float>(), n, kSeed, nullptr);
  poison(b->out.as<float>(), b->out.bytes());
  check(cudaDeviceSynchronize(), "filling the inputs");

  s.bytes(2.0 * static_cast<double>(bytes));  // each byte read once and written once
  s.implementation("float4", [b, n4, blocks] {
    copy_float4<<<blocks, kThreads>>>(b->in.as<const float4>(), b->out.as<float4>(), n4);
    check_launch("copy_float4");
  });
  // A copy is exact: every element, bit for bit, against the values the input was filled with.
  s.verify([b, n](const std::string& implementation) {
    const std::vector<float> out = to_host(b->out.as<const float>(), n);
    for (std::size_t i = 0; i < n; ++i) {
      if (out[i] != example_value(i, kSeed)) {  // a NaN left by the poison differs too
        throw gpumeter::VerificationFailed(implementation + ": float " + std::to_string(i) +
                                           " of the copy differs from the input");
      }
    }
  });
}

void inplace_scale(gpumeter::Setup& s) {
  const auto n = static_cast<std::size_t>(s.get_int("n"));
  if (n == 0) throw gpumeter::ConfigError("inplace_scale: n must be positive");
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  const int blocks = grid_for(n, kThreads, sm_count(s.device()));
  constexpr std::uint32_t kSeed = 2;
  constexpr float kFactor = 1.5f;

  // x is what the call overwrites; pristine is never written after setup. The buffers stay
  // alive through keep(); the calls capture plain pointers.
  auto b = std::make_shared<CopyBuffers>(n * sizeof(float));
  s.keep(b);
  float* const x = b->out.as<float>();
  const float* const pristine = b->in.as<const float>();
  fill_values(b->in.as<float>(), n, kSeed, nullptr);
  check(cudaDeviceSynchronize(), "filling the inputs");

  s.bytes(2.0 * static_cast<double>(n * sizeof(float)));  // x read and written once
  s.implementation(
      "scale",
      [x, n, blocks] {
        scale_in_place<<<blocks, kThreads>>>(x, kFactor, n);
        check_launch("scale_in_place");
      },
      // Before every call, untimed: x back to its pristine values, so each call (and the check
      // below) sees the same input, never 1.5^k times it.
      [x, pristine, n] {
        check(cudaMemcpyAsync(x, pristine, n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr),
              "cudaMemcpyAsync (restoring x)");
      });
  // One call after one reset: x = 1.5 * pristine, where pristine holds example_value(i, kSeed).
  // 1.5 * x rounds once in float: relative error at most 2^-24.
  s.reference(
      [n] {
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = kFactor * double{example_value(i, kSeed)};
        return want;
      },
      [x, n] { return to_doubles(to_host(x, n)); }, 1e-6);
}

}  // namespace gpumeter_examples
