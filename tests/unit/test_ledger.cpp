// B11 in the core: fresh inputs and answers checked while timed (the driver's order), the ledger's
// counts, canaries and kernel launches that prove collection was on, and copies that cannot hide
// work in a comparison. Synthetic traces and a fake backend: no GPU.
#include "gpumeter/detail/ledger.hpp"

#include <gtest/gtest.h>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "attribute.hpp"
#include "driver.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/record.hpp"
#include "trace_builder.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using testing::TraceBuilder;

// One kernel per iteration, a canary per preparation and one at the close, as the CUDA backend
// launches them; `stop_after` drops every record after that many canaries (collection switched
// off), `hide_kernel_of` leaves that iteration's launch without its kernel record.
class LedgerBackend final : public Backend {
 public:
  std::string steps;
  std::optional<std::size_t> stop_after;
  std::optional<std::size_t> hide_kernel_of;
  std::uint64_t dropped = 0;  // what CUPTI's counter reports in every attempt

  TimingMethod method() const override { return TimingMethod::kernel_records; }
  DeviceIdentity device() const override { return DeviceIdentity{}; }
  void open_phase(const PhaseRequest&) override {
    trace_ = Trace{};
    trace_.dropped_records = dropped;
    trace_.canary_name = "canary";
    trace_.kernel_launches.emplace();
    clock_ = 0;
    steps += 'O';
  }
  void begin_prepare(std::size_t) override {
    steps += 'p';
    canary();
  }
  void end_prepare(std::size_t) override { steps += 'q'; }
  void begin_iteration(std::size_t) override { steps += 'i'; }
  void end_iteration(std::size_t i) override {
    steps += 'j';
    const std::uint64_t corr = next_++;
    trace_.external_id_of[corr] = i;
    trace_.kernel_launches->push_back(KernelLaunch{corr, true});
    if (hide_kernel_of == i || stopped()) return;
    add(corr, ActivityKind::kernel, "work");
  }
  Trace close_phase() override {
    canary();
    steps += 'C';
    return trace_;
  }
  void abandon_phase() noexcept override { steps += 'A'; }
  void drain(std::size_t, const char*) override { steps += 'd'; }
  void synchronize(const char*) override { steps += 's'; }
  void clear_cache(std::size_t) override { steps += 'f'; }
  void after_user_code(std::size_t, const char*) override { steps += 'u'; }
  std::optional<ClockReading> read_clock() override { return std::nullopt; }

 private:
  bool stopped() const { return stop_after && trace_.canaries_launched > *stop_after; }
  void canary() {
    ++trace_.canaries_launched;
    const std::uint64_t corr = next_++;
    trace_.external_id_of[corr] = kPrepareId;
    if (!stopped()) add(corr, ActivityKind::kernel, "canary");
  }
  void add(std::uint64_t corr, ActivityKind kind, std::string name) {
    Activity a;
    a.kind = kind;
    a.start_ns = clock_;
    a.end_ns = clock_ + 1000;
    a.correlation_id = corr;
    a.name = std::move(name);
    trace_.activities.push_back(a);
    clock_ += 2000;
  }
  Trace trace_;
  Nanos clock_ = 0;
  std::uint64_t next_ = 1;
};

const MeasureOptions kFour{Budget{0, 0, 4, 4}, false};

TEST(FreshInputs, EachCallGetsNewInputsUnderThePrepareLabelAndItsAnswerIsChecked) {
  LedgerBackend b;
  std::vector<std::uint64_t> prepared;
  std::vector<std::uint64_t> checked;
  Call call{[&] { b.steps += 'R'; },
            {},
            [&](std::uint64_t seed) {
              prepared.push_back(seed);
              b.steps += 'g';
            },
            [&](std::uint64_t seed) {
              checked.push_back(seed);
              b.steps += 'c';
            }};
  const Measurement m = measure(b, call, kFour);
  // Every seed is new; each check reads the seed of the call just made.
  EXPECT_EQ(std::set<std::uint64_t>(prepared.begin(), prepared.end()).size(), prepared.size());
  for (std::uint64_t s : checked) {
    EXPECT_NE(std::find(prepared.begin(), prepared.end(), s), prepared.end());
  }
  // The order of one checked iteration: fresh inputs inside the prepare label, before the flush;
  // the check after the call's drain, in a prepare label of its own, then drained.
  EXPECT_NE(b.steps.find("pgufqdiRjudpcuqd"), std::string::npos);
  EXPECT_EQ(m.ledger.fresh_inputs, prepared.size());
  EXPECT_EQ(m.ledger.checked_iterations, checked.size());
  EXPECT_EQ(m.ledger.iterations, 3u + 4u + 4u);
  EXPECT_EQ(m.ledger.fresh_inputs, m.ledger.iterations);
  EXPECT_GE(m.ledger.checked_iterations, 3u);  // at least one a phase
}

TEST(FreshInputs, AWrongAnswerWhileTimedIsVerificationFailedNamingTheIteration) {
  LedgerBackend b;
  int calls = 0;
  // Right for the first three calls (the calibration), then remembered: wrong from the fourth.
  Call call{[&] { ++calls; },
            {},
            [](std::uint64_t) {},
            [&](std::uint64_t) {
              if (calls > 3) throw VerificationFailed("output differs from the reference's");
            }};
  try {
    (void)measure(b, call, kFour);
    FAIL() << "a wrong answer while timed was not refused";
  } catch (const VerificationFailed& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("iteration "), std::string::npos) << what;
    EXPECT_NE(what.find("checked while timed"), std::string::npos) << what;
    EXPECT_NE(what.find("output differs"), std::string::npos) << what;
  }
  EXPECT_NE(b.steps.find('A'), std::string::npos);  // the phase was abandoned
}

TEST(FreshInputs, TheUntimedCallBeforeTimingGetsFreshInputsAndItsCheck) {
  LedgerBackend b;
  std::uint64_t seed = 0;
  std::uint64_t checked = 1;
  Implementation impl{
      "a",
      Call{[] {}, {}, [&](std::uint64_t s) { seed = s; }, [&](std::uint64_t s) { checked = s; }}};
  verify_untimed(b, impl);
  EXPECT_EQ(seed, checked);
}

TEST(CheckProbability, EveryIterationWhileChecksAreCheapASampleOtherwise) {
  EXPECT_DOUBLE_EQ(check_probability(1000, 0), 1.0);      // no check timed yet
  EXPECT_DOUBLE_EQ(check_probability(1000, 100), 1.0);    // a tenth of an iteration
  EXPECT_DOUBLE_EQ(check_probability(1000, 500), 1.0);    // half: still every iteration
  EXPECT_DOUBLE_EQ(check_probability(1000, 2000), 0.25);  // twice an iteration
  EXPECT_DOUBLE_EQ(check_probability(1000, 1e9), kLeastCheckShare);
}

TEST(CheckProbability, ExpensiveChecksAreSampledAndEveryPhaseChecksAtLeastOne) {
  LedgerBackend b;
  std::size_t n = 0;
  // A check that costs far more than a call (a busy wait of 2 ms against a call of none).
  Call call{[] {},
            {},
            [](std::uint64_t) {},
            [&](std::uint64_t) {
              ++n;
              const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
              while (std::chrono::steady_clock::now() < until) {
              }
            }};
  const Measurement m = measure(
      b, call, MeasureOptions{Budget{0, 0, 64, 64}, false});  // 3, then 64 + 64 in one phase
  EXPECT_EQ(m.ledger.checked_iterations, n);
  EXPECT_GE(n, 3u);
  // Sampled: at 1/16 over 128 iterations about 8, far from all of them (a loaded machine only
  // makes the calls longer, which raises the share; the bound holds at any share below 1).
  EXPECT_LT(n, 3u + 128u);
}

TEST(Ledger, CountsEveryRecordAsAnIterationsOrTheHarnesss) {
  LedgerBackend b;
  const Measurement m = measure(b, Call{[] {}}, kFour);
  EXPECT_EQ(m.ledger.iteration_records, 11u);       // one kernel per iteration
  EXPECT_EQ(m.ledger.canaries_launched, 11u + 2u);  // and one after each of the two phases
  EXPECT_EQ(m.ledger.canaries_seen, m.ledger.canaries_launched);
  EXPECT_EQ(m.ledger.harness_records, m.ledger.canaries_launched);
  EXPECT_EQ(m.ledger.unaccounted_records, 0u);
  EXPECT_EQ(m.ledger.fresh_inputs, 0u);
  Ledger sum = m.ledger;
  sum += m.ledger;
  EXPECT_EQ(sum.iteration_records, 22u);
}

TEST(Canary, CollectionSwitchedOffDuringThePhaseIsCollectionStopped) {
  LedgerBackend b;
  b.stop_after = 2;  // the records stop after the second canary: iteration 1's call disabled them
  try {
    (void)measure(b, Call{[] {}}, kFour);
    FAIL() << "a phase whose collection stopped was measured";
  } catch (const CollectionStopped& e) {
    EXPECT_NE(std::string(e.what()).find("2 of the 4 canary kernels"), std::string::npos)
        << e.what();
  }
}

// Seen on the H200: a call that switches kernel records off while its kernel runs makes CUPTI
// count that record as dropped. Losses that three attempts with larger buffers did not cure, with
// canaries missing, are the call's doing; with every canary there, they are lost records.
TEST(Canary, LossesThatPersistWithCanariesMissingAreCollectionStopped) {
  LedgerBackend b;
  b.stop_after = 2;
  b.dropped = 3;
  EXPECT_THROW((void)measure(b, Call{[] {}}, kFour), CollectionStopped);
  LedgerBackend lossy;
  lossy.dropped = 3;
  EXPECT_THROW((void)measure(lossy, Call{[] {}}, kFour), RecordsLost);
}

TEST(Canary, AKernelLaunchWithoutItsKernelRecordIsCollectionStopped) {
  LedgerBackend b;
  b.hide_kernel_of = 1;  // the call switched kernel records off around one launch, then on
  try {
    (void)measure(b, Call{[] {}}, kFour);
    FAIL() << "a launch whose kernel went unrecorded was measured";
  } catch (const CollectionStopped& e) {
    EXPECT_NE(std::string(e.what()).find("iteration 1 made 1 kernel launches"), std::string::npos)
        << e.what();
  }
}

TEST(Canary, ALaunchSeenThroughBothApisNeedsOneKernel) {
  // A runtime launch that CUPTI also reports as the driver call under it: one kernel.
  Trace t = TraceBuilder().launch(0, 0, 100).build();
  const std::uint64_t corr = t.activities[0].correlation_id;
  t.kernel_launches = std::vector<KernelLaunch>{{corr, true}, {corr + 100, false}};
  t.external_id_of[corr + 100] = 0;
  EXPECT_NO_THROW(check_collection(t, 1));
  t.kernel_launches->push_back(KernelLaunch{corr + 200, true});  // a second runtime launch
  t.external_id_of[corr + 200] = 0;
  EXPECT_THROW(check_collection(t, 1), CollectionStopped);
}

// A trace of one iteration: a canary (harness) at [0, 2 us], the call's launch returning at
// `returned`, its kernel at [start, start + 5 us]; `busy` adds a recorded harness kernel.
Trace launched(Nanos returned, Nanos start, std::optional<Interval> busy = std::nullopt) {
  TraceBuilder t;
  t.launch(kPrepareId, 0, 2000, ActivityKind::kernel, "canary");
  if (busy) t.launch(kPrepareId, busy->start_ns, busy->end_ns, ActivityKind::kernel, "flush");
  t.launch(0, start, start + 5000, ActivityKind::kernel, "work");
  Trace trace = t.build();
  const std::uint64_t corr = trace.activities.back().correlation_id;
  trace.kernel_launches = std::vector<KernelLaunch>{{corr, true, returned}};
  return trace;
}

TEST(HiddenWork, AKernelThatWaitedWhileNothingRecordedRanIsUnaccountedWork) {
  // Launched at 10 us, started at 210 us: 200 us of device time nobody recorded (a 196 us GEMM
  // launched with the records switched off, then a tiny kernel after it).
  try {
    (void)attribute(launched(10'000, 210'000), 1);
    FAIL() << "200 us of hidden work was timed";
  } catch (const UnaccountedWork& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("iteration 0: kernel 'work' started 200 us after its launch"),
              std::string::npos)
        << what;
  }
}

TEST(HiddenWork, ADelayWhileRecordedWorkRanOrWithinTheLaunchLatencyIsNone) {
  EXPECT_NO_THROW((void)attribute(launched(10'000, 25'000), 1));  // 15 us: a launch's latency
  // 200 us late, but recorded work ran for all but 30 us of it.
  EXPECT_NO_THROW((void)attribute(launched(10'000, 210'000, Interval{40'000, 205'000}), 1));
  // 200 us late with 100 us of it idle: hidden.
  EXPECT_THROW((void)attribute(launched(10'000, 210'000, Interval{110'000, 205'000}), 1),
               UnaccountedWork);
  // Unknown return time, or a shared device: not judged.
  EXPECT_NO_THROW((void)attribute(launched(0, 210'000), 1));
  Trace shared = launched(10'000, 210'000);
  shared.device_shared = true;
  EXPECT_NO_THROW((void)attribute(shared, 1));
}

TEST(Canary, LostRecordsAreJudgedFirst) {
  Trace t = TraceBuilder().launch(0, 0, 100).dropped(3).build();
  t.canary_name = "canary";
  t.canaries_launched = 2;  // none seen: but records were lost, so this may be their loss
  EXPECT_THROW((void)attribute(t, 1), RecordsLost);
  t.dropped_records = 0;
  EXPECT_THROW((void)attribute(t, 1), CollectionStopped);
}

// The messages name the collector as its trace does, never a vendor of the core's choosing.
TEST(Canary, LostAndStoppedRecordsAreNamedAsTheCollectorNamesThem) {
  Trace t = TraceBuilder().launch(0, 0, 100).dropped(3).build();
  t.canary_name = "canary";
  t.canaries_launched = 2;
  t.names.tool = "the replay";
  t.names.switched_off_by = "replay_off()";
  const auto message = [&t] {
    try {
      (void)attribute(t, 1);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("nothing thrown");
  };
  EXPECT_EQ(message().rfind("the replay dropped 3 activity record(s)", 0), 0u) << message();
  t.dropped_records = 0;
  EXPECT_NE(message().find("Code in the process switched the replay's activity records off "
                           "(replay_off()) or took them"),
            std::string::npos)
      << message();
  t.names = CollectorNames{};
  EXPECT_NE(message().find("switched the collector's activity records off or took them"),
            std::string::npos)
      << message();
}

Result row(const std::string& impl, double busy_ns, double copy_ns, bool count_copies = false) {
  Result r;
  r.row.case_name = "gelu";
  r.row.implementation = impl;
  r.count_copies = count_copies;
  r.measurement.method = TimingMethod::kernel_records;
  r.measurement.timestamp_tick_ns = 32;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 50; ++i) {
      const Nanos b = static_cast<Nanos>(busy_ns) + 32 * ((i + pass) % 3);
      r.measurement.samples.push_back(Sample(b, b, 1, static_cast<Nanos>(copy_ns)));
    }
    r.measurement.pass_sizes.push_back(50);
  }
  r.summary = summarize(r.measurement.samples, r.measurement.method, 0);
  return r;
}

TEST(CopiesCannotHideWork, ACandidateThatCopiesItsAnswerInIsNotComparedByDeviceTime) {
  // An honest gelu(a @ b) of 196 us against a tiny kernel plus a 40 us copy of a stored answer.
  const Comparison c = compare_rows(row("honest", 196000, 0), row("copied", 1000, 40000));
  EXPECT_FALSE(c.compared());
  EXPECT_FALSE(c.difference.has_value());
  EXPECT_NE(c.refusal.find("uncounted copies differ"), std::string::npos) << c.refusal;
  EXPECT_NE(c.refusal.find("copied copies 40.0 us per call"), std::string::npos) << c.refusal;
  EXPECT_NE(c.refusal.find("count_copies"), std::string::npos) << c.refusal;
}

TEST(CopiesCannotHideWork, EqualCopiesOrCountedCopiesAreCompared) {
  EXPECT_TRUE(compare_rows(row("a", 196000, 5000), row("b", 150000, 5000)).compared());
  EXPECT_TRUE(compare_rows(row("a", 196000, 0, true), row("b", 41000, 40000, true)).compared());
  // A copy difference within one tick is no difference.
  EXPECT_TRUE(compare_rows(row("a", 196000, 0), row("b", 150000, 20)).compared());
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
