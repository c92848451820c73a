// A benchmark program of host work, for the tests of the benchmark runtime: what a user writes,
// plus cases that fail, crash or hang on purpose (selected by their axis values).
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpumeter/benchmark.hpp"

namespace {

struct Data {
  std::vector<double> x;
  volatile double sink = 0;
};

// Two implementations of a sum over `n` doubles, checked against a reference.
void sum(gpumeter::Setup& s) {
  const auto n = static_cast<std::size_t>(s.get_int("n"));
  auto d = std::make_shared<Data>();
  d->x.assign(n, 0.5);
  s.bytes(8.0 * static_cast<double>(n));
  s.flops(static_cast<double>(n));
  s.implementation("loop", [d] {
    double a = 0;
    for (double v : d->x) a += v;
    d->sink = a;
  });
  s.implementation("accumulate", [d] { d->sink = std::accumulate(d->x.begin(), d->x.end(), 0.0); });
  s.reference([n] { return std::vector<double>{0.5 * static_cast<double>(n)}; },
              [d] { return std::vector<double>{d->sink}; }, 1e-12);
}
GPUMETER_BENCHMARK(sum)
    .axis(gpumeter::int_axis("n", {1000, 4000}))
    .axis(gpumeter::string_axis("kind", {"plain"}));

// Misbehaving cases, one per value of `what`: the runtime must keep the others' numbers.
void trouble(gpumeter::Setup& s) {
  const std::string what = s.get_string("what");
  if (what == "skip") {
    s.skip("not on this machine");
    return;
  }
  if (what == "wrong") {
    auto sink = std::make_shared<double>(0);
    s.implementation("off-by-one", [sink] { *sink = 1; });
    s.reference([] { return std::vector<double>{2}; },
                [sink] { return std::vector<double>{*sink}; }, 0.0);
    return;
  }
  if (what == "crash") {
    s.implementation("abort", [] { std::abort(); });
    return;
  }
  if (what == "hang") {
    s.implementation("sleep", [] { std::this_thread::sleep_for(std::chrono::hours(1)); });
    return;
  }
  if (what == "throw") throw std::runtime_error("setup failed on purpose");
  auto sink = std::make_shared<int>(0);
  if (what == "throw-in-check") {  // the untimed call runs, then its check throws
    s.implementation("checked", [sink] { *sink += 1; });
    s.verify([](const std::string&) { throw std::runtime_error("the check failed on purpose"); });
    return;
  }
  if (what == "throw-in-call") {  // passes its untimed call, then throws while it is timed
    s.implementation("flaky", [sink] {
      if (++*sink == 5) throw std::out_of_range("the fifth call failed on purpose");
    });
    return;
  }
  if (what == "throw-int") {  // not a std::exception: only its type can be named
    s.implementation(
        "odd", [sink] { *sink += 1; }, [] { throw 42; });
    return;
  }
  s.implementation("fine", [sink] { *sink += 1; });
}
GPUMETER_BENCHMARK(trouble).axis(gpumeter::string_axis("what", {"fine", "skip", "wrong", "throw",
                                                                "throw-in-check", "throw-in-call",
                                                                "throw-int", "crash", "hang"}));

}  // namespace

GPUMETER_MAIN
