// CUPTI that cannot be loaded (T11). ctest runs this process with GPUMETER_CUPTI_LIBRARY
// pointing at a file that does not exist, so libcupti fails to load exactly as on a machine
// without it; the CUPTI session is per process, hence a process of its own.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpu_support.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"

namespace gpumeter::test {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class NoCuptiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* lib = std::getenv(kCuptiLibraryEnv);
    if (lib == nullptr || std::string(lib).find("nonexistent") == std::string::npos) {
      GTEST_SKIP() << "run through ctest, which points " << kCuptiLibraryEnv
                   << " at a missing file";
    }
    GPUMETER_REQUIRE_GPU();
    unsetenv(kAllowEventsFallbackEnv);
  }
};

TEST_F(NoCuptiTest, WithoutPermissionItIsCuptiUnavailableNamingCauseAndWayOut) {
  try {
    (void)make_cuda_backend(CudaBackendOptions{});
    FAIL() << "expected CuptiUnavailable";
  } catch (const CuptiUnavailable& e) {
    EXPECT_TRUE(contains(e.what(), "libcupti cannot be loaded")) << e.what();
    EXPECT_TRUE(contains(e.what(), "nonexistent")) << e.what();
    EXPECT_TRUE(contains(e.what(), kAllowEventsFallbackEnv)) << e.what();
  }
  const CuptiStatus s = cupti_status();
  EXPECT_FALSE(s.usable);
  EXPECT_TRUE(contains(s.cause, "libcupti cannot be loaded")) << s.cause;
}

TEST_F(NoCuptiTest, AllowedByOptionItFallsBackToEventsWithTheReason) {
  CudaBackendOptions o;
  o.allow_events_fallback = true;
  const std::unique_ptr<Backend> b = make_cuda_backend(o);
  EXPECT_EQ(b->method(), TimingMethod::device_events);
  EXPECT_TRUE(contains(b->reason(), "CUPTI unavailable")) << b->reason();
  EXPECT_TRUE(contains(b->reason(), "libcupti cannot be loaded")) << b->reason();
  EXPECT_TRUE(contains(b->reason(), "allow_events_fallback")) << b->reason();

  SpinWork spin(30 * kMicrosecond, cudaStreamLegacy);
  const Measurement m = measure(*b, spin.call());
  EXPECT_EQ(m.method, TimingMethod::device_events);
  EXPECT_EQ(m.reason, b->reason());
  for (const Sample& s : m.samples) {
    EXPECT_EQ(s.device_busy_ns, s.latency_ns);
    EXPECT_FALSE(s.n_kernels.has_value());
    EXPECT_GE(s.device_busy_ns + 1000, 30 * kMicrosecond);
  }
}

TEST_F(NoCuptiTest, AllowedByEnvironmentItFallsBackAndSaysSo) {
  setenv(kAllowEventsFallbackEnv, "1", 1);
  const std::unique_ptr<Backend> b = make_cuda_backend(CudaBackendOptions{});
  unsetenv(kAllowEventsFallbackEnv);
  EXPECT_EQ(b->method(), TimingMethod::device_events);
  EXPECT_TRUE(contains(b->reason(), std::string(kAllowEventsFallbackEnv) + "=1")) << b->reason();
}

}  // namespace
}  // namespace gpumeter::test
