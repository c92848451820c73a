// A user's benchmark program, built by tests/consumer/run.sh like main.cpp: one benchmark
// function with an axis, registered by GPUMETER_BENCHMARK, with GPUMETER_MAIN's command line.
// It includes gpumeter.hpp and nothing else of gpumeter's.
#include <gpumeter/gpumeter.hpp>

#include <cstddef>
#include <memory>
#include <numeric>
#include <vector>

namespace {

struct Data {
  std::vector<double> x;
  volatile double sink = 0;
};

void sum(gpumeter::Setup& s) {
  const auto n = static_cast<std::size_t>(s.get_int("n"));
  auto d = std::make_shared<Data>();
  d->x.assign(n, 0.5);
  s.bytes(8.0 * static_cast<double>(n));
  s.implementation("accumulate", [d] { d->sink = std::accumulate(d->x.begin(), d->x.end(), 0.0); });
  s.reference([n] { return std::vector<double>{0.5 * static_cast<double>(n)}; },
              [d] { return std::vector<double>{d->sink}; }, 1e-12);
}

}  // namespace

GPUMETER_BENCHMARK(sum).axis(gpumeter::int_axis("n", {4096}));
GPUMETER_MAIN
