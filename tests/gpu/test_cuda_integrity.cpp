// B11 on a real device: the canaries and kernel launches that prove CUPTI was recording, a
// persisting-L2 window that does not survive the flush, and fresh inputs with answer checks that
// leave an honest reading unchanged. Each asserts a number or an error; all skip, saying why,
// where no CUDA device is usable.
#include <cuda_runtime.h>
#include <cupti.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu_support.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter::test {
namespace {

class CudaIntegrityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUMETER_REQUIRE_GPU();
    backend_ = make_cuda_backend(CudaBackendOptions{});
    ASSERT_EQ(backend_->method(), TimingMethod::kernel_records) << backend_->reason();
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

// Issue 38: the harness's work by role, a known answer: fresh inputs launch a 10 us spin and each
// check a 30 us spin, and the ledger's device time per fresh input and per check is theirs.
TEST_F(CudaIntegrityTest, TheLedgerTimesFreshInputsAndChecksByRole) {
  SpinWork spin(20 * kMicrosecond, cudaStreamLegacy);
  SpinWork inputs(10 * kMicrosecond, cudaStreamLegacy);
  SpinWork check(30 * kMicrosecond, cudaStreamLegacy);
  Call call = spin.call();
  call.prepare = [&](std::uint64_t) { inputs.launch(); };
  call.check = [&](std::uint64_t) { check.launch(); };
  const Measurement m = measure(*backend_, call);
  const Ledger& l = m.ledger;
  ASSERT_GT(l.fresh_inputs, 0u);
  ASSERT_GT(l.checked_iterations, 0u);
  const double per_input =
      static_cast<double>(l.inputs_busy_ns) / static_cast<double>(l.fresh_inputs);
  const double per_check =
      static_cast<double>(l.check_busy_ns) / static_cast<double>(l.checked_iterations);
  EXPECT_EQ(l.inputs_records, l.fresh_inputs);
  EXPECT_EQ(l.check_records, l.checked_iterations);
  EXPECT_NEAR(per_input, 10000.0, 1500.0);
  EXPECT_NEAR(per_check, 30000.0, 1500.0);
  EXPECT_NEAR(static_cast<double>(median(busy_of(m))), 20000.0, 1500.0);
  std::printf(
      "KNOWN-ANSWER harness roles: %.0f ns per fresh input (10000), %.0f ns per check "
      "(30000), call %lld ns (20000)\n",
      per_input, per_check, static_cast<long long>(median(busy_of(m))));
}

// Issue 38: a candidate whose answer is computed while the check reads it (a 100 us spin in the
// check, a 2 us call) reads 10x faster by itself; the ledger shows the work its checks did beyond
// the reference's, and the comparison is refused.
TEST_F(CudaIntegrityTest, WorkDoneWhileTheAnswerIsCheckedIsRefused) {
  SpinWork ref_call(100 * kMicrosecond, cudaStreamLegacy);
  SpinWork tiny(2 * kMicrosecond, cudaStreamLegacy);
  SpinWork ref_check(30 * kMicrosecond, cudaStreamLegacy);
  SpinWork lazy_work(100 * kMicrosecond, cudaStreamLegacy);
  Call reference = ref_call.call();
  reference.prepare = [](std::uint64_t) {};
  reference.check = [&](std::uint64_t) { ref_check.launch(); };
  Call lazy = tiny.call();
  lazy.prepare = [](std::uint64_t) {};
  lazy.check = [&](std::uint64_t) {
    ref_check.launch();
    lazy_work.launch();  // the deferred answer, computed as it is read
  };
  const std::vector<Measurement> passes = compare(
      *backend_, {Implementation{"reference", reference}, Implementation{"lazy", lazy}}, {});
  std::vector<Result> rows;
  for (std::size_t k = 0; k < passes.size(); ++k) {
    Result r;
    r.row = {"lazy-check", {}, k == 0 ? "reference" : "lazy"};
    r.measurement = passes[k];
    r.summary = summarize(passes[k].samples, passes[k].method, 0);
    rows.push_back(r);
  }
  const Comparison c = compare_rows(rows[0], rows[1]);
  EXPECT_FALSE(c.compared()) << describe(c);
  EXPECT_EQ(c.refusal.rfind("work done while its answer was checked", 0), 0u) << c.refusal;
  std::printf("INTEGRITY lazy answer: %s\n", c.refusal.substr(0, 200).c_str());
}

// Issue 38: another process that takes a compute context on the device after the backend was made
// (a helper doing the work through CUDA IPC) refuses the next measured phase, by name.
TEST_F(CudaIntegrityTest, AProcessThatAppearsOnTheDeviceIsRefused) {
  const char* helper = GPUMETER_CUDA_HELPER;
  SpinWork spin(20 * kMicrosecond, cudaStreamLegacy);
  EXPECT_NO_THROW((void)measure(*backend_, spin.call()));
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(helper, helper, "6", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));  // its context made
  try {
    (void)measure(*backend_, spin.call());
    ADD_FAILURE() << "a new process on the device was not refused";
  } catch (const OtherProcessOnDevice& e) {
    EXPECT_TRUE(e.own_session());  // started from this process
    std::printf("INTEGRITY another process: %s\n", e.what());
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

// Issue 38: what reading the device's processes costs a measured phase (two reads each).
TEST_F(CudaIntegrityTest, ReadingTheDevicesProcessesCostsLittle) {
  constexpr int kReads = 200;
  ASSERT_TRUE(backend_->new_device_processes().has_value()) << "NVML's process list unreadable";
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < kReads; ++k) (void)backend_->new_device_processes();
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      kReads;
  std::printf("COST NVML process list: %.1f us per read, two per measured phase\n", us);
  EXPECT_LT(us, 5000.0);
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
