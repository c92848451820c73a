// A second vendor of device backends, in a test: it replays a recorded trace, each call's kernels
// as they were recorded, and is registered at run time (use_device_backends) without touching a
// file of gpumeter's. The session chooses it, locks its device by its uuid, measures with it and
// words its fallbacks in its names; the readings are the recording's, to the nanosecond.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/device_backends.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/session.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// One kernel of a recorded call: when it started after the call's first and how long it ran.
struct RecordedKernel {
  Nanos offset_ns = 0;
  Nanos duration_ns = 0;
};

// Three kernels of one call, the first two overlapping by 500 ns, the third after a 1500 ns gap:
// their union is [0, 4500] and [6000, 7000], 5500 ns; their span 7000 ns.
const std::vector<RecordedKernel> kRecordedCall = {{0, 3000}, {2500, 2000}, {6000, 1000}};
constexpr Nanos kRecordedBusyNs = 5500;
constexpr Nanos kRecordedLatencyNs = 7000;

class ReplayBackend final : public Backend {
 public:
  explicit ReplayBackend(int index) : index_(index) {}

  TimingMethod method() const override { return TimingMethod::kernel_records; }
  DeviceIdentity device() const override {
    DeviceIdentity id;
    id.kind = "replay";
    id.index = index_;
    id.name = "recorded trace";
    id.uuid = "replay-" + std::to_string(index_);
    return id;
  }

  void open_phase(const PhaseRequest&) override {
    trace_ = Trace{};
    trace_.dropped_records = 0;  // a replay loses nothing: a true zero
  }
  void begin_prepare(std::size_t) override {}
  void end_prepare(std::size_t) override {}
  void begin_iteration(std::size_t iteration) override {
    for (const RecordedKernel& k : kRecordedCall) {
      Activity a;
      a.kind = ActivityKind::kernel;
      a.start_ns = clock_ns_ + k.offset_ns;
      a.end_ns = a.start_ns + k.duration_ns;
      a.correlation_id = next_correlation_++;
      a.name = "recorded";
      trace_.external_id_of.emplace(a.correlation_id, iteration);
      trace_.activities.push_back(std::move(a));
    }
    clock_ns_ += 100000;  // the next call, well after this one
  }
  void end_iteration(std::size_t) override {}
  Trace close_phase() override { return std::move(trace_); }
  void abandon_phase() noexcept override { trace_ = Trace{}; }
  void drain(std::size_t, const char*) override {}
  void synchronize(const char*) override {}
  void clear_cache(std::size_t) override {}
  void after_user_code(std::size_t, const char*) override {}

 private:
  int index_;
  Trace trace_;
  Nanos clock_ns_ = 1000000;
  std::uint64_t next_correlation_ = 1;
};

class ReplayVendor final : public DeviceBackends {
 public:
  std::string device_kind() const override { return "replay"; }
  std::string unusable(int index) const override {
    return index == 0 || index == 1 ? "" : "the recording has devices 0 and 1 only";
  }
  VendorBackend choose(const SessionOptions& options, bool make) const override {
    VendorBackend out;
    out.key = "replay";
    if (make) out.backend = std::make_unique<ReplayBackend>(options.device);
    return out;
  }
  std::vector<HostDevice> devices() const override {
    return {HostDevice{0, "replay-0"}, HostDevice{1, "replay-1"}};
  }
  std::string device_uuid(int index) const override { return "replay-" + std::to_string(index); }
  Ceilings measure_ceilings(Backend&) const override {
    throw ConfigError("a recording holds no ceilings");
  }
};

class ReplayVendorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    use_device_backends(std::make_shared<ReplayVendor>());
    // The lock file in a folder of the test's own; no NVML, so the idle check is not made.
    dir_ =
        std::filesystem::temp_directory_path() / ("gpumeter-replay-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ::setenv("GPU_LOCK", (dir_ / "lock").c_str(), 1);
    ::setenv("GPUMETER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    ::unsetenv("GPUMETER_LOCK_HELD");
  }
  void TearDown() override {
    use_device_backends(nullptr);  // the build's vendor again
    ::unsetenv("GPU_LOCK");
    std::filesystem::remove_all(dir_);
  }
  static SessionOptions options(Timing timing, int device = 0) {
    SessionOptions o;
    o.timing = timing;
    o.device = device;
    o.lock = LockChoice::held_by_parent;
    return o;
  }
  std::filesystem::path dir_;
};

TEST_F(ReplayVendorTest, TheSessionMeasuresWithItAndReadsTheRecordingExactly) {
  Session s(options(Timing::cupti));
  Backend& b = s.backend();
  EXPECT_EQ(b.device().kind, "replay");
  const Call call{[] {}, {}, {}, {}};
  const Measurement m = measure(b, call, MeasureOptions{Budget{0, 0, 16, 16}, false});
  ASSERT_EQ(m.samples.size(), 16u);
  for (const Sample& x : m.samples) {
    EXPECT_EQ(x.device_busy_ns, kRecordedBusyNs);
    EXPECT_EQ(x.latency_ns, kRecordedLatencyNs);
    EXPECT_EQ(x.n_kernels, 3);
  }
  EXPECT_EQ(m.method, TimingMethod::kernel_records);
  // Its ceilings are asked of it (its device is of its kind), and their failure is a deviation.
  EXPECT_FALSE(s.ceilings().method.has_value());
  ASSERT_FALSE(s.deviations().empty());
  EXPECT_EQ(s.deviations().back(),
            "ceilings not measured (no percent of peak): a recording holds no ceilings");
}

TEST_F(ReplayVendorTest, ItsUnusableDeviceIsRefusedOrFallsBackToTheHostClockAsAsked) {
  EXPECT_EQ(Session::unusable_device(options(Timing::cupti, 2)),
            "the recording has devices 0 and 1 only");
  try {
    Session s(options(Timing::cupti, 2));
    (void)s.backend();
    FAIL() << "measured on a device the vendor called unusable";
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the recording has devices 0 and 1 only; nothing was "
                                          "measured",
                                          0),
              0u)
        << e.what();
  }
  Session automatic(options(Timing::automatic, 2));
  EXPECT_EQ(automatic.backend().method(), TimingMethod::host_clock);
  EXPECT_EQ(automatic.deviations(),
            std::vector<std::string>{
                "host backend instead of a GPU: the recording has devices 0 and 1 only"});
}

TEST_F(ReplayVendorTest, ItsDevicesLockAndFallbacksAreItsOwn) {
  EXPECT_EQ(Session::host_devices(options(Timing::cupti)),
            (std::vector<HostDevice>{HostDevice{0, "replay-0"}, HostDevice{1, "replay-1"}}));
  EXPECT_EQ(device_uuid(1), "replay-1");
  SessionOptions locked = options(Timing::cupti, 1);
  locked.lock = LockChoice::take;
  locked.lock_options.idle_timeout_s = 0;
  const Session s(locked);
  ASSERT_NE(s.lock(), nullptr);
  Record measured;
  Result r;
  r.measurement.method = TimingMethod::device_events;
  r.measurement.reason = "records unavailable";
  measured.results = {r};
  EXPECT_EQ(s.fallbacks(measured),
            std::vector<std::string>{
                "timed with device-events instead of kernel-records (records unavailable): a "
                "different statistic, never compared with kernel-records rows"});
}

TEST_F(ReplayVendorTest, GivingTheBuildsVendorBackLeavesNoTraceOfIt) {
  use_device_backends(nullptr);
  const DeviceBackends* built = device_backends();
  if (built != nullptr) {
    EXPECT_NE(built->device_kind(), "replay");
  }
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
