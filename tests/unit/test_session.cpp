// Session without a GPU: what each option asks of the lock, which backend a choice makes where
// no GPU is usable, and the deviations and fallbacks in the words the front end's user reads.
// The lock file lives in a temporary folder (GPU_LOCK) and NVML is absent, so the idle check is
// the part the record says was not made.
#include "gpumeter/session.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/device_backends.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;

// The Python module's spelling, so a test can tell it from the default.
OptionSpelling python_spelling() {
  OptionSpelling s;
  s.cupti = "timing='cupti'";
  s.events = "timing='events'";
  s.host = "timing='host'";
  s.no_lock = "lock=False";
  return s;
}

SessionOptions unlocked(Timing timing) {
  SessionOptions o;
  o.timing = timing;
  o.lock = LockChoice::held_by_parent;
  return o;
}

// Whether a CUDA GPU answers here: then the host-clock answers below do not hold.
bool gpu_usable() {
  try {
    Session::check_timing_is_built(unlocked(Timing::cupti));
  } catch (const ConfigError&) {
    return false;  // a build without the CUDA backend
  }
  return Session::unusable_device(unlocked(Timing::cupti)).empty();
}

// Issue 53: one name per timing method in every message and report, and --timing taking it
// beside the short name scripts already type. A user who typed --timing events read
// "cuda-events" in messages and "cuda_event" in CSV.
TEST(TimingNames, EachMethodHasOneNameThatTimingTakesBesideItsShortName) {
  EXPECT_EQ(to_string(TimingMethod::kernel_records), "kernel-records");
  EXPECT_EQ(to_string(TimingMethod::device_events), "device-events");
  EXPECT_EQ(to_string(TimingMethod::host_clock), "host-clock");
  EXPECT_EQ(to_string(Statistic::device_event), "device_event");
  for (const TimingMethodName& n : kTimingMethodNames) {
    EXPECT_EQ(parse_timing_method(n.name), n.method) << n.name;
    EXPECT_EQ(parse_timing_method(n.short_name), n.method) << n.short_name;
    EXPECT_EQ(parse_statistic(n.statistic), statistic_of(n.method)) << n.statistic;
  }
  EXPECT_EQ(parse_timing("cupti", "--timing"), Timing::cupti);
  EXPECT_EQ(parse_timing("kernel-records", "--timing"), Timing::cupti);
  EXPECT_EQ(parse_timing("events", "--timing"), Timing::events);
  EXPECT_EQ(parse_timing("device-events", "--timing"), Timing::events);
  EXPECT_EQ(parse_timing("host", "--timing"), Timing::host);
  EXPECT_EQ(parse_timing("host-clock", "--timing"), Timing::host);
  EXPECT_EQ(parse_timing("auto", "--timing"), Timing::automatic);
  // The record's words are the record reader's, not the user's.
  EXPECT_THROW((void)parse_timing("cuda-events", "--timing"), ConfigError);
  EXPECT_EQ(parse_timing_method("host-wall"), std::nullopt);
  EXPECT_EQ(parse_statistic("cuda_event"), std::nullopt);
}

TEST(Session, HostOnlyIsTheHostClockAndSaysItWasAsked) {
  Session s(unlocked(Timing::host_only));
  EXPECT_EQ(s.backend().device().kind, "host");
  EXPECT_EQ(s.deviations(), std::vector<std::string>{
                                "host backend instead of a GPU: the host backend was asked for"});
  EXPECT_TRUE(s.fallbacks(Record{}).empty());  // asked for: not a fallback
  EXPECT_FALSE(s.ceilings().flops_per_s);      // no device, no ceilings, nothing to say
  EXPECT_EQ(s.deviations().size(), 1u);
}

TEST(Session, NoLockIsSaidInTheFrontEndsWords) {
  SessionOptions o = unlocked(Timing::host_only);
  o.lock = LockChoice::skip;
  o.spelling = python_spelling();
  const Session s(o);
  EXPECT_EQ(s.lock(), nullptr);
  ASSERT_EQ(s.deviations().size(), 1u);
  EXPECT_EQ(s.deviations()[0],
            "device lock not taken (lock=False): nothing kept other runs off the device");
}

TEST(Session, HeldByTheParentTakesNothingAndSaysNothing) {
  const Session s(unlocked(Timing::host_only));
  EXPECT_EQ(s.lock(), nullptr);
  EXPECT_TRUE(s.deviations().empty());  // the backend is not made yet
}

TEST(Session, TakesTheLockBeforeTheBackend) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpumeter-session-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "gpu.lock").string();
  ::setenv("GPU_LOCK", path.c_str(), 1);
  ::setenv("GPUMETER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  ::unsetenv("GPUMETER_LOCK_HELD");
  {
    SessionOptions o;
    o.timing = Timing::host_only;
    o.lock_options.timeout_s = 0;
    o.lock_options.idle_timeout_s = 0;
    const Session s(o);
    ASSERT_NE(s.lock(), nullptr);
    EXPECT_EQ(s.lock()->path(), path);
    EXPECT_GE(s.lock()->fd(), 0);
    // NVML is absent: the lock is held without the idle check, and the record says so.
    EXPECT_EQ(s.deviations(), s.lock()->deviations());
    EXPECT_FALSE(s.deviations().empty());
    // A second session finds it held and gives up at once.
    EXPECT_THROW(Session{o}, DeviceBusy);
  }
  ::unsetenv("GPU_LOCK");
  ::unsetenv("GPUMETER_NVML_LIBRARY");
  fs::remove_all(dir);
}

TEST(Session, AutomaticWithoutAGpuIsTheHostClockAndAFallback) {
  if (gpu_usable()) GTEST_SKIP() << "a CUDA GPU is usable here: automatic is CUPTI";
  SessionOptions o = unlocked(Timing::automatic);
  o.spelling = python_spelling();
  Session s(o);
  EXPECT_EQ(s.backend().device().kind, "host");
  ASSERT_EQ(s.deviations().size(), 1u);
  const std::string& d = s.deviations()[0];
  EXPECT_EQ(d.rfind("host backend instead of a GPU: ", 0), 0u) << d;
  EXPECT_EQ(
      s.fallbacks(Record{}),
      std::vector<std::string>{"measured with the host clock, not the GPU's device time (" + d +
                               "); timing='cupti' requires a GPU, timing='host' asks for "
                               "the host clock"});
}

TEST(Session, HostWithoutAGpuIsTheHostClockWithoutADeviation) {
  if (gpu_usable()) GTEST_SKIP() << "a CUDA GPU is usable here: host is the synchronized clock";
  Session s(unlocked(Timing::host));
  EXPECT_EQ(s.backend().device().kind, "host");
  EXPECT_TRUE(s.deviations().empty());
  EXPECT_TRUE(s.fallbacks(Record{}).empty());
}

// Without a GPU, CUPTI is an error: DeviceError in a build with the CUDA backend (no device),
// ConfigError in one without (naming the option as the user wrote it). Never the host clock.
TEST(Session, CuptiWithoutAGpuIsAnError) {
  if (gpu_usable()) GTEST_SKIP() << "a CUDA GPU is usable here";
  SessionOptions o = unlocked(Timing::cupti);
  o.spelling.cupti = "--backend cuda";
  try {
    Session s(o);
    (void)s.backend();
    FAIL() << "measured without a GPU";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--backend cuda needs the CUDA backend", 0), 0u)
        << e.what();
  } catch (const DeviceError&) {
    EXPECT_FALSE(Session::unusable_device(o).empty());  // said before the lock too
  }
}

TEST(Session, RowsTimedByEventsInPlaceOfCuptiAreAFallback) {
  Record measured;
  Result r;
  r.measurement.method = TimingMethod::device_events;
  r.measurement.reason = "CUPTI unavailable: taken by another client";
  measured.results = {r, r};
  const Session s(unlocked(Timing::host_only));
  // In the methods' one name, whatever vendor the build has (issue 53: the user who typed
  // --timing events read "CUDA events" here, "cuda-events" in tables).
  EXPECT_EQ(s.fallbacks(measured),
            std::vector<std::string>{"timed with device-events instead of kernel-records (CUPTI "
                                     "unavailable: taken by another client): a different "
                                     "statistic, never compared with kernel-records rows"});
  SessionOptions events = unlocked(Timing::host_only);
  events.timing = Timing::events;
  if (!gpu_usable()) return;  // a session that asks for events needs the CUDA backend
  EXPECT_TRUE(Session(events).fallbacks(measured).empty());
}

TEST(Session, AKeptBackendIsSharedAndAnOwnedOneIsNot) {
  SessionOptions kept = unlocked(Timing::host_only);
  kept.keep_backend = true;
  Session a(kept);
  Session b(kept);
  EXPECT_EQ(&a.backend(), &b.backend());
  Session c(unlocked(Timing::host_only));
  Session d(unlocked(Timing::host_only));
  EXPECT_NE(&c.backend(), &d.backend());
}

TEST(Session, GivenCeilingsAreNotMeasured) {
  Session s(unlocked(Timing::host_only));
  Ceilings given;
  given.bytes_per_s = 1e12;
  s.use_ceilings(given);
  EXPECT_EQ(s.ceilings().bytes_per_s, std::optional<double>(1e12));
  EXPECT_EQ(s.deviations().size(), 0u);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
