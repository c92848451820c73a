#include "attribute.hpp"

#include <gtest/gtest.h>

#include "gpumeter/errors.hpp"
#include "trace_builder.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using testing::TraceBuilder;

TEST(UnionLength, OverlappingIntervalsCountOnce) {
  EXPECT_EQ(union_length({{0, 100}, {50, 150}}), 150);
  EXPECT_EQ(union_length({{50, 150}, {0, 100}}), 150);  // order does not matter
  EXPECT_EQ(union_length({{0, 100}, {10, 20}}), 100);   // nested
}

TEST(UnionLength, GapsAreNotCounted) {
  EXPECT_EQ(union_length({{0, 10}, {30, 50}}), 30);
  EXPECT_EQ(union_length({{0, 10}, {10, 20}}), 20);  // touching
  EXPECT_EQ(union_length({}), 0);
}

TEST(Attribute, TwoOverlappingKernelsCountOnce) {
  const Trace t = TraceBuilder().launch(0, 1000, 2000).launch(0, 1500, 2500).build();
  const auto s = attribute(t, 1);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].device_busy_ns, 1500);  // not 2000, the sum of SM time
  EXPECT_EQ(s[0].latency_ns, 1500);
  EXPECT_EQ(s[0].n_kernels, 2);
}

TEST(Attribute, GapBetweenKernelsNotCountedInBusyButInLatency) {
  const Trace t = TraceBuilder().launch(0, 0, 10).launch(0, 100, 130).launch(0, 200, 205).build();
  const auto s = attribute(t, 1);
  EXPECT_EQ(s[0].device_busy_ns, 45);
  EXPECT_EQ(s[0].latency_ns, 205);
  EXPECT_EQ(s[0].n_kernels, 3);
}

TEST(Attribute, PrepareWorkIsExcluded) {
  // The L2 flush runs under the PREPARE id, right before the call; it must not be timed.
  const Trace t = TraceBuilder()
                      .launch(kPrepareId, 0, 40000, ActivityKind::kernel, "l2_flush")
                      .launch(0, 50000, 51000)
                      .launch(kPrepareId, 60000, 100000, ActivityKind::kernel, "l2_flush")
                      .launch(1, 110000, 112000)
                      .build();
  const auto s = attribute(t, 2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].device_busy_ns, 1000);
  EXPECT_EQ(s[0].n_kernels, 1);
  EXPECT_EQ(s[1].device_busy_ns, 2000);
}

TEST(Attribute, ByIdentityNotByTime) {
  // Iteration 1's kernel ran before iteration 0's (another stream): still attributed by id.
  const Trace t = TraceBuilder().launch(1, 0, 5).launch(0, 100, 103).build();
  const auto s = attribute(t, 2);
  EXPECT_EQ(s[0].device_busy_ns, 3);
  EXPECT_EQ(s[1].device_busy_ns, 5);
}

TEST(Attribute, KernelCountMayVaryBetweenIterations) {
  const Trace t = TraceBuilder()
                      .launch(0, 0, 10)
                      .launch(1, 100, 110)
                      .launch(1, 120, 130)
                      .launch(1, 140, 150)
                      .launch(2, 200, 260)
                      .launch(2, 300, 310)
                      .build();
  const auto s = attribute(t, 3);
  EXPECT_EQ(s[0].n_kernels, 1);
  EXPECT_EQ(s[1].n_kernels, 3);
  EXPECT_EQ(s[1].device_busy_ns, 30);
  EXPECT_EQ(s[1].latency_ns, 50);
  EXPECT_EQ(s[2].n_kernels, 2);
  EXPECT_EQ(s[2].device_busy_ns, 70);
}

TEST(Attribute, GraphLaunchKernelsBelongToTheLaunchingIteration) {
  const Trace t = TraceBuilder()
                      .graph(0, {{0, 10}, {10, 20}, {20, 30}, {30, 40}, {45, 50}})
                      .graph(1, {{100, 110}, {110, 120}, {120, 130}, {130, 140}, {145, 150}})
                      .build();
  const auto s = attribute(t, 2);
  EXPECT_EQ(s[0].n_kernels, 5);
  EXPECT_EQ(s[0].device_busy_ns, 45);
  EXPECT_EQ(s[1].n_kernels, 5);
}

TEST(Attribute, CopiesUncountedByDefault) {
  const Trace t = TraceBuilder()
                      .launch(0, 0, 100)
                      .launch(0, 100, 400, ActivityKind::memcpy, "copy")
                      .launch(0, 400, 450, ActivityKind::memset, "fill")
                      .build();
  const auto s = attribute(t, 1);
  EXPECT_EQ(s[0].device_busy_ns, 100);
  EXPECT_EQ(s[0].latency_ns, 100);
  EXPECT_EQ(s[0].uncounted_copy_ns, 350);
  EXPECT_EQ(s[0].n_kernels, 1);
}

TEST(Attribute, CopiesCountedWithCountCopies) {
  const Trace t =
      TraceBuilder().launch(0, 0, 100).launch(0, 100, 400, ActivityKind::memcpy, "copy").build();
  const auto s = attribute(t, 1, AttributionOptions{.count_copies = true});
  EXPECT_EQ(s[0].device_busy_ns, 400);
  EXPECT_EQ(s[0].latency_ns, 400);
  EXPECT_EQ(s[0].uncounted_copy_ns, 0);
  EXPECT_EQ(s[0].n_kernels, 1);  // a copy is not a kernel
}

TEST(Attribute, RecordsLostWinsAndGivesNoSample) {
  // With records dropped, a missing kernel is the loss's consequence, not the call's fault.
  const Trace t = TraceBuilder().launch(0, 0, 10).dropped(3).build();
  try {
    (void)attribute(t, 2);
    FAIL() << "no error";
  } catch (const RecordsLost& e) {
    EXPECT_EQ(e.dropped(), 3u);
  }
}

TEST(Attribute, UntaggedKernelIsOffThreadLaunch) {
  const Trace t = TraceBuilder().launch(0, 0, 10).untagged(5, 8, "worker_kernel").build();
  try {
    (void)attribute(t, 1);
    FAIL() << "no error";
  } catch (const OffThreadLaunch& e) {
    EXPECT_EQ(e.n_orphans(), 1u);
    EXPECT_NE(std::string(e.what()).find("worker_kernel"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("calling thread"), std::string::npos);
  }
}

TEST(Attribute, IdOutsideThePhaseIsOffThreadLaunch) {
  // An id that maps to no iteration of this phase (e.g. a stale one) is not silently dropped.
  const Trace t = TraceBuilder().launch(0, 0, 10).launch(7, 20, 30).build();
  EXPECT_THROW((void)attribute(t, 1), OffThreadLaunch);
}

TEST(Attribute, IterationWithoutKernelIsAttributionError) {
  const Trace t = TraceBuilder().launch(0, 0, 10).launch(2, 20, 30).build();
  try {
    (void)attribute(t, 3);
    FAIL() << "no error";
  } catch (const AttributionError& e) {
    EXPECT_EQ(e.iteration(), 1u);
    EXPECT_NE(std::string(e.what()).find("did not run on the device"), std::string::npos);
  }
}

TEST(Attribute, CopyOnlyIterationSaysToCountCopies) {
  const Trace t = TraceBuilder().launch(0, 0, 10, ActivityKind::memcpy).build();
  try {
    (void)attribute(t, 1);
    FAIL() << "no error";
  } catch (const AttributionError& e) {
    EXPECT_NE(std::string(e.what()).find("count_copies"), std::string::npos);
  }
  EXPECT_EQ(attribute(t, 1, {.count_copies = true})[0].device_busy_ns, 10);
}

TEST(Attribute, UnprovenDropCounterIsNamedInTheError) {
  const Trace t = TraceBuilder().launch(0, 0, 10).dropped(std::nullopt).build();
  try {
    (void)attribute(t, 2);
    FAIL() << "no error";
  } catch (const AttributionError& e) {
    EXPECT_NE(std::string(e.what()).find("not proven live"), std::string::npos);
  }
  // A clean trace with an unproven counter still attributes; the caller records it.
  EXPECT_EQ(attribute(t, 1)[0].device_busy_ns, 10);
}

TEST(Attribute, OrphanCheckedBeforeEmptyIteration) {
  // Both failures present: the orphan explains the empty iteration, so it is reported.
  const Trace t = TraceBuilder().untagged(0, 10).build();
  EXPECT_THROW((void)attribute(t, 1), OffThreadLaunch);
}

TEST(Attribute, RegionBackendsHaveNoKernelCount) {
  Trace t = TraceBuilder().launch(0, 0, 10, ActivityKind::region).build();
  t.counts_kernels = false;
  const auto s = attribute(t, 1);
  EXPECT_EQ(s[0].device_busy_ns, 10);
  EXPECT_EQ(s[0].latency_ns, 10);
  EXPECT_FALSE(s[0].n_kernels.has_value());
}

TEST(Attribute, CorruptTimestampsFailClosed) {
  const Trace t = TraceBuilder().launch(0, 100, 50).build();
  EXPECT_THROW((void)attribute(t, 1), AttributionError);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

TEST(Attribute, WorkOnAnotherDeviceIsRefused) {
  Trace t = testing::TraceBuilder()
                .launch(kPrepareId, 0, 10, ActivityKind::kernel, "flush")
                .launch(0, 20, 30, ActivityKind::kernel, "on_measured")
                .launch(1, 40, 50, ActivityKind::kernel, "on_other")
                .build();
  t.activities[0].device = 3;  // preparation may touch any device; it is not timed
  t.activities[1].device = 1;
  t.activities[2].device = 0;
  t.measured_device = 1;
  try {
    (void)attribute(t, 2);
    FAIL() << "no error";
  } catch (const WrongDevice& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'on_other' ran on device 0"), std::string::npos) << what;
    EXPECT_NE(what.find("device 1 is the one measured"), std::string::npos) << what;
  }
  t.activities[2].device = 1;
  EXPECT_EQ(attribute(t, 2).size(), 2u);
  t.measured_device.reset();  // host-style traces are not checked
  t.activities[2].device = 7;
  EXPECT_EQ(attribute(t, 2).size(), 2u);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
