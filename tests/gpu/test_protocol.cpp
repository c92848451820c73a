// Known answers for the evaluation protocol on a real device (P6, P7, B4) and the cost of
// watching: a null test that passes and one that fails, the memory of a case that holds 1 GiB,
// clock readings on every sample, and CUPTI's cost per launch. All skip, saying why, where no
// CUDA device is usable.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "gpu_support.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/runner.hpp"

namespace gpumeter::test {
namespace {

class ProtocolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUMETER_REQUIRE_GPU();
    backend_ = make_cuda_backend(CudaBackendOptions{});
    ASSERT_EQ(backend_->method(), TimingMethod::kernel_records) << backend_->reason();
  }

  Record run(const Case& c) {
    RunOptions options;
    options.budget = Budget{10 * kMillisecond, 40 * kMillisecond, 10, 200};
    return run_cases(*backend_, {c}, options);
  }

  std::unique_ptr<Backend> backend_;
};

// P6: a 20 us spin scaled 4x takes 4x the time; a call that ignores its scale fails, and its row
// is compared with nothing.
TEST_F(ProtocolTest, NullTestPassesForScaledWorkAndFailsForWorkThatIgnoresItsScale) {
  DeviceMemory stamps(2 * sizeof(std::uint64_t));
  auto* s = stamps.as<std::uint64_t>();
  const std::uint64_t base = 20'000;
  Case c;
  c.name = "null-test";
  c.implementations.emplace_back(
      "scales", Call{[=] { launch_spin(base, s, cudaStreamLegacy); }, {}}, std::function<void()>{},
      [=](int k) { launch_spin(base * static_cast<std::uint64_t>(k), s, cudaStreamLegacy); });
  c.implementations.emplace_back(
      "ignores-scale", Call{[=] { launch_spin(base, s, cudaStreamLegacy); }, {}},
      std::function<void()>{}, [=](int) { launch_spin(base, s, cudaStreamLegacy); });
  const Record rec = run(c);
  ASSERT_EQ(rec.results.size(), 2u);
  const std::optional<NullTestOutcome>& good = rec.results[0].null_test_outcome;
  const std::optional<NullTestOutcome>& bad = rec.results[1].null_test_outcome;
  ASSERT_TRUE(good && good->verdict && bad && bad->verdict);
  EXPECT_FALSE(good->failed()) << describe(*good);
  // Not exactly 4: the spin's device_busy holds about 0.7 us beside its 20 us of spinning (the
  // launch into the kernel and its stamps), which does not scale: (80.7 / 20.7) = 3.9.
  EXPECT_NEAR(good->verdict->observed_ratio, 4.0, 0.15);
  EXPECT_TRUE(bad->failed()) << describe(*bad);
  EXPECT_NEAR(bad->verdict->observed_ratio, 1.0, 0.05);
  ASSERT_EQ(rec.comparisons.size(), 1u);
  EXPECT_FALSE(rec.comparisons[0].compared());
  std::printf("KNOWN-ANSWER null test, 20 us spin: scaled %s; ignoring its scale %s\n",
              describe(*good).c_str(), describe(*bad).c_str());
}

// P7: a case that holds 1 GiB reads 1 GiB of workload, within NVML's granularity (2 MiB).
TEST_F(ProtocolTest, ACaseHolding1GiBReadsItsGigabyte) {
  constexpr long long kGiB = 1LL << 30;
  DeviceMemory held(static_cast<std::size_t>(kGiB));
  auto* s = held.as<std::uint64_t>();
  Case c;
  c.name = "holds-1GiB";
  c.implementations.emplace_back("spin",
                                 Call{[=] { launch_spin(5'000, s, cudaStreamLegacy); }, {}});
  const Record rec = run(c);
  ASSERT_EQ(rec.results.size(), 1u);
  const MemoryUse& m = rec.results[0].memory;
  ASSERT_TRUE(m.gpu_context_floor_bytes.has_value())
      << "NVML did not list this process (pid namespace?)";
  ASSERT_TRUE(m.gpu_after_case_bytes.has_value());
  const long long workload = *m.gpu_workload_bytes();
  EXPECT_NEAR(static_cast<double>(workload), static_cast<double>(kGiB), 2.0 * (1 << 20));
  ASSERT_TRUE(m.host_peak_rss_bytes.has_value());
  std::printf(
      "KNOWN-ANSWER memory, 1 GiB held: context floor %lld B, after the case %lld B, workload "
      "%lld B (1 GiB = %lld B, difference %lld B), host peak RSS %lld B\n",
      *m.gpu_context_floor_bytes, *m.gpu_after_case_bytes, workload, kGiB, workload - kGiB,
      *m.host_peak_rss_bytes);
}

// B4: every measured sample carries the SM clock read around it; the summary counts the flags.
TEST_F(ProtocolTest, EverySampleHasItsClock) {
  DeviceMemory stamps(2 * sizeof(std::uint64_t));
  auto* s = stamps.as<std::uint64_t>();
  const Measurement m =
      measure(*backend_, Call{[=] { launch_spin(20'000, s, cudaStreamLegacy); }, {}});
  ASSERT_FALSE(m.samples.empty());
  for (const Sample& sample : m.samples) {
    ASSERT_TRUE(sample.clock.has_value());
    EXPECT_GT(sample.clock->sm_mhz, 0);
  }
  const Summary sum = summarize(m.samples, m.method, 0);
  ASSERT_TRUE(sum.clock.has_value());
  const ClockSummary& c = *sum.clock;
  EXPECT_EQ(c.samples, m.samples.size());
  EXPECT_LE(c.min_mhz, c.median_mhz);
  EXPECT_LE(c.median_mhz, c.max_mhz);
  // The flags follow the rule: a sample is flagged for its clock or for a flagging reason.
  std::size_t flagged = 0;
  for (const Sample& sample : m.samples) flagged += clock_flagged(*sample.clock, c.max_mhz);
  EXPECT_EQ(c.flagged, flagged);
  std::printf(
      "KNOWN-ANSWER clocks, 20 us spin: %zu samples, SM clock median %.1f [%d, %d] MHz, %zu "
      "flagged (%zu below %.0f%% of %d MHz), SW power cap around %zu, HW slowdown %zu, SW "
      "thermal %zu, HW thermal %zu, HW power brake %zu\n",
      m.samples.size(), c.median_mhz, c.min_mhz, c.max_mhz, c.flagged, c.below_reference,
      100 * kClockFlagFraction, c.max_mhz, c.sw_power_cap, c.hw_slowdown, c.sw_thermal,
      c.hw_thermal, c.hw_power_brake);
}

// The cost of watching: measured per launch, positive and a few microseconds at most.
TEST_F(ProtocolTest, LaunchCostIsMeasured) {
  const std::optional<Nanos> cost = backend_->launch_cost();
  ASSERT_TRUE(cost.has_value());
  EXPECT_GT(*cost, 0);
  EXPECT_LT(*cost, 20'000);
  std::printf("KNOWN-ANSWER launch cost: %lld ns per launch\n", static_cast<long long>(*cost));
}

}  // namespace
}  // namespace gpumeter::test
