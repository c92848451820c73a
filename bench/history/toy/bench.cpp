// toyvec's benchmark: each kernel over 4096 doubles, timed by gpumeter on the host clock.
#include <gpumeter/gpumeter.hpp>

#include <cstddef>
#include <memory>
#include <vector>

#include "kernels.hpp"

namespace {

constexpr std::size_t kN = 4096;

struct Data {
  std::vector<double> x = std::vector<double>(kN, 0.5);
  std::vector<double> y = std::vector<double>(kN, 0.25);
  volatile double sink = 0;
};

void dot(gpumeter::Setup& s) {
  auto d = std::make_shared<Data>();
  s.bytes(16.0 * kN);
  s.implementation("scalar", [d] { d->sink = toyvec::dot_scalar(d->x.data(), d->y.data(), kN); });
  s.implementation("unrolled4",
                   [d] { d->sink = toyvec::dot_unrolled4(d->x.data(), d->y.data(), kN); });
  s.reference([] { return std::vector<double>{0.125 * kN}; },
              [d] { return std::vector<double>{d->sink}; }, 1e-12);
}
GPUMETER_BENCHMARK(dot);

void saxpy(gpumeter::Setup& s) {
  auto d = std::make_shared<Data>();
  s.bytes(24.0 * kN);
  s.implementation("loop", [d] {
    toyvec::saxpy(1e-9, d->x.data(), d->y.data(), kN);
    d->sink = d->y[kN - 1];
  });
}
GPUMETER_BENCHMARK(saxpy);

void prefix_sum(gpumeter::Setup& s) {
  auto d = std::make_shared<Data>();
  s.bytes(16.0 * kN);
  s.implementation("sequential", [d] {
    toyvec::prefix_sum(d->x.data(), d->y.data(), kN);
    d->sink = d->y[kN - 1];
  });
}
GPUMETER_BENCHMARK(prefix_sum);

}  // namespace

GPUMETER_MAIN
