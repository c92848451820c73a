// The whole pipeline on the host backend: real CPU work, real clock. They assert the plumbing,
// never a timing ratio: CI runs them on a shared 2-core machine, all cores loaded and under the
// sanitizers, where the host clock says nothing reliable about 4x the work (the null test's
// rule is tested on synthetic numbers in test_verdict.cpp, and on the GPU).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/verdict.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/measure.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// Work the compiler cannot remove: k times a fixed amount of arithmetic.
double spin(int k) {
  volatile double x = 1.0;
  for (int i = 0; i < k * 1000000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

TEST(HostBackend, PipelineEndToEndAndNullTest) {
  auto backend = make_host_backend();
  EXPECT_EQ(backend->method(), TimingMethod::host_clock);
  EXPECT_EQ(backend->device().kind, "host");
  MeasureOptions quick;
  quick.budget = Budget{2 * kMillisecond, 10 * kMillisecond, 10, 50};
  const Measurement one = measure(*backend, Call{[] { (void)spin(1); }, {}}, quick);
  const Measurement four = measure(*backend, Call{[] { (void)spin(4); }, {}}, quick);
  ASSERT_GE(one.samples.size(), 10u);
  const Summary s1 = summarize(one.samples, one.method, one.retries);
  const Summary s4 = summarize(four.samples, four.method, four.retries);
  EXPECT_GT(s1.device_busy.median_ns, 0);
  EXPECT_EQ(s1.device_busy.median_ns, s1.latency.median_ns);  // one region per call
  EXPECT_FALSE(s1.max_n_kernels.has_value());
  // The null test is computed from what was measured; whether it passes on a loaded CPU is
  // the CPU's business, not this test's.
  const NullTestVerdict v = evaluate_null_test(s1.device_busy.median_ns, s4.device_busy.median_ns);
  EXPECT_TRUE(std::isfinite(v.observed_ratio) && v.observed_ratio > 0) << v.observed_ratio;
  EXPECT_EQ(v.expected_ratio, 4.0);
}

TEST(HostBackend, ComparesInMirroredOrder) {
  auto backend = make_host_backend();
  std::string order;
  CompareOptions opt;
  opt.budget = Budget{1 * kMillisecond, 4 * kMillisecond, 10, 40};
  const auto out = compare(
      *backend,
      {{"A", Call{[&] { order += 'A'; }, {}}, {}}, {"B", Call{[&] { order += 'B'; }, {}}, {}}},
      opt);
  ASSERT_EQ(out.size(), 2u);
  // Collapse runs of the same letter: verification A B, then passes A B B A.
  std::string runs;
  for (char c : order) {
    if (runs.empty() || runs.back() != c) runs += c;
  }
  // "AB" + 3 rounds of "ABBA" (the host clock's), the runs of one letter merged.
  EXPECT_EQ(runs, "ABABABABA");
  EXPECT_EQ(out[0].samples.size(), 120u);
  EXPECT_EQ(out[0].pass_sizes.size(), 6u);
  // The backend read the host's load for the record.
  EXPECT_TRUE(out[0].load_average.has_value());
  EXPECT_EQ(out[0].method, TimingMethod::host_clock);
}

TEST(HostBackend, TheYardstickTakesTheMiddleOfEachRound) {
  // A Y Y A, three rounds: each implementation's i-th pass beside the yardstick's i-th, whose
  // level (its pass's median) each row keeps.
  auto backend = make_host_backend();
  std::string order;
  CompareOptions opt;
  opt.budget = Budget{1 * kMillisecond, 4 * kMillisecond, 10, 40};
  opt.yardstick = YardstickWork{"test-loop", Call{[&] { order += 'Y'; }, {}}};
  const auto out = compare(
      *backend,
      {{"A", Call{[&] { order += 'A'; }, {}}, {}}, {"B", Call{[&] { order += 'B'; }, {}}, {}}},
      opt);
  ASSERT_EQ(out.size(), 2u);
  std::string runs;
  for (char c : order) {
    if (runs.empty() || runs.back() != c) runs += c;
  }
  // "AB" (verification; the yardstick has none), then 3 rounds of "ABYYBA".
  EXPECT_EQ(runs, "ABABYBABYBABYBA");
  for (const Measurement& m : out) {
    ASSERT_TRUE(m.yardstick.has_value());
    EXPECT_EQ(m.yardstick->work, "test-loop");
    EXPECT_EQ(m.yardstick->pass_ns.size(), m.pass_sizes.size());
    for (const double level : m.yardstick->pass_ns) EXPECT_GT(level, 0);
  }
  // Without one, none.
  opt.yardstick.reset();
  EXPECT_FALSE(compare(*backend, {{"A", Call{[] {}, {}}, {}}}, opt)[0].yardstick.has_value());
}

TEST(HostBackend, ResetRunsBeforeEachCallAndOutsideTheTiming) {
  // T10: a reset restores inputs before every call and is never timed. A 2 ms reset beside a
  // call that does almost nothing: any reset time in the sample would dominate it.
  auto backend = make_host_backend();
  std::vector<char> order;
  const Call call{[&] { order.push_back('c'); },
                  [&] {
                    order.push_back('r');
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                  }};
  MeasureOptions quick;
  quick.budget = Budget{1 * kMillisecond, 1 * kMillisecond, 10, 10};
  const Measurement m = measure(*backend, call, quick);
  ASSERT_EQ(order.size() % 2, 0u);
  for (std::size_t i = 0; i < order.size(); i += 2) {
    ASSERT_EQ(order[i], 'r') << i;
    ASSERT_EQ(order[i + 1], 'c') << i;
  }
  const Summary s = summarize(m.samples, m.method, m.retries);
  EXPECT_LT(s.device_busy.p90_ns, 1e6) << "the reset's 2 ms leaked into the timing";
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
