// gpumeter-sweep-cost: what the benchmark runtime itself costs over a sweep. 100 cases of one
// 10 us kernel (spin10us, repeat=1..100): the sweep's wall time against the sum of its budgets
// (100 x 125 ms with the default --budget 25,100) is the runtime's own time per case (setup,
// verification, CUPTI phases, record checkpoints; with --isolate, a process per case).
//   time gpumeter-sweep-cost --quiet [--isolate]
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/benchmark.hpp"
#include "gpumeter/errors.hpp"
#include "known_kernels.hpp"

namespace {

constexpr std::uint64_t kSpinNs = 10'000;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  throw gpumeter::DeviceError(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                              cudaGetErrorString(e) + ")");
}

// The kernel's first and last %globaltimer readings.
struct Stamps {
  Stamps() { check(cudaMalloc(&device, 2 * sizeof(std::uint64_t)), "cudaMalloc"); }
  ~Stamps() { (void)cudaFree(device); }
  Stamps(const Stamps&) = delete;
  Stamps& operator=(const Stamps&) = delete;
  std::uint64_t* device = nullptr;
};

void spin10us(gpumeter::Setup& s) {
  (void)s.get_int("repeat");  // only makes cases: every one does the same work
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  auto stamps = std::make_shared<Stamps>();
  check(cudaMemset(stamps->device, 0, 2 * sizeof(std::uint64_t)), "cudaMemset");
  s.implementation("spin", [stamps] {
    gpumeter::testkit::launch_spin(kSpinNs, stamps->device, nullptr);
    check(cudaGetLastError(), "spin kernel launch");
  });
  // The kernel ran, for at least 10 us by its own clock (zeros: it never wrote).
  s.verify([stamps](const std::string& implementation) {
    std::uint64_t t[2] = {0, 0};
    check(cudaMemcpy(t, stamps->device, sizeof t, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (t[0] == 0 || t[1] < t[0] + kSpinNs) {
      throw gpumeter::VerificationFailed(implementation + ": the spin kernel's clock readings " +
                                         std::to_string(t[0]) + ", " + std::to_string(t[1]) +
                                         " are not 10 us or more apart");
    }
  });
}

std::vector<long long> one_to(long long last) {
  std::vector<long long> v;
  for (long long k = 1; k <= last; ++k) v.push_back(k);
  return v;
}

}  // namespace

GPUMETER_BENCHMARK(spin10us).axis(gpumeter::int_axis("repeat", one_to(100)));

GPUMETER_MAIN
