// RMSNorm of one token, as in a decode step: y = x / sqrt(mean(x^2) + eps) * gamma over a
// hidden size of a few thousand bf16 values, in one block. A few microseconds, bound by launch
// and latency, not by bandwidth: the "% of ceiling" column says how far from it.
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks.hpp"
#include "common.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter_examples {
namespace {

constexpr float kEps = 1e-6f;
constexpr int kPerVector = 8;  // bf16 values in one 16-byte load
constexpr std::uint32_t kSeedX = 6;
constexpr std::uint32_t kSeedGamma = 7;

// One block; each thread takes 16-byte vectors of 8 values, strided by the block. blockDim.x
// is a multiple of 32, so every warp is whole for the shuffles.
__global__ void rmsnorm_one_token(const uint4* __restrict__ x, const uint4* __restrict__ gamma,
                                  uint4* __restrict__ y, int vectors, int hidden) {
  float sum_squares = 0.0f;
  for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
    const uint4 raw = x[v];
    const auto* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
    for (int p = 0; p < kPerVector / 2; ++p) {
      const float2 f = __bfloat1622float2(pairs[p]);
      sum_squares += f.x * f.x + f.y * f.y;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    sum_squares += __shfl_xor_sync(0xffffffffu, sum_squares, offset);
  }
  __shared__ float warp_sums[32];
  __shared__ float scale;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = sum_squares;
  __syncthreads();
  if (warp == 0) {
    float total = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
      total += __shfl_xor_sync(0xffffffffu, total, offset);
    }
    if (lane == 0) scale = rsqrtf(total / static_cast<float>(hidden) + kEps);
  }
  __syncthreads();
  for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
    const uint4 raw_x = x[v];  // again: from L1, the first pass just read it
    const uint4 raw_gamma = gamma[v];
    const auto* xs = reinterpret_cast<const __nv_bfloat162*>(&raw_x);
    const auto* gs = reinterpret_cast<const __nv_bfloat162*>(&raw_gamma);
    alignas(16) __nv_bfloat162 out[kPerVector / 2];
    for (int p = 0; p < kPerVector / 2; ++p) {
      const float2 xf = __bfloat1622float2(xs[p]);
      const float2 gf = __bfloat1622float2(gs[p]);
      out[p] = __floats2bfloat162_rn(xf.x * scale * gf.x, xf.y * scale * gf.y);
    }
    y[v] = *reinterpret_cast<const uint4*>(out);
  }
}

struct NormBuffers {
  explicit NormBuffers(std::size_t hidden)
      : x(hidden * sizeof(__nv_bfloat16)),
        gamma(hidden * sizeof(__nv_bfloat16)),
        y(hidden * sizeof(__nv_bfloat16)) {}
  DeviceBuffer x;
  DeviceBuffer gamma;
  DeviceBuffer y;
};

}  // namespace

void decode_rmsnorm(gpumeter::Setup& s) {
  const long long hidden_axis = s.get_int("hidden");
  // 1024 threads of 8 values each at most: one block.
  if (hidden_axis <= 0 || hidden_axis % kPerVector != 0 || hidden_axis > 1024 * kPerVector) {
    throw gpumeter::ConfigError("decode_rmsnorm: hidden=" + std::to_string(hidden_axis) +
                                " is not a multiple of 8 between 8 and 8192");
  }
  const int hidden = static_cast<int>(hidden_axis);
  const int vectors = hidden / kPerVector;
  const int threads = (vectors + 31) / 32 * 32;
  check(cudaSetDevice(s.device()), "cudaSetDevice");

  const auto n = static_cast<std::size_t>(hidden);
  auto b = std::make_shared<NormBuffers>(n);
  fill_values(b->x.as<__nv_bfloat16>(), n, kSeedX, nullptr);
  fill_values(b->gamma.as<__nv_bfloat16>(), n, kSeedGamma, nullptr);
  poison(b->y.as<void>(), b->y.bytes());
  check(cudaDeviceSynchronize(), "filling the inputs");

  s.bytes(3.0 * static_cast<double>(n * sizeof(__nv_bfloat16)));  // x, gamma read; y written
  s.implementation("one-block", [b, vectors, hidden, threads] {
    rmsnorm_one_token<<<1, threads>>>(b->x.as<const uint4>(), b->gamma.as<const uint4>(),
                                      b->y.as<uint4>(), vectors, hidden);
    check_launch("rmsnorm_one_token");
  });
  // Every element against the host, in double from the same bf16 inputs. y is rounded to bf16
  // (at most 2^-8 relative); the fp32 sum of squares and scale add far less. |y| >= about 0.24
  // (|x|, |gamma| >= 0.5, rms about 1), so a relative tolerance has no zeros to trip on.
  s.reference(
      [n] {
        double sum_squares = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const double x = example_value_bf16(i, kSeedX);
          sum_squares += x * x;
        }
        const double scale = 1.0 / std::sqrt(sum_squares / static_cast<double>(n) + kEps);
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) {
          want[i] = example_value_bf16(i, kSeedX) * scale * example_value_bf16(i, kSeedGamma);
        }
        return want;
      },
      [b, n] { return to_doubles(to_host(b->y.as<const __nv_bfloat16>(), n)); }, 1e-2);
}

}  // namespace gpumeter_examples
