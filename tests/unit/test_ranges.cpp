#include "gpumeter/ranges.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// A synthetic collector stream: what an injected NVTX/CUPTI collector would hand the core.
// Counters default to "live, nothing dropped".
class Stream {
 public:
  Stream() {
    t_.dropped_activity_records = 0;
    t_.dropped_host_events = 0;
  }
  Stream& push(std::uint64_t thread, Nanos ns, const std::string& name,
               const std::string& domain = "") {
    t_.ranges.push_back({RangeEventKind::push, ns, thread, 0, name, domain});
    return *this;
  }
  Stream& pop(std::uint64_t thread, Nanos ns, const std::string& domain = "") {
    t_.ranges.push_back({RangeEventKind::pop, ns, thread, 0, "", domain});
    return *this;
  }
  Stream& start(std::uint64_t thread, Nanos ns, std::uint64_t id, const std::string& name) {
    t_.ranges.push_back({RangeEventKind::start, ns, thread, id, name, ""});
    return *this;
  }
  Stream& end(std::uint64_t thread, Nanos ns, std::uint64_t id) {
    t_.ranges.push_back({RangeEventKind::end, ns, thread, id, "", ""});
    return *this;
  }
  // A kernel launched by `thread` at host time `ns`, run on the device over [start, end].
  Stream& kernel(std::uint64_t thread, Nanos ns, Nanos start, Nanos end,
                 const std::string& name = "k") {
    const std::uint64_t id = next_id_++;
    t_.launches.push_back({thread, id, ns, "cudaLaunchKernel"});
    Activity a;
    a.start_ns = start;
    a.end_ns = end;
    a.correlation_id = id;
    a.name = name;
    t_.activities.push_back(a);
    return *this;
  }
  // A launch with no activity record.
  Stream& launch_only(std::uint64_t thread, Nanos ns, const std::string& api) {
    t_.launches.push_back({thread, next_id_++, ns, api});
    return *this;
  }
  Stream& copy(std::uint64_t thread, Nanos ns, Nanos start, Nanos end) {
    const std::uint64_t id = next_id_++;
    t_.launches.push_back({thread, id, ns, "cudaMemcpyAsync"});
    Activity a;
    a.kind = ActivityKind::memcpy;
    a.start_ns = start;
    a.end_ns = end;
    a.correlation_id = id;
    t_.activities.push_back(a);
    return *this;
  }
  RangeTrace& trace() { return t_; }
  RangeReport report(const RangeOptions& options = {}) const {
    return attribute_ranges(t_, options);
  }

 private:
  RangeTrace t_;
  std::uint64_t next_id_ = 1;
};

// Names by value (string_view): a reference parameter bound to a temporary ("step") would make
// g++ 13 warn that the returned reference may dangle (-Wdangling-reference), though it does not.
const RangeStats& range(const RangeReport& r, std::string_view name, std::string_view domain = "") {
  for (const RangeStats& s : r.ranges) {
    if (s.name == name && s.domain == domain) return s;
  }
  throw std::runtime_error("no range " + std::string(name));
}

TEST(Ranges, NestedRangesBothCountTheKernel) {
  const RangeReport r = Stream()
                            .push(1, 0, "step")
                            .kernel(1, 10, 1000, 1100)  // in step only
                            .push(1, 20, "forward")
                            .kernel(1, 30, 1200, 1500)  // in step and forward
                            .pop(1, 40)
                            .pop(1, 50)
                            .report();
  ASSERT_EQ(r.ranges.size(), 2u);
  const RangeStats& step = range(r, "step");
  const RangeStats& fwd = range(r, "forward");
  ASSERT_EQ(step.instances.size(), 1u);
  EXPECT_EQ(step.instances[0].n_kernels, 2);
  EXPECT_EQ(step.instances[0].device_busy_ns, 400);
  EXPECT_EQ(step.instances[0].latency_ns, 500);
  EXPECT_EQ(fwd.instances[0].n_kernels, 1);
  EXPECT_EQ(fwd.instances[0].device_busy_ns, 300);
  EXPECT_EQ(fwd.instances[0].latency_ns, 300);
  EXPECT_TRUE(r.outside.empty());
}

TEST(Ranges, AttributedByLaunchTimeNotByDeviceTime) {
  // The kernel launched inside "a" runs on the device long after "a" closed and while "b" is
  // open: it is a's, not b's.
  const RangeReport r = Stream()
                            .push(1, 0, "a")
                            .kernel(1, 5, 10000, 10100)
                            .pop(1, 10)
                            .push(1, 20, "b")
                            .pop(1, 20000)
                            .report();
  EXPECT_EQ(range(r, "a").instances[0].n_kernels, 1);
  EXPECT_EQ(range(r, "b").instances[0].n_kernels, 0);
  EXPECT_FALSE(range(r, "b").device_busy.has_value());
}

TEST(Ranges, RangeCoversBothEndsOfItsHostInterval) {
  // Launches stamped with the very readings of the push and the pop are inside the range.
  const RangeReport r = Stream()
                            .push(1, 10, "r")
                            .kernel(1, 10, 100, 110)
                            .kernel(1, 20, 120, 130)
                            .pop(1, 20)
                            .kernel(1, 21, 140, 150)
                            .report();
  EXPECT_EQ(range(r, "r").instances[0].n_kernels, 2);
  ASSERT_EQ(r.outside.size(), 1u);
  EXPECT_EQ(r.outside[0].n_kernels, 1);
}

TEST(Ranges, ConcurrentKernelsInOneRangeCountOnce) {
  const RangeReport r = Stream()
                            .push(1, 0, "r")
                            .kernel(1, 1, 1000, 2000)
                            .kernel(1, 2, 1500, 2500)  // another stream, overlapping
                            .pop(1, 3)
                            .report();
  const RangeInstance& i = range(r, "r").instances[0];
  EXPECT_EQ(i.device_busy_ns, 1500);  // the union, not the sum 2000
  EXPECT_EQ(i.latency_ns, 1500);
  EXPECT_EQ(i.n_kernels, 2);
}

TEST(Ranges, StartEndCoversEveryThreadAndMayEndOnAnother) {
  const RangeReport r = Stream()
                            .start(1, 0, 77, "epoch")
                            .kernel(1, 10, 100, 200)
                            .kernel(2, 20, 300, 350)  // another thread: still inside
                            .end(2, 30, 77)           // ended by thread 2
                            .kernel(2, 40, 400, 500)  // after the end: outside
                            .report();
  const RangeStats& epoch = range(r, "epoch");
  ASSERT_EQ(epoch.instances.size(), 1u);
  EXPECT_TRUE(epoch.instances[0].process_wide);
  EXPECT_EQ(epoch.instances[0].thread, 1u);
  EXPECT_EQ(epoch.instances[0].n_kernels, 2);
  EXPECT_EQ(epoch.instances[0].device_busy_ns, 150);
  EXPECT_EQ(epoch.instances[0].latency_ns, 250);
  ASSERT_EQ(r.outside.size(), 1u);
  EXPECT_EQ(r.outside[0].thread, 2u);
}

TEST(Ranges, PushPopStacksArePerThread) {
  // Thread 2's kernel is launched while thread 1 is inside "mine": it is not mine's. Thread 2
  // pops its own range while thread 1's is open: each stack pairs its own.
  const RangeReport r = Stream()
                            .push(1, 0, "mine")
                            .push(2, 5, "theirs")
                            .kernel(2, 10, 100, 120)
                            .pop(2, 15)
                            .kernel(1, 20, 200, 260)
                            .pop(1, 30)
                            .report();
  EXPECT_EQ(range(r, "mine").instances[0].n_kernels, 1);
  EXPECT_EQ(range(r, "mine").instances[0].device_busy_ns, 60);
  EXPECT_EQ(range(r, "theirs").instances[0].n_kernels, 1);
  EXPECT_EQ(range(r, "theirs").instances[0].device_busy_ns, 20);
  EXPECT_EQ(range(r, "theirs").instances[0].close_ns, 15);
  EXPECT_EQ(range(r, "mine").instances[0].close_ns, 30);
}

TEST(Ranges, StacksArePerDomain) {
  // A pop in domain "b" closes b's range even though a's was pushed after it.
  const RangeReport r = Stream()
                            .push(1, 0, "outer", "b")
                            .push(1, 10, "inner", "a")
                            .pop(1, 20, "b")
                            .kernel(1, 30, 100, 110)
                            .pop(1, 40, "a")
                            .report();
  EXPECT_EQ(range(r, "outer", "b").instances[0].close_ns, 20);
  EXPECT_EQ(range(r, "outer", "b").instances[0].n_kernels, 0);
  EXPECT_EQ(range(r, "inner", "a").instances[0].n_kernels, 1);
}

TEST(Ranges, AdoptedEngineThreadCountsTowardTheWaitingThreadsRanges) {
  Stream s;
  s.push(1, 0, "backward")
      .kernel(9, 10, 100, 150)  // the autograd engine thread, while thread 1 waits
      .kernel(9, 20, 200, 240)
      .pop(1, 30)
      .kernel(9, 40, 300, 310);  // after the adoption interval: outside
  RangeOptions adopt;
  adopt.adoptions.push_back({9, 1, 5, 35});
  const RangeReport with = s.report(adopt);
  EXPECT_EQ(range(with, "backward").instances[0].n_kernels, 2);
  EXPECT_EQ(range(with, "backward").instances[0].device_busy_ns, 90);
  ASSERT_EQ(with.outside.size(), 1u);
  EXPECT_EQ(with.outside[0].n_kernels, 1);

  // Without the declaration the engine's kernels are outside every range, not absorbed.
  const RangeReport without = s.report();
  EXPECT_EQ(range(without, "backward").instances[0].n_kernels, 0);
  ASSERT_EQ(without.outside.size(), 1u);
  EXPECT_EQ(without.outside[0].thread, 9u);
  EXPECT_EQ(without.outside[0].n_kernels, 3);
}

TEST(Ranges, AdoptionKeepsTheEngineThreadsOwnRangesAndCountsOnce) {
  Stream s;
  s.push(1, 0, "backward").push(9, 5, "MulBackward0").kernel(9, 10, 100, 150).pop(9, 15).pop(1, 30);
  RangeOptions adopt;
  adopt.adoptions.push_back({9, 1, 0, 100});
  adopt.adoptions.push_back({9, 1, 0, 50});  // declared twice: still one kernel
  const RangeReport r = s.report(adopt);
  EXPECT_EQ(range(r, "backward").instances[0].n_kernels, 1);
  EXPECT_EQ(range(r, "MulBackward0").instances[0].n_kernels, 1);
  EXPECT_EQ(range(r, "backward").instances[0].device_busy_ns, 50);
}

TEST(Ranges, KernelsOutsideRangesByThreadAndName) {
  const RangeReport r = Stream()
                            .kernel(1, 0, 0, 100, "init")
                            .kernel(1, 1, 50, 150, "init")  // overlaps the first
                            .kernel(2, 2, 200, 210, "init")
                            .kernel(1, 3, 300, 330, "gemm")
                            .push(1, 10, "r")
                            .kernel(1, 11, 400, 500, "gemm")
                            .pop(1, 12)
                            .report();
  ASSERT_EQ(r.outside.size(), 3u);  // by thread, then name
  EXPECT_EQ(r.outside[0].thread, 1u);
  EXPECT_EQ(r.outside[0].name, "gemm");
  EXPECT_EQ(r.outside[0].n_kernels, 1);
  EXPECT_EQ(r.outside[0].total_ns, 30);
  EXPECT_EQ(r.outside[1].name, "init");
  EXPECT_EQ(r.outside[1].n_kernels, 2);
  EXPECT_EQ(r.outside[1].total_ns, 200);
  EXPECT_EQ(r.outside[1].device_busy_ns, 150);
  EXPECT_EQ(r.outside[2].thread, 2u);
  EXPECT_EQ(r.outside[2].total_ns, 10);
  EXPECT_EQ(range(r, "r").instances[0].n_kernels, 1);
}

TEST(Ranges, SpreadOverInstances) {
  Stream s;
  // Five instances of "step" with device_busy 100, 200, 300, 400, 500 ns and one with no kernel.
  for (int i = 0; i < 5; ++i) {
    const Nanos t = 1000 * i;
    s.push(1, t, "step").kernel(1, t + 1, t, t + 100 * (i + 1)).pop(1, t + 2);
  }
  s.push(1, 9000, "step").pop(1, 9001);
  const RangeReport r = s.report();
  const RangeStats& step = range(r, "step");
  EXPECT_EQ(step.instances.size(), 6u);
  EXPECT_EQ(step.n_with_kernels, 5u);
  ASSERT_TRUE(step.device_busy.has_value());
  EXPECT_DOUBLE_EQ(step.device_busy->median_ns, 300);
  EXPECT_DOUBLE_EQ(step.device_busy->p10_ns, 140);  // type 7: 100 + 0.4 * 100
  EXPECT_DOUBLE_EQ(step.device_busy->p90_ns, 460);
  EXPECT_DOUBLE_EQ(step.latency->median_ns, 300);
}

TEST(Ranges, LaunchWithoutKernelIsListedNotAnError) {
  const RangeReport r = Stream()
                            .launch_only(1, 0, "cudaMemcpyAsync")
                            .launch_only(3, 5, "cudaLaunchKernel")
                            .kernel(1, 10, 0, 10)
                            .report();
  ASSERT_EQ(r.launches_without_kernel.size(), 2u);
  EXPECT_EQ(r.launches_without_kernel[0].api, "cudaMemcpyAsync");
  EXPECT_FALSE(r.launches_without_kernel[0].kernel_launch_api);
  EXPECT_EQ(r.launches_without_kernel[1].thread, 3u);
  EXPECT_EQ(r.launches_without_kernel[1].correlation_id, 2u);
  EXPECT_TRUE(r.launches_without_kernel[1].kernel_launch_api);
}

TEST(Ranges, KernelLaunchApiNames) {
  EXPECT_TRUE(is_kernel_launch_api("cudaLaunchKernel"));
  EXPECT_TRUE(is_kernel_launch_api("cuLaunchKernelEx"));
  EXPECT_TRUE(is_kernel_launch_api("cudaLaunchCooperativeKernel_ptsz"));
  // Runs a kernel on each device of its list: a call that left none should have left one.
  EXPECT_TRUE(is_kernel_launch_api("cudaLaunchCooperativeKernelMultiDevice_v9000"));
  EXPECT_FALSE(is_kernel_launch_api("cudaGraphLaunch"));
  EXPECT_FALSE(is_kernel_launch_api("cudaMemcpyAsync"));
  EXPECT_FALSE(is_kernel_launch_api("cudaLaunchHostFunc"));
}

TEST(Ranges, CopiesCountOnlyWhenAsked) {
  Stream s;
  s.push(1, 0, "r").kernel(1, 1, 0, 100).copy(1, 2, 200, 300).pop(1, 3);
  const RangeInstance plain = range(s.report(), "r").instances[0];
  EXPECT_EQ(plain.device_busy_ns, 100);
  EXPECT_EQ(plain.latency_ns, 100);
  RangeOptions copies;
  copies.count_copies = true;
  const RangeReport counted = s.report(copies);
  EXPECT_EQ(range(counted, "r").instances[0].device_busy_ns, 200);
  EXPECT_EQ(range(counted, "r").instances[0].latency_ns, 300);
  EXPECT_EQ(range(counted, "r").instances[0].n_kernels, 1);  // a copy is not a kernel
  // The copy's launch had no kernel record: listed, as a copy API.
  ASSERT_EQ(counted.launches_without_kernel.size(), 1u);
  EXPECT_FALSE(counted.launches_without_kernel[0].kernel_launch_api);
}

TEST(Ranges, DomainAndNameFilters) {
  Stream s;
  s.push(1, 0, "train_step", "app")
      .push(1, 1, "aten::mm", "torch")
      .kernel(1, 2, 0, 100)
      .pop(1, 3, "torch")
      .push(1, 4, "eval_step", "app")
      .kernel(1, 5, 200, 230)
      .pop(1, 6, "app")
      .pop(1, 7, "app")
      .kernel(1, 8, 300, 310, "tail");
  RangeOptions app;
  app.domain = "app";
  const RangeReport by_domain = s.report(app);
  ASSERT_EQ(by_domain.ranges.size(), 2u);
  EXPECT_EQ(by_domain.ranges[0].name, "eval_step");
  EXPECT_EQ(by_domain.ranges[1].name, "train_step");
  EXPECT_EQ(range(by_domain, "train_step", "app").instances[0].n_kernels, 2);

  RangeOptions train;
  train.name_regex = "^train";
  const RangeReport by_name = s.report(train);
  ASSERT_EQ(by_name.ranges.size(), 1u);
  EXPECT_EQ(by_name.ranges[0].name, "train_step");
  ASSERT_EQ(by_name.outside.size(), 1u);  // only the tail: both others are inside train_step
  EXPECT_EQ(by_name.outside[0].name, "tail");

  RangeOptions mm;
  mm.name_regex = "mm";
  mm.domain = "torch";
  const RangeReport both = s.report(mm);
  ASSERT_EQ(both.ranges.size(), 1u);
  EXPECT_EQ(both.ranges[0].name, "aten::mm");
  ASSERT_EQ(both.outside.size(), 2u);  // the eval_step kernel and the tail, outside aten::mm
  EXPECT_EQ(both.outside[0].name, "k");

  RangeOptions bad;
  bad.name_regex = "(";
  EXPECT_THROW(s.report(bad), ConfigError);
}

TEST(RangeErrors, RangeLeftOpenAtExit) {
  Stream s;
  s.push(1, 0, "outer").push(1, 1, "inner").kernel(1, 2, 0, 10).pop(1, 3);
  try {
    s.report();
    FAIL() << "an open range must fail the run";
  } catch (const RangeLeftOpen& e) {
    EXPECT_EQ(e.name(), "outer");
    EXPECT_EQ(e.thread(), 1u);
    EXPECT_FALSE(e.process_wide());
    EXPECT_EQ(e.n_open(), 1u);
    EXPECT_NE(std::string(e.what()).find("'outer'"), std::string::npos);
  }
  Stream started;
  started.start(4, 0, 12, "epoch");
  try {
    started.report();
    FAIL() << "a start without its end must fail the run";
  } catch (const RangeLeftOpen& e) {
    EXPECT_EQ(e.name(), "epoch");
    EXPECT_EQ(e.thread(), 4u);
    EXPECT_TRUE(e.process_wide());
  }
}

TEST(RangeErrors, PopWithoutPush) {
  // Thread 2 pops: only thread 1 pushed.
  Stream s;
  s.push(1, 0, "r").pop(2, 1).pop(1, 2);
  try {
    s.report();
    FAIL() << "a pop with no push on its thread must fail the run";
  } catch (const RangeNotOpen& e) {
    EXPECT_EQ(e.thread(), 2u);
    EXPECT_FALSE(e.process_wide());
  }
  Stream ended;
  ended.end(1, 5, 99);
  try {
    ended.report();
    FAIL() << "an end with no start must fail the run";
  } catch (const RangeNotOpen& e) {
    EXPECT_TRUE(e.process_wide());
    EXPECT_EQ(e.id(), 99u);
  }
}

TEST(RangeErrors, KernelWithoutLaunch) {
  Stream s;
  s.push(1, 0, "r").kernel(1, 1, 0, 10).pop(1, 2);
  Activity stray;
  stray.correlation_id = 4242;
  stray.name = "stray_kernel";
  stray.start_ns = 5;
  stray.end_ns = 8;
  s.trace().activities.push_back(stray);
  try {
    s.report();
    FAIL() << "a kernel with no launch cannot be attributed";
  } catch (const LaunchNotFound& e) {
    EXPECT_EQ(e.correlation_id(), 4242u);
    EXPECT_EQ(e.kernel(), "stray_kernel");
    EXPECT_EQ(e.n_activities(), 1u);
  }
}

TEST(RangeErrors, DroppedRecordsFailTheRun) {
  Stream s;
  s.push(1, 0, "r").kernel(1, 1, 0, 10).pop(1, 2);
  s.trace().dropped_activity_records = 3;
  try {
    s.report();
    FAIL() << "dropped records must fail the run";
  } catch (const CollectorRecordsLost& e) {
    EXPECT_EQ(e.dropped(), 3u);
    EXPECT_EQ(e.records(), "CUPTI activity records");
  }
  s.trace().dropped_activity_records = std::nullopt;  // counter not proven live
  try {
    s.report();
    FAIL() << "an unknown drop counter must fail the run";
  } catch (const CollectorRecordsLost& e) {
    EXPECT_FALSE(e.dropped().has_value());
  }
  s.trace().dropped_activity_records = 0;
  s.trace().dropped_host_events = 1;
  try {
    s.report();
    FAIL() << "lost range events must fail the run";
  } catch (const CollectorRecordsLost& e) {
    EXPECT_EQ(e.records(), "range and launch events");
  }
  s.trace().dropped_host_events = std::nullopt;
  EXPECT_THROW(s.report(), CollectorRecordsLost);
  s.trace().dropped_host_events = 0;
  EXPECT_NO_THROW(s.report());
}

TEST(RangeErrors, LostRecordsTakePrecedence) {
  // A missing launch could be a lost record: the loss is named, not its consequence.
  Stream s;
  Activity stray;
  stray.correlation_id = 7;
  s.trace().activities.push_back(stray);
  s.trace().dropped_host_events = 2;
  EXPECT_THROW(s.report(), CollectorRecordsLost);
}

TEST(RangeErrors, CorruptTraces) {
  Stream backwards;
  backwards.push(1, 10, "r").pop(1, 5);
  EXPECT_THROW(backwards.report(), CorruptTrace);

  Stream inverted;
  inverted.kernel(1, 0, 100, 50);
  EXPECT_THROW(inverted.report(), CorruptTrace);

  Stream twice;
  twice.kernel(1, 0, 0, 10);
  twice.trace().launches.push_back(twice.trace().launches[0]);
  EXPECT_THROW(twice.report(), CorruptTrace);

  Stream reused;
  reused.start(1, 0, 5, "a").start(1, 1, 5, "b").end(1, 2, 5).end(1, 3, 5);
  EXPECT_THROW(reused.report(), CorruptTrace);

  RangeOptions bad;
  bad.adoptions.push_back({2, 1, 10, 5});
  EXPECT_THROW(Stream().report(bad), ConfigError);
}

TEST(RangeErrors, NamedByCause) {
  EXPECT_STREQ(error_name(RangeLeftOpen("r", "", 1, false, 1)), "RangeLeftOpen");
  EXPECT_STREQ(error_name(RangeNotOpen(1, "", false, 0, 0)), "RangeNotOpen");
  EXPECT_STREQ(error_name(LaunchNotFound(1, "k", 1)), "LaunchNotFound");
  EXPECT_STREQ(error_name(CollectorRecordsLost("x", 1)), "CollectorRecordsLost");
  EXPECT_STREQ(error_name(CorruptTrace("x")), "CorruptTrace");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
