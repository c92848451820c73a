#include <cmath>
#include <cstddef>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "example_work.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::example {
namespace {

// 2^16 doubles = 512 KiB: resident in the L2 or L3 of any current host CPU. The host backend
// flushes no CPU cache, so a larger array would be timed partly from cache and partly from
// memory depending on the host's cache size (seen on the GPU machine's CPU: a 32 MiB sum and
// its 4x null-test partner landed on opposite sides of the last-level cache and failed P6).
// Cache-resident, each call is arithmetic-latency bound and scales with the passes it makes.
constexpr std::size_t kElements = std::size_t{1} << 16;
// The null test's base call makes 8 passes (about 60 us here), so that the host clock's own
// cost and a scheduler tick are small beside it: with 1 pass (8 us) the test failed once on
// the GPU machine's virtual CPU.
constexpr int kNullTestBasePasses = 8;

struct HostBuffers {
  std::vector<double> data;
  double reference = 0;
  volatile double sink = 0;  // the result goes somewhere the compiler cannot drop
};

// One accumulator: every add waits for the previous one (a latency-bound chain).
double sum_serial(const double* x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

// Four independent accumulators: four chains in flight. `start` seeds the first chain.
double sum_four_chains_from(const double* x, std::size_t n, double start) {
  double a = start, b = 0, c = 0, d = 0;
  const std::size_t whole = n - n % 4;
  std::size_t i = 0;
  for (; i < whole; i += 4) {
    a += x[i];
    b += x[i + 1];
    c += x[i + 2];
    d += x[i + 3];
  }
  for (; i < n; ++i) a += x[i];
  return (a + b) + (c + d);
}

double sum_four_chains(const double* x, std::size_t n) {
  return sum_four_chains_from(x, n, 0);
}

// `passes` sums in a row, each seeded with the last one's result. The seed makes each pass
// wait for the one before: when every pass started from zero, the CPU overlapped one pass
// with the next and 4 passes took 3.0x one (seen here), the CPU's doing, not the work's size.
double sum_passes(const double* x, std::size_t n, int passes) {
  double s = 0;
  for (int p = 0; p < passes; ++p) s = sum_four_chains_from(x, n, s);
  return s;
}

}  // namespace

ExampleWork host_example_work() {
  auto buf = std::make_shared<HostBuffers>();
  buf->data.resize(kElements);
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (double& v : buf->data) v = dist(rng);  // random data, never zeros
  long double ref = 0;
  for (std::size_t i = 0; i < kElements; ++i) ref += buf->data[i];
  buf->reference = static_cast<double>(ref);

  HostBuffers* b = buf.get();
  const double bytes = static_cast<double>(kElements * sizeof(double));
  auto verify_with = [b](double (*fn)(const double*, std::size_t), std::string name) {
    return [b, fn, name] {
      const double got = fn(b->data.data(), kElements);
      const double rel = std::fabs(got - b->reference) / std::fabs(b->reference);
      if (!(rel < 1e-9)) {  // float64 sums of 4M terms in another order stay far below this
        throw VerificationFailed(name + ": sum off by a relative " + std::to_string(rel));
      }
    };
  };

  ExampleWork w;
  w.description =
      "host: sum of 64K doubles (512 KiB, cache-resident), one dependency chain vs four";
  w.owner = buf;

  Case sum;
  sum.name = "sum-f64";
  sum.params = {{"n", std::to_string(kElements)}};
  // Bytes only: a sum does one add per 8 bytes read, and its rate is read in TB/s. A flop rate
  // too would be the same figure in other units, and one column more on the first screen.
  sum.workload.bytes = bytes;
  sum.implementations.push_back({"one-chain",
                                 Call{[b] { b->sink = sum_serial(b->data.data(), kElements); }, {}},
                                 verify_with(sum_serial, "one-chain"),
                                 {}});
  sum.implementations.push_back(
      {"four-chains",
       Call{[b] { b->sink = sum_four_chains(b->data.data(), kElements); }, {}},
       verify_with(sum_four_chains, "four-chains"),
       {}});
  w.cases.push_back(std::move(sum));

  // P6: the null test hook. The timed call makes kNullTestBasePasses passes; scaled k times, it
  // makes k times as many, and must take about k times as long.
  Case null_test;
  null_test.name = "null-test:sum-f64";
  // The base call's passes over n elements; the scaled call makes k times as many.
  null_test.params = {{"n", std::to_string(kElements)},
                      {"passes", std::to_string(kNullTestBasePasses)}};
  Implementation passes{"four-chains", {}, {}, {}};
  passes.scaled = [b](int k) {
    b->sink = sum_passes(b->data.data(), kElements, kNullTestBasePasses * k);
  };
  passes.call.run = [scaled = passes.scaled] { scaled(1); };
  null_test.workload.bytes = bytes * kNullTestBasePasses;  // what the base call reads
  null_test.implementations.push_back(std::move(passes));
  w.cases.push_back(std::move(null_test));
  return w;
}

}  // namespace gpumeter::example
