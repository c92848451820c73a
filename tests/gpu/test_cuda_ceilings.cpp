// Known answers of the measured ceilings (T8) on a real device: timed by the method that times
// the rows, the copy ceiling the best of the copies a user would write, and a row of the
// ceiling's own work at or below 100% of it (or marked above it). Relations, not a board's
// figures: each skips, saying why, where no CUDA device is usable.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <cstddef>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "copy_kernel.hpp"  // the ceiling's own copy kernel (src/cuda)
#include "gpu_support.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/runner.hpp"

namespace gpumeter::test {
namespace {

// The ceilings' copy size: a row "on the same buffers" moves as much.
constexpr std::size_t kCopyBytes = std::size_t{512} << 20;
constexpr double kCopyTraffic = 2.0 * static_cast<double>(kCopyBytes);  // read + written

class CeilingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUMETER_REQUIRE_GPU();
    backend_ = make_cuda_backend(CudaBackendOptions{});
    ASSERT_EQ(backend_->method(), TimingMethod::kernel_records) << backend_->reason();
  }

  std::unique_ptr<Backend> backend_;
};

const CeilingRun& run_starting(const Ceilings& c, std::string_view work) {
  for (const CeilingRun& r : c.runs) {
    if (r.work.rfind(work, 0) == 0) return r;
  }
  throw std::runtime_error("no ceiling run of " + std::string(work));
}

// The relative spread of a run's samples, (p90 - p10) / median: how far its own readings
// move, the tolerance of a comparison with it.
double spread_of(const CeilingRun& r) {
  const std::vector<double> v(r.samples_ns.begin(), r.samples_ns.end());
  return (quantile(v, 0.9) - quantile(v, 0.1)) / quantile(v, 0.5);
}

// The run that gives the bandwidth ceiling.
const CeilingRun& copy_ceiling_run(const Ceilings& c) {
  const CeilingRun* best = nullptr;
  for (const CeilingRun& r : c.runs) {
    if (r.kind != CeilingKind::bytes_per_s) continue;
    if (best == nullptr || ceiling_rate(r) > ceiling_rate(*best)) best = &r;
  }
  if (best == nullptr) throw std::runtime_error("no bandwidth ceiling run");
  return *best;
}

TEST_F(CeilingsTest, TimedLikeTheRowsAndTheCopyCeilingIsTheBestCopy) {
  const Ceilings c = measure_ceilings(*backend_);
  ASSERT_EQ(c.method, TimingMethod::kernel_records);
  ASSERT_EQ(c.runs.size(), 3u);
  for (const CeilingRun& r : c.runs) {
    // Measured as a row is: at least the rows' least number of measured iterations.
    EXPECT_GE(r.samples_ns.size(), kMeasureBudget.min_iterations) << r.work;
  }
  const CeilingRun& memcpy_run = run_starting(c, "cudaMemcpyAsync");
  const CeilingRun& kernel_run = run_starting(c, "float4 grid-stride copy kernel");
  const CeilingRun& gemm = run_starting(c, "cublasGemmEx");
  EXPECT_EQ(memcpy_run.kind, CeilingKind::bytes_per_s);
  EXPECT_EQ(kernel_run.kind, CeilingKind::bytes_per_s);
  EXPECT_EQ(gemm.kind, CeilingKind::flops_per_s);
  EXPECT_DOUBLE_EQ(memcpy_run.per_call, kCopyTraffic);
  EXPECT_DOUBLE_EQ(kernel_run.per_call, kCopyTraffic);

  ASSERT_TRUE(c.bytes_per_s && c.flops_per_s);
  const double memcpy_rate = ceiling_rate(memcpy_run);
  const double kernel_rate = ceiling_rate(kernel_run);
  // The copy ceiling is the faster of the two copies, so never below the memcpy's own
  // device-time bandwidth.
  EXPECT_DOUBLE_EQ(*c.bytes_per_s, std::max(memcpy_rate, kernel_rate));
  EXPECT_GE(*c.bytes_per_s, memcpy_rate);
  EXPECT_DOUBLE_EQ(*c.flops_per_s, ceiling_rate(gemm));

  // Once per process, device and way of timing.
  const Ceilings again = measure_ceilings(*backend_);
  EXPECT_EQ(again.bytes_per_s, c.bytes_per_s);
  EXPECT_EQ(again.flops_per_s, c.flops_per_s);
  std::printf(
      "KNOWN-ANSWER ceilings (cupti device_busy, fastest sample): copy %.2f TB/s (read + write; "
      "memcpy %.2f, float4 kernel %.2f), bf16 GEMM %.0f TFLOP/s\n",
      *c.bytes_per_s / 1e12, memcpy_rate / 1e12, kernel_rate / 1e12, *c.flops_per_s / 1e12);
}

// time-my-kernel's float4 kernel (y = 2x, 1024 blocks of 256 threads), measured by gpumeter on
// buffers of the ceiling's size, must not beat the copy ceiling by more than the ceiling's own
// spread: the kernel read 105% of the event-timed ceiling this replaces.
TEST_F(CeilingsTest, TimeMyKernelsFloat4KernelIsNotAboveTheCopyCeiling) {
  const Ceilings c = measure_ceilings(*backend_);
  ASSERT_TRUE(c.bytes_per_s);
  DeviceMemory x(kCopyBytes);
  DeviceMemory y(kCopyBytes);
  cuda_ok(cudaMemset(x.get(), 0x3f, kCopyBytes), "cudaMemset");
  const Measurement m = measure(
      *backend_,
      Call{[&] { launch_scale_float4(x.get(), y.get(), kCopyBytes / 16, cudaStreamLegacy); }, {}});
  const double kernel_bw =
      kCopyTraffic / (static_cast<double>(median(busy_of(m))) * 1e-9);  // as a row's TB/s
  const CeilingRun& best = copy_ceiling_run(c);
  const double spread = spread_of(best);
  EXPECT_LE(kernel_bw, *c.bytes_per_s * (1.0 + spread))
      << "time-my-kernel's float4 kernel read " << kernel_bw / 1e12 << " TB/s, the copy ceiling "
      << *c.bytes_per_s / 1e12 << " TB/s (" << best.work << ", spread " << 100 * spread << "%)";
  std::printf(
      "KNOWN-ANSWER time-my-kernel float4 kernel on 512 MiB: %.2f TB/s = %.1f%% of the copy "
      "ceiling %.2f TB/s (%s; its spread %.2f%%)\n",
      kernel_bw / 1e12, 100.0 * kernel_bw / *c.bytes_per_s, *c.bytes_per_s / 1e12,
      best.work.c_str(), 100.0 * spread);
}

// A row of the ceiling's own copy kernel, run as any case is and read back from its record,
// reads 100% or less (its median against the ceiling's fastest sample), or is marked above it.
TEST_F(CeilingsTest, ARowOfTheCeilingsOwnKernelReadsAtMostOneHundredPercentOrIsMarked) {
  const Ceilings c = measure_ceilings(*backend_);
  ASSERT_TRUE(c.bytes_per_s);
  auto src = std::make_shared<DeviceMemory>(kCopyBytes);
  auto dst = std::make_shared<DeviceMemory>(kCopyBytes);
  cuda_ok(cudaMemset(src->get(), 0x5a, kCopyBytes), "cudaMemset");
  int blocks = 0;
  cuda_ok(cuda::copy_grid(0, &blocks), "copy_grid");
  Case copy;
  copy.name = "ceiling_copy_kernel";
  copy.workload.bytes = kCopyTraffic;
  copy.implementations.push_back(
      Implementation("float4", Call{[src, dst, blocks] {
                                      cuda_ok(cuda::copy_float4(src->get(), dst->get(), kCopyBytes,
                                                                blocks, cudaStreamLegacy),
                                              "copy_float4");
                                    },
                                    {}}));
  RunOptions options;
  options.ceilings = c;
  Record rec = run_cases(*backend_, {copy}, options);
  rec.run_id = new_run_id();
  ASSERT_TRUE(rec.failures.empty()) << rec.failures.front().message;
  const Record back = parse_record(serialize(rec), "(the run)");
  ASSERT_EQ(back.results.size(), 1u);
  const Summary& s = back.results.front().summary;
  ASSERT_TRUE(s.pct_of_peak_bandwidth.has_value());
  ASSERT_TRUE(s.above_bandwidth_ceiling.has_value());
  EXPECT_EQ(*s.above_bandwidth_ceiling, *s.pct_of_peak_bandwidth > 100.0);
  const std::string table = render_markdown({back});
  if (*s.pct_of_peak_bandwidth > 100.0) {
    EXPECT_NE(table.find("(above the measured ceiling)"), std::string::npos) << table;
  } else {
    EXPECT_EQ(table.find("(above the measured ceiling)"), std::string::npos) << table;
  }
  // The same kernel on the same buffers: its median can pass the ceiling's fastest sample by
  // no more than the ceiling run's own spread.
  EXPECT_LE(*s.pct_of_peak_bandwidth, 100.0 * (1.0 + spread_of(copy_ceiling_run(c))));
  std::printf("KNOWN-ANSWER the ceiling's copy kernel as a row: %.1f%% of the copy ceiling%s\n",
              *s.pct_of_peak_bandwidth,
              *s.above_bandwidth_ceiling ? " (above the measured ceiling)" : "");
}

// The events fallback times its ceilings with events too, and a ceiling timed one way divides
// no row timed another.
TEST_F(CeilingsTest, TheEventsFallbackTimesItsOwnCeilings) {
  CudaBackendOptions options;
  options.allow_events_fallback = true;
  const std::unique_ptr<Backend> events =
      make_cuda_events_backend(options, "the events ceilings' known answer");
  const Ceilings c = measure_ceilings(*events);
  ASSERT_EQ(c.method, TimingMethod::device_events);
  ASSERT_TRUE(c.bytes_per_s && c.flops_per_s);
  EXPECT_FALSE(ceiling_applies(c, TimingMethod::kernel_records));
  const Summary cupti_row =
      summarize({Sample(250'000, 250'000, 1, 0)}, TimingMethod::kernel_records, 0,
                Workload{std::nullopt, kCopyTraffic}, c);
  EXPECT_FALSE(cupti_row.pct_of_peak_bandwidth.has_value());
  std::printf(
      "KNOWN-ANSWER ceilings (cuda-events, fastest sample): copy %.2f TB/s, bf16 GEMM "
      "%.0f TFLOP/s\n",
      *c.bytes_per_s / 1e12, *c.flops_per_s / 1e12);
}

}  // namespace
}  // namespace gpumeter::test
