// A square bf16 GEMM through cuBLAS (cublasGemmEx: bf16 A, B and C, fp32 accumulation), the
// same call the runtime's FLOP/s ceiling times at 8192, so "% of ceiling" compares like with like.
#include <cublas_v2.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "benchmarks.hpp"
#include "common.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter_examples {
namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw gpumeter::DeviceError(std::string(what) + ": " + cublasGetStatusName(status) + " (" +
                              cublasGetStatusString(status) + ")");
}

// cuBLAS's workspace, given explicitly so that no call allocates one; 32 MiB is NVIDIA's
// recommendation for Hopper.
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
constexpr std::uint32_t kSeedA = 3;
constexpr std::uint32_t kSeedB = 4;
// Elements of C checked against the host (besides the four corners); every element is checked
// to be finite.
constexpr int kSamples = 256;

// One case's matrices and cuBLAS handle: created once in setup, alive until the case has been
// measured (Setup::keep), destroyed before the next case allocates its own.
struct Gemm {
  explicit Gemm(int n)
      : size(n),
        a(elements() * sizeof(__nv_bfloat16)),
        b(elements() * sizeof(__nv_bfloat16)),
        c(elements() * sizeof(__nv_bfloat16)),
        workspace(kWorkspaceBytes) {
    check_cublas(cublasCreate(&handle), "cublasCreate");
  }
  ~Gemm() { (void)cublasDestroy(handle); }
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  std::size_t elements() const {
    return static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
  }

  // C = A B, column-major, none transposed. cublasGemmEx runs on the handle's stream: the
  // legacy default stream, as nothing sets another.
  void run() const {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    check_cublas(
        cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha, a.as<const void>(),
                     CUDA_R_16BF, size, b.as<const void>(), CUDA_R_16BF, size, &beta, c.as<void>(),
                     CUDA_R_16BF, size, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx (bf16, fp32 accumulation)");
  }

  int size;
  DeviceBuffer a;
  DeviceBuffer b;
  DeviceBuffer c;
  DeviceBuffer workspace;
  cublasHandle_t handle = nullptr;
};

// C[i, j] from the same bf16 inputs, accumulated in double.
double reference_element(int n, int i, int j) {
  const auto un = static_cast<std::uint64_t>(n);
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    const double a = example_value_bf16(static_cast<std::uint64_t>(i) + k * un, kSeedA);
    const double b = example_value_bf16(static_cast<std::uint64_t>(k) + j * un, kSeedB);
    sum += a * b;
  }
  return sum;
}

}  // namespace

void gemm(gpumeter::Setup& s) {
  const long long mnk = s.get_int("mnk");
  if (mnk <= 0 || mnk > 65536) {
    throw gpumeter::ConfigError("gemm: mnk=" + std::to_string(mnk) + " is outside 1..65536");
  }
  const int n = static_cast<int>(mnk);
  check(cudaSetDevice(s.device()), "cudaSetDevice");

  auto g = std::make_shared<Gemm>(n);
  s.keep(g);  // the handle and buffers; the calls below capture a plain pointer
  Gemm* const gp = g.get();
  check_cublas(cublasSetWorkspace(g->handle, g->workspace.as<void>(), g->workspace.bytes()),
               "cublasSetWorkspace");
  fill_values(g->a.as<__nv_bfloat16>(), g->elements(), kSeedA, nullptr);
  fill_values(g->b.as<__nv_bfloat16>(), g->elements(), kSeedB, nullptr);
  poison(g->c.as<void>(), g->c.bytes());
  check(cudaDeviceSynchronize(), "filling the inputs");

  const double d = static_cast<double>(n);
  s.flops(2.0 * d * d * d);
  s.implementation("cublasGemmEx", [gp] { gp->run(); });

  // Sampled elements against the host. The errors to allow: C rounded to bf16 (at most 2^-8,
  // 0.4%, relative) and fp32 accumulation in some order over n terms (relative to the terms'
  // sizes, not to C[i, j], so it dominates where C[i, j] is near zero). Hence a relative
  // tolerance of 1e-2 plus a floor of 1e-2 times the RMS of the sampled C: a wrong answer (a
  // transposed operand, a missed tile) is off by about the RMS itself.
  s.verify([gp, n](const std::string& implementation) {
    const std::vector<float> c = to_host(gp->c.as<const __nv_bfloat16>(), gp->elements());
    for (std::size_t e = 0; e < c.size(); ++e) {
      if (!std::isfinite(c[e])) {  // the poison: a tile nobody wrote
        throw gpumeter::VerificationFailed(implementation + ": element " + std::to_string(e) +
                                           " of C is not finite");
      }
    }
    std::vector<std::pair<int, int>> at{{0, 0}, {n - 1, 0}, {0, n - 1}, {n - 1, n - 1}};
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> index(0, n - 1);
    for (int k = 0; k < kSamples; ++k) at.emplace_back(index(rng), index(rng));
    std::vector<double> got;
    std::vector<double> want;
    double sum_squares = 0;
    for (const auto& [i, j] : at) {
      got.push_back(c[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n]);
      want.push_back(reference_element(n, i, j));
      sum_squares += want.back() * want.back();
    }
    const double rms = std::sqrt(sum_squares / static_cast<double>(want.size()));
    check_close(implementation, got, want, 1e-2, 1e-2 * rms);
  });
}

}  // namespace gpumeter_examples
