// B11 on a real device: the canaries and kernel launches that prove CUPTI was recording, a
// persisting-L2 window that does not survive the flush, and fresh inputs with answer checks that
// leave an honest reading unchanged. Each asserts a number or an error; all skip, saying why,
// where no CUDA device is usable.
#include <cuda_runtime.h>
#include <cupti.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "gpu_support.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::test {
namespace {

class CudaIntegrityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUMETER_REQUIRE_GPU();
    backend_ = make_cuda_backend(CudaBackendOptions{});
    ASSERT_EQ(backend_->method(), TimingMethod::cupti) << backend_->reason();
  }
  std::unique_ptr<Backend> backend_;
};

// A call that switches CUPTI's kernel records off and leaves them off (cuptiActivityDisable, as a
// candidate may call it): the canaries after it leave no record.
TEST_F(CudaIntegrityTest, ACallThatSwitchesKernelRecordsOffIsCollectionStopped) {
  SpinWork spin(20 * kMicrosecond, cudaStreamLegacy);
  const Call call{[&] {
    spin.launch();
    (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }};
  EXPECT_THROW((void)measure(*backend_, call), CollectionStopped);
  // The next measurement switches its records on again and reads right.
  const Measurement m = measure(*backend_, spin.call());
  EXPECT_NEAR(static_cast<double>(median(busy_of(m))),
              static_cast<double>(median(spin.last_durations(m.samples.size()))), 1000.0);
}

// The heavy kernel launched while kernel records are off, a tiny one after they are on again:
// the canaries all come back, but the heavy launch left no kernel record.
TEST_F(CudaIntegrityTest, AKernelHiddenFromTheRecordsIsCollectionStopped) {
  SpinWork heavy(100 * kMicrosecond, cudaStreamLegacy);
  const Call call{[&] {
    (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    heavy.launch();
    (void)cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    launch_empty(cudaStreamLegacy);
  }};
  try {
    (void)measure(*backend_, call);
    ADD_FAILURE() << "a kernel hidden from the records was timed";
  } catch (const CollectionStopped& e) {
    std::printf("INTEGRITY hidden kernel: %s\n", e.what());
  }
}

// Everything switched off around the heavy launch (its kernel, API and correlation records), on
// again for a tiny kernel after it: no canary is missing and no launch record is orphaned, but the
// tiny kernel waited for the heavy one while nothing recorded ran.
TEST_F(CudaIntegrityTest, WorkHiddenFromEveryRecordIsUnaccountedWork) {
  SpinWork heavy(200 * kMicrosecond, cudaStreamLegacy);
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                      CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
                                      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  const Call call{[&] {
    for (CUpti_ActivityKind k : kinds) (void)cuptiActivityDisable(k);
    heavy.launch();
    for (CUpti_ActivityKind k : kinds) (void)cuptiActivityEnable(k);
    launch_empty(cudaStreamLegacy);
  }};
  try {
    const Measurement m = measure(*backend_, call);
    ADD_FAILURE() << "work hidden from every record was timed: device_busy median "
                  << median(busy_of(m)) << " ns";
  } catch (const UnaccountedWork& e) {
    std::printf("INTEGRITY work hidden from every record: %s\n", e.what());
  } catch (const CollectionStopped& e) {
    std::printf("INTEGRITY work hidden from every record (collection stopped): %s\n", e.what());
  }
}

// An honest call's ledger: every canary seen, every record an iteration's or the harness's.
TEST_F(CudaIntegrityTest, AnHonestCallsLedgerIsClosed) {
  SpinWork spin(20 * kMicrosecond, cudaStreamLegacy);
  const Measurement m = measure(*backend_, spin.call());
  const Ledger& l = m.ledger;
  EXPECT_GT(l.canaries_launched, l.iterations);  // one per preparation and one per phase
  EXPECT_EQ(l.canaries_seen, l.canaries_launched);
  EXPECT_EQ(l.unaccounted_records, 0u);
  EXPECT_EQ(l.iteration_records, l.iterations);  // one spin kernel per iteration
  EXPECT_GE(l.harness_records, l.canaries_launched + l.iterations);  // canaries and flushes
  std::printf(
      "INTEGRITY ledger: %zu iterations, %zu iteration records, %zu harness records, "
      "%zu/%zu canaries\n",
      l.iterations, l.iteration_records, l.harness_records, l.canaries_seen, l.canaries_launched);
}

// Fresh inputs (a device fill of 64 MiB under the prepare label) and a check after every call
// leave a known answer where it was: the spin reads its own stamps within 1 us.
TEST_F(CudaIntegrityTest, FreshInputsAndChecksLeaveAKnownAnswerUnchanged) {
  SpinWork spin(20 * kMicrosecond, cudaStreamLegacy);
  DeviceMemory inputs(64u << 20);
  std::size_t checks = 0;
  Call call = spin.call();
  call.prepare = [&](std::uint64_t seed) {
    cuda_ok(cudaMemsetAsync(inputs.get(), static_cast<int>(seed & 0xff), inputs.bytes()),
            "fresh inputs");
  };
  call.check = [&](std::uint64_t) { ++checks; };
  const Measurement m = measure(*backend_, call);
  const Nanos busy = median(busy_of(m));
  const Nanos stamps = median(spin.last_durations(m.samples.size()));
  EXPECT_NEAR(static_cast<double>(busy), static_cast<double>(stamps), 1000.0);
  EXPECT_EQ(m.ledger.fresh_inputs, m.ledger.iterations);
  EXPECT_EQ(m.ledger.checked_iterations, checks);
  EXPECT_GE(checks, 3u);
  for (const Sample& s : m.samples) EXPECT_EQ(s.uncounted_copy_ns, 0);  // the fill is the harness's
  std::printf(
      "KNOWN-ANSWER spin 20000 ns with fresh inputs and checks: device_busy median %lld "
      "ns, own stamps %lld ns, %zu of %zu iterations checked\n",
      static_cast<long long>(busy), static_cast<long long>(stamps), checks, m.ledger.iterations);
}

// A call that sets aside persisting L2 and marks its input persisting (an access-policy window)
// reads the same as one that does not: the flush puts the set-aside back to 0 and resets the
// lines, so no input survives in L2 from one call to the next.
TEST_F(CudaIntegrityTest, APersistingL2WindowDoesNotSurviveTheFlush) {
  int persisting_max = 0;
  cuda_ok(cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, 0), "attr");
  if (persisting_max == 0) GTEST_SKIP() << "this device has no persisting L2";
  const std::size_t n_float4 = (16u << 20) / 16;  // 16 MiB in, 16 MiB out: fits the L2
  DeviceMemory in(n_float4 * 16);
  DeviceMemory out(n_float4 * 16);
  cuda_ok(cudaMemset(in.get(), 1, in.bytes()), "cudaMemset");
  OwnedStream plain_stream;
  OwnedStream window_stream;
  const auto copy_on = [&](cudaStream_t s) { launch_copy(in.get(), out.get(), n_float4, 528, s); };
  const Measurement plain = measure(*backend_, Call{[&] { copy_on(plain_stream.get()); }});
  const Call persisting{[&] {
    (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
                             static_cast<std::size_t>(persisting_max));
    cudaStreamAttrValue v{};
    v.accessPolicyWindow.base_ptr = in.get();
    v.accessPolicyWindow.num_bytes = std::min<std::size_t>(in.bytes(), persisting_max);
    v.accessPolicyWindow.hitRatio = 1.0f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    (void)cudaStreamSetAttribute(window_stream.get(), cudaStreamAttributeAccessPolicyWindow, &v);
    copy_on(window_stream.get());
  }};
  const Measurement windowed = measure(*backend_, persisting);
  const double p = static_cast<double>(median(busy_of(plain)));
  const double w = static_cast<double>(median(busy_of(windowed)));
  std::printf(
      "INTEGRITY persisting L2: plain %.0f ns, with a persisting window %.0f ns (%+.1f%%)\n", p, w,
      100.0 * (w / p - 1));
  EXPECT_GT(w, 0.95 * p) << "the persisting window made the copy faster: inputs survived the flush";
  // The last call set a set-aside after the last flush: put it back for the tests after this one.
  cuda_ok(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0), "limit");
  cuda_ok(cudaCtxResetPersistingL2Cache(), "reset");
}

}  // namespace
}  // namespace gpumeter::test
