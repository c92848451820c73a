// A sticky CUDA error ruins the device's context for the rest of the process, so this runs
// in a process of its own (T6, P3): the failing call gives DeviceError with the CUDA
// error, and every later measurement in the process refuses, saying why.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

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

TEST(CudaStickyErrorTest, FaultingCallThenEveryLaterMeasurementRefuses) {
  GPUMETER_REQUIRE_GPU();
  const std::unique_ptr<Backend> backend = make_cuda_backend(CudaBackendOptions{});
  // Allocated before the fault: after it, every allocation in this process fails too.
  SpinWork spin(20 * kMicrosecond, cudaStreamLegacy);
  try {
    (void)measure(*backend, Call{[] { launch_fault(cudaStreamLegacy); }, {}});
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "cudaErrorIllegalAddress")) << e.what();
    EXPECT_TRUE(contains(e.what(), "sticky")) << e.what();
  }

  try {
    (void)measure(*backend, spin.call());
    FAIL() << "a measurement after a sticky error must refuse";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "earlier call")) << e.what();
    EXPECT_TRUE(contains(e.what(), "cudaErrorIllegalAddress")) << e.what();
  }

  const CudaAvailability after = cuda_availability(0);
  EXPECT_FALSE(after.usable);
  EXPECT_TRUE(contains(after.reason, "sticky")) << after.reason;
  EXPECT_THROW((void)make_cuda_backend(CudaBackendOptions{}), DeviceError);
  EXPECT_THROW((void)make_cuda_events_backend(CudaBackendOptions{}, "test"), DeviceError);
}

}  // namespace
}  // namespace gpumeter::test
