// y = relu(a*x + b) as three kernels through a temporary (scale, add, relu) against one fused
// kernel: the same result, with the temporary's extra trips through memory and two more launches.
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
constexpr std::uint32_t kSeed = 8;
// With |x| in [0.5, 1.5]: a*x + b is >= 0.5 or <= -1, never near zero, so relu cuts cleanly
// and float rounding stays relative.
constexpr float kA = 1.5f;
constexpr float kB = -0.25f;

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ t, float a,
                             std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    t[i] = a * x[i];
  }
}

__global__ void add_kernel(float* t, float b, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    t[i] += b;
  }
}

__global__ void relu_kernel(const float* __restrict__ t, float* __restrict__ y, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    y[i] = fmaxf(t[i], 0.0f);
  }
}

__global__ void fused_kernel(const float* __restrict__ x, float* __restrict__ y, float a, float b,
                             std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    y[i] = fmaxf(a * x[i] + b, 0.0f);
  }
}

struct FusionBuffers {
  explicit FusionBuffers(std::size_t n)
      : x(n * sizeof(float)), t(n * sizeof(float)), y(n * sizeof(float)) {}
  DeviceBuffer x;
  DeviceBuffer t;  // the unfused version's temporary
  DeviceBuffer y;
};

}  // namespace

void fused_vs_unfused(gpumeter::Setup& s) {
  const auto n = static_cast<std::size_t>(s.get_int("n"));
  if (n == 0) throw gpumeter::ConfigError("fused_vs_unfused: n must be positive");
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  const int blocks = grid_for(n, kThreads, sm_count(s.device()));

  auto b = std::make_shared<FusionBuffers>(n);
  fill_values(b->x.as<float>(), n, kSeed, nullptr);
  poison(b->y.as<void>(), b->y.bytes());
  check(cudaDeviceSynchronize(), "filling the inputs");

  // The operation's own traffic, x read and y written, for both: the unfused version's TB/s
  // is then the useful rate, lower by what its temporary costs.
  s.bytes(2.0 * static_cast<double>(n * sizeof(float)));
  s.implementation("unfused", [b, n, blocks] {
    float* const t = b->t.as<float>();
    scale_kernel<<<blocks, kThreads>>>(b->x.as<const float>(), t, kA, n);
    check_launch("scale_kernel");
    add_kernel<<<blocks, kThreads>>>(t, kB, n);
    check_launch("add_kernel");
    relu_kernel<<<blocks, kThreads>>>(t, b->y.as<float>(), n);
    check_launch("relu_kernel");
  });
  s.implementation("fused", [b, n, blocks] {
    fused_kernel<<<blocks, kThreads>>>(b->x.as<const float>(), b->y.as<float>(), kA, kB, n);
    check_launch("fused_kernel");
  });
  // Every element against the host in double. Unfused rounds twice (a*x, then + b), fused once
  // or not at all (a contracted multiply-add): a few float ulps on values >= 0.5.
  s.reference(
      [n] {
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) {
          const double v = double{kA} * example_value(i, kSeed) + double{kB};
          want[i] = v > 0 ? v : 0.0;
        }
        return want;
      },
      // Both write y: read it, then poison it, so the next implementation's check sees only
      // what that implementation wrote.
      [b, n] {
        std::vector<double> got = to_doubles(to_host(b->y.as<const float>(), n));
        poison(b->y.as<void>(), b->y.bytes());
        return got;
      },
      1e-6);
}

}  // namespace gpumeter_examples
