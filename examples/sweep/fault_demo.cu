// gpumeter-fault-demo: a sweep that survives a device fault. Five cases of a ~20 us kernel;
// case 3's kernel writes through an invalid device pointer (cudaErrorIllegalAddress), which
// leaves this process's CUDA context unusable for good. Run it with --isolate, each case in a
// process of its own: cases 1, 2, 4 and 5 are measured, case 3 is listed as failed with the
// CUDA error named, and the program exits 1.
//   gpumeter-fault-demo --isolate
// Without --isolate, case 3 takes cases 4 and 5 down with it (the same process, the same
// broken context).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "gpumeter/benchmark.hpp"
#include "gpumeter/errors.hpp"

namespace {

using gpumeter_examples::check;

constexpr std::uint64_t kSpinNs = 20'000;
constexpr long long kFaultingCase = 3;

__device__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread: spins for `ns`, then writes `value` to *out.
__global__ void spin_then_write(float* out, std::uint64_t ns, float value) {
  const std::uint64_t start = globaltimer();
  while (globaltimer() - start < ns) {
  }
  *out = value;
}

void fault_demo(gpumeter::Setup& s) {
  const long long which = s.get_int("case");
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  auto out = std::make_shared<gpumeter_examples::DeviceBuffer>(sizeof(float));
  gpumeter_examples::poison(out->as<void>(), out->bytes());
  // Case 3 writes to address 0x10: mapped by no allocation, so an illegal address.
  float* const target =
      which == kFaultingCase ? reinterpret_cast<float*>(std::uintptr_t{0x10}) : out->as<float>();
  const auto value = static_cast<float>(which);
  s.implementation("spin-20us", [out, target, value] {
    spin_then_write<<<1, 1>>>(target, kSpinNs, value);
    gpumeter_examples::check_launch("spin_then_write");
  });
  s.reference(
      [value] { return std::vector<double>{value}; },
      [out] {
        return gpumeter_examples::to_doubles(gpumeter_examples::to_host(out->as<const float>(), 1));
      },
      0.0);
}

}  // namespace

GPUMETER_BENCHMARK(fault_demo).axis(gpumeter::int_axis("case", {1, 2, 3, 4, 5}));

GPUMETER_MAIN
