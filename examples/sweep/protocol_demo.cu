// gpumeter-protocol-demo: the evaluation protocol's self-checks on a GPU.
//   null_test     a 20 us spin that can do k times its work (a null test that passes), and one
//                 whose scaled call ignores k (the null test fails: its row is marked failed,
//                 shows no times and is compared with nothing; the program exits 1)
//   holds_memory  a case that holds `bytes` of device memory while it is measured: its GPU
//                 memory column reads them, above the context floor (run with --isolate for
//                 figures that belong to one case each)
//   gpumeter-protocol-demo --isolate --out results/
#include <cstdint>
#include <memory>
#include <string>

#include "common.hpp"
#include "gpumeter/benchmark.hpp"
#include "gpumeter/errors.hpp"

namespace {

using gpumeter_examples::check;

__device__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread spins for `ns` of the device's own clock, then writes a word.
__global__ void spin(std::uint64_t ns, unsigned* out) {
  const std::uint64_t start = globaltimer();
  while (globaltimer() - start < ns) {
  }
  *out = 1;
}

constexpr std::uint64_t kSpinNs = 20'000;

void null_test(gpumeter::Setup& s) {
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  auto out = std::make_shared<gpumeter_examples::DeviceBuffer>(sizeof(unsigned));
  unsigned* word = out->as<unsigned>();
  s.keep(out);
  // k times the work: a spin k times as long.
  s.scalable_implementation("spin-scales", [word](int k) {
    spin<<<1, 1>>>(kSpinNs * static_cast<std::uint64_t>(k), word);
    gpumeter_examples::check_launch("spin");
  });
  // A harness bug on purpose: the scaled call does the base work whatever k is.
  s.scalable_implementation("spin-ignores-scale", [word](int) {
    spin<<<1, 1>>>(kSpinNs, word);
    gpumeter_examples::check_launch("spin");
  });
}

void holds_memory(gpumeter::Setup& s) {
  const long long bytes = s.get_int("bytes");
  if (bytes < 0) throw gpumeter::ConfigError("holds_memory: bytes must not be negative");
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  auto out = std::make_shared<gpumeter_examples::DeviceBuffer>(sizeof(unsigned));
  s.keep(out);
  if (bytes > 0) {
    auto held = std::make_shared<gpumeter_examples::DeviceBuffer>(static_cast<std::size_t>(bytes));
    // Touched, so the driver backs it with pages now.
    check(cudaMemset(held->as<void>(), 0, held->bytes()), "cudaMemset of the held memory");
    s.keep(held);
  }
  unsigned* word = out->as<unsigned>();
  s.implementation("spin-5us", [word] {
    spin<<<1, 1>>>(5'000, word);
    gpumeter_examples::check_launch("spin");
  });
}

}  // namespace

GPUMETER_BENCHMARK(null_test);
GPUMETER_BENCHMARK(holds_memory).axis(gpumeter::int_axis("bytes", {0, 1LL << 30}));
GPUMETER_MAIN
