#include "gpumeter/measure.hpp"

#include <gtest/gtest.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.hpp"
#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// The core runs each call once per iteration (so tests can see the order); this collector
// reports one kernel of a fixed duration per iteration, dropping records on the attempts it is
// told to, and logs the steps the driver asks for.
class FakeBackend final : public Backend {
 public:
  TimingMethod method_ = TimingMethod::kernel_records;
  Nanos kernel_ns = 1 * kMillisecond;
  int drop_until_attempt = 0;           // attempts below this lose records
  int clock_changed_until_attempt = 0;  // attempts below this find the clock changed (T14)
  std::vector<PhaseRequest> phases;
  std::string steps;  // one letter per step, when log_steps
  bool log_steps = false;
  int syncs = 0;
  int abandoned = 0;
  // Clock readings the backend gives, in order (empty: it reads none); 'k' in steps.
  std::vector<ClockReading> clocks;
  std::size_t clocks_read = 0;

  TimingMethod method() const override { return method_; }
  DeviceIdentity device() const override {
    DeviceIdentity d;
    d.kind = "fake";
    return d;
  }
  void open_phase(const PhaseRequest& request) override {
    phases.push_back(request);
    trace_ = Trace{};
    trace_.dropped_records = request.attempt < drop_until_attempt ? 5 : 0;
    clock_ = 0;
    log('O');
  }
  void begin_prepare(std::size_t) override { log('p'); }
  void end_prepare(std::size_t) override { log('q'); }
  void begin_iteration(std::size_t) override { log('i'); }
  void end_iteration(std::size_t i) override {
    log('j');
    const std::uint64_t corr = 1000 + i;
    trace_.external_id_of[corr] = i;
    Activity a;
    a.start_ns = clock_;
    a.end_ns = clock_ + kernel_ns;
    a.correlation_id = corr;
    trace_.activities.push_back(a);
    clock_ += 2 * kernel_ns;
  }
  Trace close_phase() override {
    log('C');
    if (phases.back().attempt < clock_changed_until_attempt) {
      throw TimestampUnitMismatch("CUPTI's clock changed while a measurement phase ran");
    }
    return trace_;
  }
  void abandon_phase() noexcept override {
    ++abandoned;
    log('A');
  }
  void drain(std::size_t, const char*) override { log('d'); }
  void synchronize(const char*) override {
    ++syncs;
    log('s');
  }
  void clear_cache(std::size_t) override { log('f'); }
  void after_user_code(std::size_t, const char*) override { log('u'); }
  std::optional<ClockReading> read_clock() override {
    if (clocks.empty()) return std::nullopt;
    log('k');
    return clocks[clocks_read++ % clocks.size()];
  }

 private:
  void log(char c) {
    if (log_steps) steps += c;
  }
  Trace trace_;
  Nanos clock_ = 0;
};

TEST(Driver, OneIterationInTheOrderEveryBackendShares) {
  FakeBackend b;
  b.log_steps = true;
  std::string calls;
  const Call call{[&] {
                    calls += 'R';
                    b.steps += 'R';
                  },
                  [&] {
                    calls += 'r';
                    b.steps += 'r';
                  }};
  (void)measure(b, call, MeasureOptions{Budget{0, 0, 1, 1}, false});
  // Per phase: synchronize, open; per iteration: prepare label {reset, its check, drain, cache
  // cleared}, drain, call label {call}, check, drain; close.
  const std::string iteration = "prudfqdiRjud";
  std::string one_phase = "sO";
  for (int k = 0; k < 3; ++k) one_phase += iteration;  // calibration runs 3 iterations
  one_phase += "C";
  EXPECT_EQ(b.steps.substr(0, one_phase.size()), one_phase);
  // Then the warm-up iteration and the measured one, in one phase.
  EXPECT_EQ(b.steps.substr(one_phase.size()), "sO" + iteration + iteration + "C");
}

// B4: the measured phase reads the clock before its first iteration and after each iteration's
// drain, never inside one; each sample gets the lower clock and both readings' reasons.
TEST(Driver, MeasuredSamplesCarryTheClockAroundThem) {
  FakeBackend b;
  b.log_steps = true;
  // Readings cycle: 1980, 1980, 1755 with the power cap (0x4), 1980 + idle (0x1), ...
  b.clocks = {{1980, 0}, {1980, 0}, {1755, 0x4}, {1980, 0x1}};
  const Measurement m = measure(b, Call{[] {}, {}}, MeasureOptions{Budget{0, 0, 4, 4}, false});
  // Only the measured phase reads, and only around its kept samples (its 4 warm-up iterations
  // come first): its 5 readings are the only 'k's, the first after the warm-up's last drain.
  EXPECT_EQ(std::count(b.steps.begin(), b.steps.end(), 'k'), 5);
  const std::string measured = b.steps.substr(b.steps.rfind('s'));
  EXPECT_EQ(measured.substr(0, 2), "sO");
  // The first reading follows the 4th iteration (each closes its call's label once, 'j').
  const std::string before_reading = measured.substr(0, measured.find('k'));
  EXPECT_EQ(std::count(before_reading.begin(), before_reading.end(), 'j'), 4);
  EXPECT_NE(measured.find("udk"), std::string::npos);
  EXPECT_EQ(measured.find("jk"), std::string::npos);  // never between the call and its drain
  ASSERT_EQ(m.samples.size(), 4u);
  // Readings r0..r4 = 1980, 1980, 1755|0x4, 1980|0x1, 1980.
  EXPECT_EQ(m.samples[0].clock->sm_mhz, 1980);
  EXPECT_EQ(m.samples[1].clock->sm_mhz, 1755);
  EXPECT_EQ(m.samples[1].clock->throttle_reasons, 0x4u);
  EXPECT_EQ(m.samples[2].clock->sm_mhz, 1755);
  EXPECT_EQ(m.samples[2].clock->throttle_reasons, 0x5u);
  EXPECT_EQ(m.samples[3].clock->sm_mhz, 1980);
  EXPECT_EQ(m.samples[3].clock->throttle_reasons, 0x1u);
  const Summary s = summarize(m.samples, m.method, 0);
  ASSERT_TRUE(s.clock.has_value());
  // Samples 1 and 2: 1755 MHz is below 95% of the row's highest clock, 1980.
  EXPECT_EQ(s.clock->flagged, 2u);
  EXPECT_EQ(s.clock->sw_power_cap, 2u);
  EXPECT_DOUBLE_EQ(s.clock->median_mhz, (1755.0 + 1980.0) / 2);
}

TEST(Driver, ABackendThatReadsNoClockLeavesSamplesUnread) {
  FakeBackend b;
  const Measurement m = measure(b, Call{[] {}, {}}, MeasureOptions{Budget{0, 0, 4, 4}, false});
  for (const Sample& s : m.samples) EXPECT_FALSE(s.clock.has_value());
  const Summary s = summarize(m.samples, m.method, 0);
  EXPECT_FALSE(s.clock.has_value());  // unknown, not zero
}

// P6: compare() times the scaled work after every pass, with the implementation's reset.
TEST(Compare, TheNullTestRunsTheScaledWorkAfterThePasses) {
  FakeBackend b;
  std::vector<int> ks;
  int resets = 0;
  Implementation scalable("a", Call{[] {}, [&] { ++resets; }}, {}, [&](int k) { ks.push_back(k); });
  CompareOptions o;
  o.budget = Budget{0, 0, 2, 2};
  const std::vector<Measurement> out = compare(b, {scalable}, o);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].null_test.has_value());
  EXPECT_EQ(out[0].null_test->scale, kNullTestScale);
  EXPECT_FALSE(ks.empty());
  for (int k : ks) EXPECT_EQ(k, kNullTestScale);
  // Calibration, warm-up and measurement of the scaled call, each with its reset.
  EXPECT_EQ(out[0].null_test->scaled_ns.size(),
            iterations_for(kNullTestBudget.measure_ns, b.kernel_ns, kNullTestBudget.min_iterations,
                           kNullTestBudget.max_iterations));
  EXPECT_GE(resets, static_cast<int>(ks.size()));
  // The fake's kernel takes 1 ms whatever the scale: this harness would fail its null test.
  Result r;
  r.row = {"c", {}, "a"};
  r.measurement = out[0];
  summarize_result(r, Ceilings{});
  EXPECT_TRUE(r.null_test_failed());
}

TEST(Driver, ACallThatThrowsAbandonsThePhaseAndNamesTheStep) {
  FakeBackend b;
  try {
    (void)measure(b, Call{[] { throw std::runtime_error("boom"); }, {}});
    FAIL() << "no error";
  } catch (const UserCodeError& e) {
    // The user's code threw, not the device: the exception's type and message, and the step.
    EXPECT_EQ(e.step(), "iteration 0, the measured call");
    EXPECT_EQ(e.type(), "std::runtime_error");
    EXPECT_EQ(e.message(), "boom");
    EXPECT_NE(std::string(e.what()).find(
                  "iteration 0, the measured call threw std::runtime_error: boom; no number"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(b.abandoned, 1);
}

TEST(Driver, AResetThatThrowsLaterNamesItsIteration) {
  FakeBackend b;
  int resets = 0;
  try {
    (void)measure(b, Call{[] {},
                          [&] {
                            if (++resets == 3) throw std::logic_error("third reset");
                          }});
    FAIL() << "no error";
  } catch (const UserCodeError& e) {
    EXPECT_EQ(e.step(), "iteration 2, the call's reset");
    EXPECT_EQ(e.type(), "std::logic_error");
  }
  EXPECT_EQ(b.abandoned, 1);
}

// The one rule for what code of the user's throws.
TEST(UserCode, AnythingButAGpumeterErrorIsUserCodeErrorWithItsTypeAndMessage) {
  struct Custom {};
  const auto thrown = [](const std::function<void()>& f) -> std::optional<UserCodeError> {
    try {
      run_user_code("the step", f);
    } catch (const UserCodeError& e) {
      return e;
    }
    return std::nullopt;
  };
  std::optional<UserCodeError> e = thrown([] { throw std::runtime_error("boom"); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->step(), "the step");
  EXPECT_EQ(e->type(), "std::runtime_error");
  EXPECT_EQ(e->message(), "boom");
  EXPECT_EQ(std::string(e->what()).rfind("the step threw std::runtime_error: boom; ", 0), 0u)
      << e->what();
  e = thrown([] { throw std::out_of_range("past the end"); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->type(), "std::out_of_range");  // the dynamic type, not the handler's
  e = thrown([] { throw 42; });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->type(), "int");
  EXPECT_EQ(e->message(), "");
  EXPECT_EQ(std::string(e->what()).rfind("the step threw int; ", 0), 0u) << e->what();
  e = thrown([] { throw Custom{}; });
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(e->type().find("Custom"), std::string::npos) << e->type();
  // A binding's translation (a Python exception) gets the step here.
  e = thrown([] { throw UserCodeError("ValueError", "nope"); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->step(), "the step");
  EXPECT_EQ(e->type(), "ValueError");
  EXPECT_EQ(e->message(), "nope");
  // One that already names its step keeps it.
  e = thrown([] { throw UserCodeError("inner step", "ValueError", "nope"); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->step(), "inner step");
  // gpumeter's own errors keep their cause.
  EXPECT_THROW(run_user_code("s", [] { throw VerificationFailed("wrong"); }), VerificationFailed);
  EXPECT_THROW(run_user_code("s", [] { throw DeviceError("cudaErrorX"); }), DeviceError);
  EXPECT_NO_THROW(run_user_code("s", [] {}));
}

TEST(Driver, TheTimestampStepIsReadFromTheDurations) {
  using detail::estimate_tick;
  // CUPTI on the H200: multiples of 32 ns, give or take 1 ns of conversion jitter.
  std::vector<Nanos> cupti;
  for (int i = 0; i < 300; ++i) cupti.push_back(32 * (17 + i % 5) + (i % 3) - 1);
  EXPECT_EQ(estimate_tick(cupti), 32);
  // A tenth of the readings off the grid (another clock's activities) still reads 32.
  for (int i = 0; i < 30; ++i) cupti[static_cast<std::size_t>(i * 10)] += 13;
  EXPECT_EQ(estimate_tick(cupti), 32);
  // A host clock: no step.
  std::vector<Nanos> host;
  for (int i = 0; i < 300; ++i) host.push_back(60000 + (i * 7919) % 4099);
  EXPECT_EQ(estimate_tick(host), 1);
  // Equal durations fit every divisor and say nothing; too few say nothing either.
  EXPECT_EQ(estimate_tick(std::vector<Nanos>(100, 544)), 1);
  EXPECT_EQ(estimate_tick({544, 576, 608}), 1);
}

TEST(Measure, CalibrateWarmUpMeasureWithBudgetedCounts) {
  FakeBackend b;  // 1 ms per call: 25 warm-up and 100 measured iterations
  int runs = 0;
  const Measurement m = measure(b, Call{[&] { ++runs; }, {}});
  ASSERT_EQ(b.phases.size(), 2u);  // calibration, then the warm-up and the measured iterations
  EXPECT_EQ(b.phases[0].iterations, 3u);
  EXPECT_EQ(b.phases[1].iterations, 125u);
  EXPECT_EQ(runs, 128);
  EXPECT_EQ(m.samples.size(), 100u);
  EXPECT_EQ(m.estimate_ns, 1 * kMillisecond);
  EXPECT_EQ(m.warmup_iterations, 25u);
  EXPECT_EQ(m.measure_iterations, 100u);
  EXPECT_EQ(m.retries, 0);
  EXPECT_EQ(m.samples[0].device_busy_ns, 1 * kMillisecond);
}

TEST(Measure, LostRecordsRetryThePhaseWithLargerBuffers) {
  FakeBackend b;
  b.drop_until_attempt = 2;  // every phase loses records twice, then succeeds
  const Measurement m = measure(b, Call{[] {}, {}});
  EXPECT_EQ(m.retries, 4);  // 2 in each of the 2 phases
  ASSERT_EQ(b.phases.size(), 6u);
  EXPECT_EQ(b.phases[0].attempt, 0);
  EXPECT_EQ(b.phases[1].attempt, 1);
  EXPECT_EQ(b.phases[2].attempt, 2);
  EXPECT_EQ(m.samples.size(), 100u);
}

// T14: a clock changed during a phase is transient (another client registered one just before):
// the phase is repeated like one that lost records, and refused the third time.
TEST(Measure, AClockChangedInAPhaseRepeatsThePhase) {
  FakeBackend b;
  b.clock_changed_until_attempt = 2;
  const Measurement m = measure(b, Call{[] {}, {}}, MeasureOptions{Budget{0, 0, 4, 4}, false});
  EXPECT_EQ(m.samples.size(), 4u);
  EXPECT_EQ(m.retries, 4);  // two repeats in each of the two phases
  EXPECT_EQ(b.abandoned, 4);
  FakeBackend never;
  never.clock_changed_until_attempt = kMaxPhaseAttempts;
  EXPECT_THROW((void)measure(never, Call{[] {}, {}}), TimestampUnitMismatch);
  EXPECT_EQ(never.phases.size(), static_cast<std::size_t>(kMaxPhaseAttempts));
}

TEST(Measure, LostRecordsThreeTimesFailsClosed) {
  FakeBackend b;
  b.drop_until_attempt = 3;
  try {
    (void)measure(b, Call{[] {}, {}});
    FAIL() << "no error";
  } catch (const RecordsLost& e) {
    EXPECT_EQ(e.attempts(), kMaxPhaseAttempts);
    EXPECT_EQ(e.dropped(), 5u);
  }
  EXPECT_EQ(b.phases.size(), 3u);  // the calibration phase, three attempts, then stop
}

TEST(Compare, MirroredOrderTwoPassesMerged) {
  FakeBackend b;
  std::string order;
  std::vector<Implementation> impls{{"A", Call{[&] { order += 'A'; }, {}}, {}},
                                    {"B", Call{[&] { order += 'B'; }, {}}, {}},
                                    {"C", Call{[&] { order += 'C'; }, {}}, {}}};
  const auto out = compare(b, impls);
  // One untimed verification call each, then per pass: 3 + 12 (12.5 ms / 1 ms) + 50 calls; a
  // second pass reuses its implementation's first estimate and runs no calibration.
  std::string expected = "ABC";
  for (char c : std::string("ABC")) expected += std::string(65, c);
  for (char c : std::string("CBA")) expected += std::string(62, c);
  EXPECT_EQ(order, expected);
  ASSERT_EQ(out.size(), 3u);
  for (const Measurement& m : out) {
    EXPECT_EQ(m.samples.size(), 100u);  // 50 per pass, merged
    EXPECT_EQ(m.pass_sizes, (std::vector<std::size_t>{50, 50}));
    EXPECT_EQ(m.measure_iterations, 100u);
    EXPECT_EQ(m.warmup_iterations, 24u);
  }
}

TEST(Compare, ToATargetPrecisionRunsMirroredRoundsAndRecordsWhy) {
  FakeBackend b;  // every reading the same: the spread is nil, so the minimum rounds suffice
  std::string order;
  std::vector<Implementation> impls{{"A", Call{[&] { order += 'A'; }, {}}, {}},
                                    {"B", Call{[&] { order += 'B'; }, {}}, {}}};
  CompareOptions o;
  o.precision = PrecisionTarget{0.02, 10 * kSecond};
  const auto out = compare(b, impls, o);
  // Untimed verification, then two rounds of A B B A, each pass 3 + 5 (5 ms / 1 ms) + 25 calls,
  // the 3 of calibration in each implementation's first pass only.
  std::string expected = "AB" + std::string(33, 'A') + std::string(33, 'B');
  for (char c : std::string("BAABBA")) expected += std::string(30, c);
  EXPECT_EQ(order, expected);
  ASSERT_EQ(out.size(), 2u);
  for (const Measurement& m : out) {
    EXPECT_EQ(m.pass_sizes, (std::vector<std::size_t>(4, 25)));
    ASSERT_TRUE(m.precision.has_value());
    EXPECT_EQ(m.precision->stopped, StopReason::target_reached);
    EXPECT_EQ(m.precision->passes, 4);
    EXPECT_DOUBLE_EQ(m.precision->target, 0.02);
    EXPECT_LE(m.precision->reached, 0.02);
  }
  // Without a target, nothing is recorded about one.
  EXPECT_FALSE(compare(b, impls)[0].precision.has_value());
  // A target out of range is the user's mistake, named before anything runs.
  o.precision = PrecisionTarget{0.5e-3, 10 * kSecond};
  order.clear();
  EXPECT_THROW((void)compare(b, impls, o), ConfigError);
  EXPECT_TRUE(order.empty());
}

TEST(Measure, ToATargetPrecisionStopsOnTheLevelsHalfWidth) {
  FakeBackend b;
  const Measurement m = measure_to_precision(b, Call{[] {}, {}}, PrecisionTarget{0.01, kSecond});
  ASSERT_TRUE(m.precision.has_value());
  EXPECT_EQ(m.precision->passes, 4);
  EXPECT_EQ(m.pass_sizes.size(), 4u);
  EXPECT_EQ(m.precision->stopped, StopReason::target_reached);
  EXPECT_THROW((void)measure_to_precision(b, Call{[] {}, {}}, PrecisionTarget{0.01, 0}),
               ConfigError);
}

TEST(Compare, PassBoundsAreHalved) {
  FakeBackend b;
  b.kernel_ns = 100 * kMillisecond;  // long call: the lower bound, halved to 5
  const auto out = compare(b, {{"A", Call{[] {}, {}}, {}}});
  EXPECT_EQ(out[0].samples.size(), 10u);  // 5 per pass
  b.kernel_ns = 1 * kMicrosecond;         // short call: the upper bound, halved to 100
  const auto fast = compare(b, {{"A", Call{[] {}, {}}, {}}});
  EXPECT_EQ(fast[0].samples.size(), 200u);
}

TEST(Compare, MixedTimingMethodsRefused) {
  Measurement a, b;
  a.method = TimingMethod::kernel_records;
  b.method = TimingMethod::device_events;
  a.samples = {{1, 1, 1, 0}};
  b.samples = {{2, 2, std::nullopt, 0}};
  EXPECT_THROW((void)merge_passes({a, b}), MixedTimingMethods);
  EXPECT_EQ(merge_passes({a, a}).samples.size(), 2u);
}

TEST(Compare, VerificationFailureStopsBeforeTiming) {
  FakeBackend b;
  std::vector<Implementation> impls{
      {"good", Call{[] {}, {}}, [] {}},
      {"bad", Call{[] {}, {}}, [] { throw VerificationFailed("bad: max error 0.5"); }}};
  EXPECT_THROW((void)compare(b, impls), VerificationFailed);
  EXPECT_TRUE(b.phases.empty());
}

TEST(Compare, AnExceptionInTheUntimedCheckIsUserCodeErrorNamingTheImplementation) {
  for (const std::string where : {"reset", "call", "check"}) {
    FakeBackend b;
    const auto boom = [where](const std::string& here) {
      return [where, here] {
        if (where == here) throw std::runtime_error("in the " + here);
      };
    };
    std::vector<Implementation> impls{{"good", Call{[] {}, {}}, [] {}},
                                      {"bad", Call{boom("call"), boom("reset")}, boom("check")}};
    try {
      (void)compare(b, impls);
      FAIL() << where << ": no error";
    } catch (const UserCodeError& e) {
      const std::string step = where == "reset"  ? "the reset before its untimed call"
                               : where == "call" ? "its untimed call before timing"
                                                 : "its output check";
      EXPECT_EQ(e.step(), "implementation 'bad', " + step);
      EXPECT_EQ(e.type(), "std::runtime_error");
      EXPECT_EQ(e.message(), "in the " + where);
    }
    EXPECT_TRUE(b.phases.empty()) << where << ": something was timed";
  }
}

TEST(Compare, AnExceptionInAMeasuredCallNamesTheImplementation) {
  FakeBackend b;
  int calls = 0;
  std::vector<Implementation> impls{{"A", Call{[] {}, {}}, {}},
                                    {"B",
                                     Call{[&] {
                                            if (++calls == 3)
                                              throw std::runtime_error("third call");
                                          },
                                          {}},
                                     {}}};
  try {
    (void)compare(b, impls);
    FAIL() << "no error";
  } catch (const UserCodeError& e) {
    // Call 1 was the untimed check; 2 and 3 the first two of B's calibration.
    EXPECT_EQ(e.step(), "implementation 'B', iteration 1, the measured call");
    EXPECT_EQ(e.message(), "third call");
  }
  EXPECT_EQ(b.abandoned, 1);
}

TEST(Compare, AFingerprintThatThrowsIsUserCodeError) {
  FakeBackend b;
  CompareOptions opt;
  int prints = 0;
  opt.inputs_fingerprint = [&]() -> std::size_t {
    if (++prints == 2) throw std::runtime_error("cannot read the inputs");
    return 0;
  };
  try {
    (void)compare(b, {{"A", Call{[] {}, {}}, {}}}, opt);
    FAIL() << "no error";
  } catch (const UserCodeError& e) {
    EXPECT_EQ(e.step(), "the fingerprint of the shared inputs, after implementation 'A'");
  }
}

TEST(Compare, SharedInputsModifiedStopsBeforeTiming) {
  FakeBackend b;
  std::vector<int> shared{1, 2, 3};
  std::vector<Implementation> impls{{"reads", Call{[&] { (void)shared[0]; }, {}}, {}},
                                    {"writes", Call{[&] { shared[0] += 1; }, {}}, {}}};
  CompareOptions opt;
  opt.inputs_fingerprint = [&] { return static_cast<std::size_t>(shared[0]); };
  try {
    (void)compare(b, impls, opt);
    FAIL() << "no error";
  } catch (const InputsModified& e) {
    EXPECT_NE(std::string(e.what()).find("writes"), std::string::npos);
  }
  EXPECT_TRUE(b.phases.empty());
}

TEST(Compare, PrivateCopyRestoredByResetIsAccepted) {
  FakeBackend b;
  std::vector<int> shared{1, 2, 3};
  std::vector<int> mine;
  std::vector<Implementation> impls{
      {"in-place", Call{[&] { mine[0] += 1; }, [&] { mine = shared; }}, {}}};
  CompareOptions opt;
  opt.inputs_fingerprint = [&] { return static_cast<std::size_t>(shared[0]); };
  EXPECT_EQ(compare(b, impls, opt)[0].samples.size(), 100u);
}

TEST(Compare, DuplicateNamesRefused) {
  FakeBackend b;
  EXPECT_THROW((void)compare(b, {{"A", Call{[] {}, {}}, {}}, {"A", Call{[] {}, {}}, {}}}),
               ConfigError);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
