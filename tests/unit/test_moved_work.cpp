// B11, issue 38: no candidate work outside its timed call can count for it. The harness's work by
// role in the ledger (fresh inputs, resets, checks), the rule of work moved into them, seeds drawn
// from the OS, work moved between calls, comparisons that say whether their inputs were fresh,
// other processes on the device, tolerances that can make a verdict, one table of error classes,
// and the verdict on a candidate made from records. Synthetic traces and results: no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attribute.hpp"
#include "driver.hpp"
#include "gpumeter/candidate_verdict.hpp"
#include "gpumeter/checker_account.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/error_class.hpp"
#include "gpumeter/detail/ledger.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// A backend that records one kernel per call and labels the harness's work by role, as the CUPTI
// backend does: each role's work is one activity of the given length, `check_extra_ns` more in
// every check (a result that computes when the check reads it).
class RoleBackend final : public Backend {
 public:
  Nanos inputs_ns = 3000;
  Nanos check_ns = 8000;
  Nanos check_extra_ns = 0;
  Nanos call_ns = 1000;
  std::vector<std::vector<DeviceProcess>> processes;  // what new_device_processes answers, in turn
  std::size_t process_reads = 0;

  TimingMethod method() const override { return TimingMethod::kernel_records; }
  DeviceIdentity device() const override { return DeviceIdentity{}; }
  void open_phase(const PhaseRequest&) override { trace_ = Trace{}; }
  void begin_prepare(std::size_t) override { role_ = HarnessRole::own; }
  void label_prepare(HarnessRole role) override { role_ = role; }
  void end_prepare(std::size_t) override {}
  void begin_iteration(std::size_t i) override { add(i, call_ns); }
  void end_iteration(std::size_t) override {}
  Trace close_phase() override { return trace_; }
  void abandon_phase() noexcept override {}
  void drain(std::size_t, const char*) override {}
  void synchronize(const char*) override {}
  void clear_cache(std::size_t) override {}
  void after_user_code(std::size_t, const char* what) override {
    // The user code that just ran launched its work under the current label.
    const std::string w = what;
    if (w == "the call's fresh inputs") add(harness_id(role_), inputs_ns);
    if (w == "the check of its answer") add(harness_id(role_), check_ns + check_extra_ns);
  }
  std::optional<std::vector<DeviceProcess>> new_device_processes() override {
    if (processes.empty()) return std::nullopt;
    const std::size_t k = std::min(process_reads++, processes.size() - 1);
    return processes[k];
  }

 private:
  void add(std::uint64_t id, Nanos ns) {
    Activity a;
    a.kind = ActivityKind::kernel;
    a.start_ns = clock_;
    a.end_ns = clock_ + ns;
    a.correlation_id = next_++;
    a.name = "k";
    trace_.external_id_of[a.correlation_id] = id;
    trace_.activities.push_back(a);
    clock_ += ns + 100;
  }
  Trace trace_;
  HarnessRole role_ = HarnessRole::own;
  Nanos clock_ = 0;
  std::uint64_t next_ = 1;
};

const MeasureOptions kEight{Budget{0, 0, 8, 8}, false};

Call checked_call() {
  return Call{[] {}, {}, [](std::uint64_t) {}, [](std::uint64_t) {}};
}

Result result_of(const std::string& impl, const Measurement& m) {
  Result r;
  r.row = {"gelu", {}, impl};
  r.measurement = m;
  r.summary = summarize(m.samples, m.method, 0);
  return r;
}

// Two passes of one implementation measured on `b`, as compare() merges them.
Measurement two_passes(RoleBackend& b) {
  const Call call = checked_call();
  return merge_passes({measure(b, call, kEight), measure(b, call, kEight)});
}

TEST(HarnessRoles, TheLedgerKeepsWhatFreshInputsAndChecksCostTheDevice) {
  RoleBackend b;
  const Measurement m = measure(b, checked_call(), kEight);
  const Ledger& l = m.ledger;
  EXPECT_EQ(l.fresh_inputs, l.iterations);
  EXPECT_EQ(l.inputs_records, l.fresh_inputs);
  EXPECT_EQ(l.inputs_busy_ns, static_cast<std::int64_t>(l.fresh_inputs) * 3000);
  ASSERT_GT(l.checked_iterations, 0u);
  EXPECT_EQ(l.check_records, l.checked_iterations);
  EXPECT_EQ(l.check_busy_ns, static_cast<std::int64_t>(l.checked_iterations) * 8000);
  EXPECT_EQ(l.reset_records, 0u);
  EXPECT_EQ(l.harness_records, l.inputs_records + l.check_records);
  // The call's samples hold the call's work alone.
  for (const Sample& s : m.samples) EXPECT_EQ(s.device_busy_ns, 1000);
}

TEST(MovedWork, WorkDoneWhileTheAnswerIsCheckedRefusesTheComparison) {
  RoleBackend ref;
  RoleBackend lazy;
  lazy.call_ns = 100;           // its call launches one tiny kernel
  lazy.check_extra_ns = 50000;  // and its answer computes when the check reads it
  const Result a = result_of("reference", two_passes(ref));
  const Result b = result_of("lazy", two_passes(lazy));
  const Comparison c = compare_rows(a, b);
  ASSERT_FALSE(c.compared());
  EXPECT_EQ(c.refusal.rfind("work done while its answer was checked: lazy's checks ran 58.0 us", 0),
            0u)
      << c.refusal;
  // The same rule, from the ledgers alone.
  EXPECT_FALSE(
      moved_work(a.measurement.ledger, b.measurement.ledger, 100, 1, "reference", "lazy").empty());
}

TEST(MovedWork, WorkDoneWhileTheInputsAreMadeRefusesTheComparison) {
  RoleBackend ref;
  RoleBackend cand;
  cand.inputs_ns = 40000;  // the generator's functions, replaced, also do the candidate's work
  const Comparison c = compare_rows(result_of("reference", two_passes(ref)),
                                    result_of("candidate", two_passes(cand)));
  ASSERT_FALSE(c.compared());
  EXPECT_EQ(c.refusal.rfind("work done while its inputs were made:", 0), 0u) << c.refusal;
}

TEST(MovedWork, TheSameHarnessWorkIsNoRefusalAndNoiseIsNot) {
  RoleBackend ref;
  RoleBackend same;
  same.check_extra_ns = 500;  // 6% more per check: the same records, within the noise allowed
  const Comparison c = compare_rows(result_of("reference", two_passes(ref)),
                                    result_of("candidate", two_passes(same)));
  EXPECT_TRUE(c.compared()) << c.refusal;
  // Less than kMovedWorkShare of the candidate's own call: too little to matter, whatever it is.
  Ledger base;
  base.checked_iterations = 10;
  base.check_records = 10;
  base.check_busy_ns = 10 * 8000;
  Ledger cand = base;
  cand.check_records = 20;
  cand.check_busy_ns = 10 * 8000 + 10 * 40;  // 40 ns more per check, beside a 1 ms call
  EXPECT_EQ(moved_work(base, cand, 1e6, 32, "a", "b"), "");
  // A side without checks gives nothing to judge by.
  EXPECT_EQ(moved_work(Ledger{}, cand, 100, 32, "a", "b"), "");
}

TEST(MovedWork, OlderRecordsAreComparedByTheirOwnRules) {
  RoleBackend ref;
  RoleBackend lazy;
  lazy.check_extra_ns = 50000;
  const Result a = result_of("reference", two_passes(ref));
  const Result b = result_of("lazy", two_passes(lazy));
  EXPECT_FALSE(compare_rows(a, b).compared());
  EXPECT_TRUE(compare_rows(a, b, kMovedWorkRulesSince - 1).compared());
}

TEST(Seeds, EachCallsSeedIsDrawnFromTheOsNotCounted) {
  std::set<std::uint64_t> seeds;
  std::size_t consecutive = 0;
  std::uint64_t last = detail::next_seed();
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t s = detail::next_seed();
    if (s == last + 1 || s + 1 == last) ++consecutive;
    seeds.insert(s);
    last = s;
  }
  EXPECT_EQ(seeds.size(), 2000u);  // 2^-64 per pair: a repeat is a broken source
  // Under a counter every pair is consecutive; drawn at random, none in 2000 but by a 2^-63 chance.
  EXPECT_EQ(consecutive, 0u);
  // Both halves vary: not a 32-bit draw, not a counter in the low bits.
  std::set<std::uint64_t> high;
  for (std::uint64_t s : seeds) high.insert(s >> 32);
  EXPECT_GT(high.size(), 1990u);
}

// Results whose samples are given by pass; device_busy = latency.
Result row_of(const std::string& impl, const std::vector<std::vector<Nanos>>& passes,
              std::size_t fresh = 0) {
  Result r;
  r.row = {"op", {}, impl};
  r.measurement.method = TimingMethod::kernel_records;
  r.measurement.timestamp_tick_ns = 32;
  for (const auto& pass : passes) {
    for (Nanos b : pass) r.measurement.samples.push_back({b, b, 1, 0});
    r.measurement.pass_sizes.push_back(pass.size());
  }
  r.measurement.ledger.iterations = r.measurement.samples.size();
  r.measurement.ledger.fresh_inputs = fresh;
  r.summary = summarize(r.measurement.samples, r.measurement.method, 0);
  return r;
}

std::vector<Nanos> honest_pass(Nanos level, std::size_t n, Nanos wobble) {
  std::vector<Nanos> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(level + static_cast<Nanos>(i % 5) * wobble);
  return out;
}

// One call in `period` does `period` calls' work; the others return at once (`light` ns).
std::vector<Nanos> burst_pass(Nanos work, Nanos light, std::size_t n, std::size_t period) {
  std::vector<Nanos> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(i % period == 0 ? work * period : light);
  return out;
}

TEST(MovedBetweenCalls, AFewCallsDoingTheWorkOfManyAreRefusedByName) {
  const Result a =
      row_of("reference", {honest_pass(200000, 64, 100), honest_pass(200000, 64, 100)});
  const Result b =
      row_of("burst", {burst_pass(200000, 1200, 64, 16), burst_pass(200000, 1200, 64, 16)});
  const Comparison c = compare_rows(a, b);
  ASSERT_FALSE(c.compared());
  EXPECT_EQ(c.refusal.rfind("work moved between calls: 5 of burst's 128 calls (3.9%) hold 62% ", 0),
            0u)
      << c.refusal;
  EXPECT_NE(c.refusal.find("its mean per call is"), std::string::npos) << c.refusal;
  EXPECT_NEAR(c.candidate_mean_ns / c.baseline_mean_ns, 1.0, 0.05);
}

TEST(MovedBetweenCalls, OneStrayReadingInOnePassIsNoMovedWork) {
  // A host preempted once: one call of 4 ms among calls of 0.17 ms, in one pass.
  std::vector<Nanos> p1 = honest_pass(170000, 10, 1000);
  p1[3] = 4000000;
  const Result a =
      row_of("reference", {honest_pass(170000, 10, 1000), honest_pass(170000, 10, 1000)});
  const Result b = row_of("honest", {p1, honest_pass(170000, 10, 1000)});
  const Comparison c = compare_rows(a, b);
  EXPECT_TRUE(c.compared()) << c.refusal;
}

TEST(MovedBetweenCalls, HonestRowsAreComparedAndTheirMeansStated) {
  const Result a = row_of("a", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)});
  const Result b = row_of("b", {honest_pass(20600, 50, 32), honest_pass(20600, 50, 32)});
  const Comparison c = compare_rows(a, b);
  ASSERT_TRUE(c.compared()) << c.refusal;
  EXPECT_DOUBLE_EQ(c.baseline_mean_ns, 20064.0);
  EXPECT_DOUBLE_EQ(c.candidate_mean_ns, 20664.0);
  const std::string text = describe(c);
  EXPECT_NE(text.find("; mean per call b 20.7 us, a 20.1 us"), std::string::npos) << text;
}

TEST(FixedInputs, AComparisonSaysWhetherItsInputsWereFresh) {
  const auto passes =
      std::vector<std::vector<Nanos>>{honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)};
  const Comparison fresh = compare_rows(row_of("a", passes, 100), row_of("b", passes, 100));
  ASSERT_TRUE(fresh.fresh_inputs.has_value());
  EXPECT_TRUE(*fresh.fresh_inputs);
  EXPECT_NE(describe(fresh).find("; on fresh inputs"), std::string::npos) << describe(fresh);
  const Comparison fixed = compare_rows(row_of("a", passes, 100), row_of("b", passes, 0));
  ASSERT_TRUE(fixed.fresh_inputs.has_value());
  EXPECT_FALSE(*fixed.fresh_inputs);
  EXPECT_NE(describe(fixed).find("; on fixed inputs"), std::string::npos);
  EXPECT_EQ(describe(fixed).find("remembered"), std::string::npos);
  // A row without a ledger (an older record) says nothing of its inputs.
  Result old = row_of("b", passes, 0);
  old.measurement.ledger = Ledger{};
  EXPECT_FALSE(compare_rows(row_of("a", passes, 0), old).fresh_inputs.has_value());
}

TEST(FixedInputs, AFasterOfTenfoldOnFixedInputsSaysWhatARememberedAnswerReadsLike) {
  const Comparison c = compare_rows(
      row_of("reference", {honest_pass(195000, 40, 100), honest_pass(195000, 40, 100)}),
      row_of("remembered", {honest_pass(1030, 40, 32), honest_pass(1030, 40, 32)}));
  ASSERT_TRUE(c.compared()) << c.refusal;
  ASSERT_TRUE(c.difference && c.difference->faster());
  const std::string text = describe(c);
  EXPECT_NE(text.find("on fixed inputs (a call that returns an answer remembered from an earlier "
                      "call reads like this"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpumeter evaluate"), std::string::npos) << text;
}

TEST(OtherProcesses, AProcessThatAppearsOnTheDeviceRefusesTheMeasuredPhase) {
  RoleBackend b;
  b.processes = {{}, {DeviceProcess{4242, "python helper.py", true}}};
  try {
    measure(b, checked_call(), kEight);
    FAIL() << "a new process on the device was not refused";
  } catch (const OtherProcessOnDevice& e) {
    EXPECT_TRUE(e.own_session());
    const std::string what = e.what();
    EXPECT_NE(what.find("pid 4242 (python helper.py, of this process's own session)"),
              std::string::npos)
        << what;
    EXPECT_EQ(std::string(error_name(e)), "OtherProcessOnDevice");
  }
  // None new: measured. A probe that cannot list them is no refusal (nothing is known).
  RoleBackend quiet;
  quiet.processes = {{}};
  EXPECT_NO_THROW(measure(quiet, checked_call(), kEight));
  RoleBackend unread;
  EXPECT_NO_THROW(measure(unread, checked_call(), kEight));
  // Only measured phases are read: calibration and warm-up are not reported.
  EXPECT_EQ(quiet.process_reads, 2u);
}

TEST(Tolerances, OnlyFiniteNonNegativeSaneTolerancesMakeAVerdict) {
  EXPECT_EQ(tolerance_problem(1e-5, 1e-8), "");
  EXPECT_EQ(tolerance_problem(0, 0), "");
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [rtol, atol] : std::vector<std::pair<double, double>>{
           {inf, 0}, {nan, 0}, {-1, 0}, {0, inf}, {0, nan}, {0, -1e-9}, {1.0, 0}, {5.0, 0}}) {
    EXPECT_NE(tolerance_problem(rtol, atol), "") << rtol << " " << atol;
  }
  EXPECT_EQ(tolerance_problem(inf, 0).rfind("rtol inf is not a finite number >= 0", 0), 0u)
      << tolerance_problem(inf, 0);
}

TEST(Tolerances, AnAbsoluteToleranceThatPassesAnAllZeroAnswerIsRefused) {
  // Answers of size 30 (a GEMM's GELU): atol 1e-2 is a tolerance; 1e300, or 30 itself, passes
  // zeros in every element (|0 - ref| <= rtol * |ref| + atol).
  EXPECT_EQ(absolute_tolerance_problem(1e-5, 1e-8, 30), "");
  EXPECT_EQ(absolute_tolerance_problem(1e-2, 1e-2, 30), "");
  EXPECT_EQ(absolute_tolerance_problem(1e-5, 1e300, 30),
            "atol 1e+300 is not small against the reference's answer (largest magnitude 30): an "
            "answer of all zeros would pass every element, so the check proves nothing");
  EXPECT_NE(absolute_tolerance_problem(0, 30, 30), "");
  // With rtol 0.5 half the answer's size is enough for zeros to pass.
  EXPECT_NE(absolute_tolerance_problem(0.5, 15, 30), "");
  EXPECT_EQ(absolute_tolerance_problem(0.5, 14.9, 30), "");
  // A reference of zeros only (or NaN) has no size to hold atol to.
  EXPECT_EQ(absolute_tolerance_problem(1e-5, 1e300, 0), "");
  EXPECT_EQ(absolute_tolerance_problem(1e-5, 1e300, std::numeric_limits<double>::quiet_NaN()), "");
}

// Issue 50: under atol 1.5, a candidate returning 1.0 in every element against answers in [0, 2)
// was "correct". The front end computes, for each constant the core names, the largest excess over
// rtol of its distance to the reference's elements; the core refuses tolerances under which the
// constant passes every element.
TEST(Tolerances, AToleranceUnderWhichAConstantAnswerPassesIsRefused) {
  std::vector<double> ref;
  for (int i = 0; i < 200; ++i) ref.push_back(0.01 * i);  // answers in [0, 2)
  AnswerSpread spread{0, ref.front(), ref.back()};
  for (const double x : ref) spread.mean += x / static_cast<double>(ref.size());
  const auto worst = [&](ConstantAnswer which, double rtol) {
    const double c = constant_answer_value(which, spread);
    double w = -std::numeric_limits<double>::infinity();
    for (const double x : ref) w = std::max(w, std::fabs(c - x) - rtol * std::fabs(x));
    return w;
  };
  const auto problem = [&](ConstantAnswer which, double rtol, double atol) {
    return constant_answer_problem(rtol, atol, which, spread, worst(which, rtol));
  };
  EXPECT_DOUBLE_EQ(constant_answer_value(ConstantAnswer::zeros, spread), 0);
  EXPECT_NEAR(constant_answer_value(ConstantAnswer::mean, spread), 0.995, 1e-12);
  EXPECT_NEAR(constant_answer_value(ConstantAnswer::midpoint, spread), 0.995, 1e-12);
  // atol 1.5: the middle of the range (and the mean) is within 1.5 of every element.
  EXPECT_EQ(problem(ConstantAnswer::midpoint, 1e-5, 1.5),
            "rtol 1e-05 and atol 1.5 pass an answer of 0.995 (the middle of the reference "
            "answer's range) in every element of the reference's answer (from 0 to 1.99): an "
            "answer that ignores its inputs would be correct, so the check proves nothing");
  EXPECT_NE(problem(ConstantAnswer::mean, 1e-5, 1.5), "");
  // 1.0 everywhere, the candidate, is the same finding: |1 - x| <= 1 < 1.5.
  EXPECT_LE(worst(ConstantAnswer::midpoint, 1e-5), 1.0);
  // Zeros miss the largest answers by 1.99: passed only from there on.
  EXPECT_EQ(problem(ConstantAnswer::zeros, 1e-5, 1.5), "");
  EXPECT_NE(problem(ConstantAnswer::zeros, 1e-5, 2.0), "");
  EXPECT_EQ(problem(ConstantAnswer::zeros, 1e-5, 2.0)
                .rfind("rtol 1e-05 and atol 2 pass an "
                       "answer of 0 (zeros) in every element",
                       0),
            0u);
  // A tolerance for precision passes no constant.
  for (const ConstantAnswer which : kConstantAnswers) {
    EXPECT_EQ(problem(which, 1e-5, 1e-3), "") << to_string(which);
    EXPECT_EQ(parse_constant_answer(to_string(which)), which);
  }
  EXPECT_EQ(parse_constant_answer("median"), std::nullopt);
  // A reference whose elements are all one value: that constant is its right answer.
  const AnswerSpread flat{3, 3, 3};
  EXPECT_EQ(constant_answer_problem(1e-5, 1e-8, ConstantAnswer::mean, flat, 0), "");
  EXPECT_NE(constant_answer_problem(1e-5, 5, ConstantAnswer::zeros, flat, 3 - 3e-5), "");
  // An element NaN or infinite, or no elements: nothing shown to pass.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(constant_answer_problem(1e-5, 1.5, ConstantAnswer::mean, spread, nan), "");
  EXPECT_EQ(constant_answer_problem(1e-5, 1.5, ConstantAnswer::mean, spread,
                                    -std::numeric_limits<double>::infinity()),
            "");
}

TEST(ErrorTable, EveryErrorNameIsClassedOnce) {
  std::set<std::string> names;
  for (const ErrorEntry& e : error_table()) {
    EXPECT_TRUE(names.insert(std::string(e.name)).second) << e.name << " twice";
  }
  // Every class errors.hpp defines, by the name a record states.
  const std::vector<std::string> thrown{
      error_name(RecordsLost(1, 1)),
      error_name(OffThreadLaunch(1, "k", true)),
      error_name(AttributionError(0, "why", true)),
      error_name(WrongDevice(0, "k", 1, 0)),
      error_name(CollectionStopped("x")),
      error_name(UnaccountedWork("x")),
      error_name(AnswerNotPlain("x")),
      error_name(OtherProcessOnDevice("x", false)),
      error_name(CuptiUnavailable("x")),
      error_name(InputsModified("x")),
      error_name(VerificationFailed("x")),
      error_name(MixedTimingMethods("x")),
      error_name(IncomparableStatistics("x")),
      error_name(TimestampUnitMismatch("x")),
      error_name(DeviceError("x")),
      error_name(DeviceBusy("x")),
      error_name(InvalidRecord("p", "x")),
      error_name(MergeRefused("x")),
      error_name(ConfigError("x")),
      error_name(UserCodeError("step", "T", "m")),
      error_name(Error("x")),
  };
  for (const std::string& n : thrown) EXPECT_EQ(names.count(n), 1u) << n << " has no class";
  EXPECT_EQ(error_class_of("VerificationFailed"), ErrorClass::wrong);
  EXPECT_EQ(error_class_of("CollectionStopped"), ErrorClass::refused);
  EXPECT_EQ(error_class_of("OffThreadLaunch"), ErrorClass::refused);
  EXPECT_EQ(error_class_of("DeviceBusy"), ErrorClass::not_measured);
  EXPECT_EQ(error_class_of("ConfigError"), ErrorClass::failed);
  EXPECT_EQ(error_class_of("SomethingLater"), ErrorClass::failed);
}

// The catalogue (error_catalogue.hpp) makes the names, the class table and the exit codes: each of
// its errors is named by its own class, classed once, and ends a program with its exit code.
TEST(ErrorTable, TheCatalogueNamesClassesAndExitsEveryError) {
  std::vector<std::string> catalogue;
#define GPUMETER_NAME(Name, error_class, exit_code, base, fields, doc) \
  catalogue.emplace_back(#Name);
#define GPUMETER_NO_FIELD(...)
  GPUMETER_ERRORS(GPUMETER_NAME, GPUMETER_NO_FIELD, )
#undef GPUMETER_NAME
#undef GPUMETER_NO_FIELD
  // Every class but the base, and the base last.
  ASSERT_EQ(error_table().size(), catalogue.size() + 1);
  EXPECT_EQ(error_table().back().name, "Error");
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    EXPECT_EQ(error_table()[i].name, catalogue[i]);
  }
  // The errors of `gpumeter run` and of merging, by the name their own class gives.
  const std::vector<std::pair<std::string, std::string>> thrown{
      {error_name(CollectorRecordsLost("range and launch events", std::nullopt)),
       "CollectorRecordsLost"},
      {error_name(CorruptTrace("x")), "CorruptTrace"},
      {error_name(RangeNotOpen(1, "", false, 0, 0)), "RangeNotOpen"},
      {error_name(RangeLeftOpen("r", "", 1, false, 1)), "RangeLeftOpen"},
      {error_name(LaunchNotFound(1, "k", 1)), "LaunchNotFound"},
      {error_name(NoRangesFound("x")), "NoRangesFound"},
      {error_name(KernelRecordsMissing("x")), "KernelRecordsMissing"},
      {error_name(PartsMissing("x")), "PartsMissing"},
      {error_name(ProgramRunsDiffer("x")), "ProgramRunsDiffer"},
      {error_name(ProgramProcessError(7, "CorruptTrace", "x")), "ProgramProcessError"},
      {error_name(MergeRefused("x", 1)), "MergeRefused"},
  };
  for (const auto& [name, want] : thrown) EXPECT_EQ(name, want);
  // The exit codes: a bad argument (a program's filter that matches no range too) is a usage
  // error, a busy device its own code, every other error of gpumeter's a failure, and anything
  // else internal.
  EXPECT_EQ(exit_code_of_error(ConfigError("x")), kExitUsage);
  EXPECT_EQ(exit_code_of_error(NoRangesFound("x")), kExitUsage);
  // Input that cannot be read or merged is a usage error: what gpumeter compare/report/merge
  // have always returned for them.
  EXPECT_EQ(exit_code_of_error("InvalidRecord"), kExitUsage);
  EXPECT_EQ(exit_code_of_error("MergeRefused"), kExitUsage);
  EXPECT_EQ(exit_code_of_error(DeviceBusy("x")), kExitBusy);
  EXPECT_EQ(exit_code_of_error(VerificationFailed("x")), kExitFailed);
  EXPECT_EQ(exit_code_of_error(PartsMissing("x")), kExitFailed);
  EXPECT_EQ(exit_code_of_error(Error("x")), kExitFailed);
  EXPECT_EQ(exit_code_of_error(std::runtime_error("x")), kExitInternal);
  EXPECT_EQ(exit_code_of_error("ConfigError"), kExitUsage);
  EXPECT_EQ(exit_code_of_error("SomethingLater"), kExitFailed);
}

TEST(ErrorTable, VerdictsOfErrorsFollowTheirClassAndWhoseCodeRaisedThem) {
  EXPECT_EQ(verdict_of_error("VerificationFailed", Whose::gpumeter), Verdict::wrong);
  EXPECT_EQ(verdict_of_error("CollectionStopped", Whose::gpumeter), Verdict::refused);
  EXPECT_EQ(verdict_of_error("AnswerNotPlain", Whose::candidate), Verdict::refused);
  EXPECT_EQ(verdict_of_error("DeviceBusy", Whose::gpumeter), Verdict::not_measured);
  EXPECT_EQ(verdict_of_error("UserCodeError", Whose::candidate), Verdict::crashed);
  EXPECT_EQ(verdict_of_error("UserCodeError", Whose::gpumeter), Verdict::crashed);
  EXPECT_EQ(verdict_of_error("UserCodeError", Whose::evaluator), Verdict::not_measured);
  EXPECT_EQ(verdict_of_error("ConfigError", Whose::gpumeter), Verdict::not_measured);
  EXPECT_EQ(verdict_of_error("ConfigError", Whose::candidate), Verdict::refused);
  EXPECT_EQ(verdict_of_error("VerificationFailed", Whose::evaluator), Verdict::not_measured);
}

// Issue 37: how a candidate's run ended has one verdict, the core's, whichever front end ran it:
// the candidate's own process or program failing is the candidate's; gpumeter's runner failing, a
// record with no candidate in it and the reference alone failing are causes not its own.
TEST(ErrorTable, EveryRunEndHasOneVerdictAndIsNeverCorrect) {
  const std::pair<RunEnd, Verdict> table[] = {
      {RunEnd::runner_not_started, Verdict::not_measured},
      {RunEnd::program_not_started, Verdict::crashed},
      {RunEnd::timed_out, Verdict::timeout},
      {RunEnd::ended_without_report, Verdict::crashed},
      {RunEnd::runner_left_no_record, Verdict::not_measured},
      {RunEnd::program_left_no_record, Verdict::crashed},
      {RunEnd::record_unreadable, Verdict::refused},
      {RunEnd::nothing_to_judge, Verdict::not_measured},
      {RunEnd::tampering_seen, Verdict::tampered},
      {RunEnd::reference_alone_failed, Verdict::not_measured}};
  ASSERT_EQ(std::size(table), std::size(kRunEnds)) << "a run end without its row here";
  for (const auto& [end, verdict] : table) {
    const CandidateVerdict v = verdict_of_run_end(end, "what happened");
    EXPECT_EQ(v.verdict, verdict) << to_string(end);
    EXPECT_FALSE(v.correct) << to_string(end);
    EXPECT_EQ(v.why, "what happened") << to_string(end);
    EXPECT_FALSE(v.speedup.has_value()) << to_string(end);
  }
}

TEST(ErrorTable, AnEvaluationExitsFailedOnlyWhenACandidateWasNotMeasured) {
  EXPECT_EQ(evaluation_exit_code({}), kExitOk);
  EXPECT_EQ(evaluation_exit_code({Verdict::faster, Verdict::wrong, Verdict::crashed,
                                  Verdict::timeout, Verdict::tampered, Verdict::refused}),
            kExitOk);
  EXPECT_EQ(evaluation_exit_code({Verdict::faster, Verdict::not_measured}), kExitFailed);
  for (const Verdict v : kVerdicts) {
    EXPECT_EQ(parse_verdict(to_string(v)), v);
    EXPECT_EQ(verdict_compares(v),
              v == Verdict::faster || v == Verdict::slower || v == Verdict::no_difference);
  }
  EXPECT_EQ(parse_verdict("not_measured"), std::nullopt);
  EXPECT_EQ(parse_verdict(""), std::nullopt);
}

// A record of the reference and a candidate compared, as a candidate's process writes it.
Record record_of(const Result& reference, const Result& candidate) {
  Record r;
  r.results = {reference, candidate};
  finish_record(r);
  return r;
}

Result checked(Result r) {
  r.measurement.ledger.checked_iterations = 10;
  r.measurement.ledger.fresh_inputs = r.measurement.ledger.iterations;
  return r;
}

TEST(Verdicts, AFasterCandidateWithCheckedAnswersIsFaster) {
  const Result ref =
      checked(row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}));
  const Result fast =
      checked(row_of("fast", {honest_pass(10000, 50, 32), honest_pass(10000, 50, 32)}));
  const Record rec = record_of(ref, fast);
  VerdictInputs in;
  in.record = &rec;
  in.candidate = "fast";
  const CandidateVerdict v = judge_candidate(in);
  EXPECT_EQ(v.verdict, Verdict::faster) << v.why;
  EXPECT_TRUE(v.correct);
  ASSERT_TRUE(v.speedup && v.interval);
  EXPECT_NEAR(*v.speedup, 2.0, 0.01);
  EXPECT_LT(v.interval->first, *v.speedup);
  EXPECT_GT(v.interval->second, *v.speedup);
  // Unchecked answers never make a candidate correct.
  const Record unchecked =
      record_of(row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}),
                row_of("fast", {honest_pass(10000, 50, 32), honest_pass(10000, 50, 32)}));
  in.record = &unchecked;
  EXPECT_EQ(judge_candidate(in).verdict, Verdict::not_measured);
}

TEST(Verdicts, AReferenceSlowerBesideTheCandidateThanAloneIsTampering) {
  const Result alone =
      checked(row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}));
  const Result beside =
      checked(row_of("reference", {honest_pass(44400, 50, 32), honest_pass(44400, 50, 32)}));
  const Result cand =
      checked(row_of("candidate", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}));
  Record alone_record;
  alone_record.results = {alone};
  const Record rec = record_of(beside, cand);
  VerdictInputs in;
  in.record = &rec;
  in.candidate = "candidate";
  EXPECT_EQ(judge_candidate(in).verdict, Verdict::faster);  // 2.22x faster, by itself
  in.reference_alone = &alone_record;
  const CandidateVerdict v = judge_candidate(in);
  EXPECT_EQ(v.verdict, Verdict::tampered) << v.why;
  EXPECT_EQ(v.why.rfind("the reference ran 2.2161x slower beside the candidate (44.5 us) than in a "
                        "process of its own (20.1 us",
                        0),
            0u)
      << v.why;
  EXPECT_FALSE(v.speedup.has_value());
  // Alone and beside alike: no tampering, the comparison stands.
  const Record same = record_of(alone, cand);
  in.record = &same;
  EXPECT_EQ(judge_candidate(in).verdict, Verdict::no_difference);
}

// A checked row whose ten checks each kept the device busy `busy_per_check` ns.
Result with_checks(Result r, std::int64_t busy_per_check) {
  r = checked(std::move(r));
  r.measurement.ledger.check_records = 10;
  r.measurement.ledger.check_busy_ns = 10 * busy_per_check;
  return r;
}

// Issue 50: a candidate that slowed the reference is tampering whatever else was refused. Its
// comparison refused by the moved-work rule (it computed its answer while the check read it) and
// the reference 10% slower beside it than alone on device time: tampered, not merely refused.
TEST(Verdicts, ASlowedReferenceIsTamperingEvenWhereTheComparisonWasRefused) {
  const Result alone = with_checks(
      row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}), 8000);
  const Result beside = with_checks(
      row_of("reference", {honest_pass(22000, 50, 32), honest_pass(22000, 50, 32)}), 8000);
  // 50 us more in each check than the reference's, beside a call of 20 us: moved work.
  const Result lazy =
      with_checks(row_of("lazy", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}), 58000);
  Record alone_record;
  alone_record.results = {alone};
  const Record rec = record_of(beside, lazy);
  ASSERT_EQ(rec.comparisons.size(), 1u);
  ASSERT_FALSE(rec.comparisons[0].compared());
  EXPECT_EQ(rec.comparisons[0].refusal.rfind("work done while its answer was checked", 0), 0u)
      << rec.comparisons[0].refusal;
  VerdictInputs in;
  in.record = &rec;
  in.candidate = "lazy";
  EXPECT_EQ(judge_candidate(in).verdict, Verdict::refused);  // without the reference alone
  in.reference_alone = &alone_record;
  const CandidateVerdict v = judge_candidate(in);
  EXPECT_EQ(v.verdict, Verdict::tampered) << v.why;
  EXPECT_EQ(v.why.rfind("the reference ran 9.97% slower beside the candidate (22.1 us) than in a "
                        "process of its own (20.1 us",
                        0),
            0u)
      << v.why;
  ASSERT_TRUE(v.reference_alone_ns && v.reference_beside_ns);
  EXPECT_FALSE(v.speedup.has_value());
  // The candidate's own failure does not hide it either.
  Record failed;
  failed.results = {beside};
  failed.failures = {Failure{{"op", {}, "lazy"}, "AnswerNotPlain", "returned a LazyTensor"}};
  in.record = &failed;
  EXPECT_EQ(judge_candidate(in).verdict, Verdict::tampered);
  // Beside as alone: the refusal stands.
  const Record same = record_of(with_checks(alone, 8000), lazy);
  in.record = &same;
  const CandidateVerdict refused = judge_candidate(in);
  EXPECT_EQ(refused.verdict, Verdict::refused) << refused.why;
  EXPECT_EQ(refused.why.rfind("work done while its answer was checked", 0), 0u) << refused.why;
}

// Issue 50: the reference alone and beside the candidate that its rule cannot set against each
// other (here the reference's own checks did 50 us more beside the candidate: moved work between
// the two rows) still show a slowdown by their medians: tampered, not "not measured".
TEST(Verdicts, ASlowedReferenceIsTamperingWhereAloneAndBesideCannotBeCompared) {
  const Result alone = with_checks(
      row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}), 8000);
  const Result cand = with_checks(
      row_of("candidate", {honest_pass(10000, 50, 32), honest_pass(10000, 50, 32)}), 8000);
  Record alone_record;
  alone_record.results = {alone};
  VerdictInputs in;
  in.candidate = "candidate";
  in.reference_alone = &alone_record;
  const auto judged = [&](Nanos beside_level) {
    const Result beside = with_checks(
        row_of("reference", {honest_pass(beside_level, 50, 32), honest_pass(beside_level, 50, 32)}),
        58000);
    EXPECT_FALSE(compare_rows(alone, beside).compared());
    const Record rec = record_of(beside, cand);
    in.record = &rec;
    return judge_candidate(in);
  };
  const CandidateVerdict slowed = judged(22000);
  EXPECT_EQ(slowed.verdict, Verdict::tampered) << slowed.why;
  EXPECT_EQ(slowed.why.rfind("the reference ran 1.1", 0), 0u) << slowed.why;
  EXPECT_NE(slowed.why.find("x slower beside the candidate (22.1 us) than in a process of its own "
                            "(20.1 us; the two rows cannot be compared by their rule (work done "
                            "while its answer was checked"),
            std::string::npos)
      << slowed.why;
  EXPECT_NE(slowed.why.find("their medians are more than 1.02x apart)"), std::string::npos)
      << slowed.why;
  EXPECT_FALSE(slowed.speedup.has_value());
  // Uncomparable, but not slower by its medians: not measured, as before.
  const CandidateVerdict even = judged(20000);
  EXPECT_EQ(even.verdict, Verdict::not_measured) << even.why;
  EXPECT_NE(even.why.find("could not be compared"), std::string::npos) << even.why;
}

// Issue 50: the checker's refusal of a run's records ("a record of a run gpumeter's checker did
// not see") does not hide a reference slowed beside the candidate: tampered.
TEST(Verdicts, ASlowedReferenceIsTamperingWhereTheCheckerRefusedTheRecords) {
  const Result alone =
      checked(row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}));
  const Result beside =
      checked(row_of("reference", {honest_pass(44400, 50, 32), honest_pass(44400, 50, 32)}));
  const Result cand =
      checked(row_of("candidate", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}));
  Record alone_record;
  alone_record.results = {alone};
  const Record rec = record_of(beside, cand);
  EvaluatedRun run;
  run.judge.record = &rec;
  run.judge.candidate = "candidate";
  run.judge.reference_alone = &alone_record;
  // The checker saw the reference's checks and none of the candidate's.
  run.checker = CheckerAccount{{{"reference", 10}}, "", ""};
  EvaluatedVerdict v = judge_evaluated_run(run);
  EXPECT_EQ(v.verdict.verdict, Verdict::tampered) << v.verdict.why;
  EXPECT_EQ(v.verdict.why.rfind("the reference ran 2.2161x slower beside the candidate", 0), 0u)
      << v.verdict.why;
  // The reference alone as beside: the checker's refusal stands.
  const Record same = record_of(alone, cand);
  run.judge.record = &same;
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::checker);
  EXPECT_EQ(v.verdict.verdict, Verdict::refused) << v.verdict.why;
  EXPECT_EQ(v.verdict.why.rfind("a record of a run gpumeter's checker did not see", 0), 0u)
      << v.verdict.why;
}

Result on_wall_clock(Result r) {
  r.measurement.method = TimingMethod::host_clock;
  r.summary = summarize(r.measurement.samples, TimingMethod::host_clock, 0);
  return r;
}

TEST(Verdicts, OnTheWallClockOnlyAGrossReferenceSlowdownIsTampering) {
  // Host work timed in two processes read 1.5x apart with no candidate code changing it: up to
  // 2x (kHostReferenceSlowdownFactor) the times are reported, not judged; beyond it, by the
  // medians and by the interval, the candidate slowed the reference (issue 38: 4.6x).
  const Result alone = on_wall_clock(
      checked(row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)})));
  const Result cand = on_wall_clock(
      checked(row_of("candidate", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)})));
  Record alone_record;
  alone_record.results = {alone};
  VerdictInputs in;
  in.candidate = "candidate";
  in.reference_alone = &alone_record;
  const auto judged = [&](const std::vector<std::vector<Nanos>>& beside) {
    const Record rec = record_of(on_wall_clock(checked(row_of("reference", beside))), cand);
    in.record = &rec;
    return judge_candidate(in);
  };
  for (const Nanos beside : {Nanos{26000}, Nanos{30000}, Nanos{40000}}) {
    const CandidateVerdict v = judged({honest_pass(beside, 50, 32), honest_pass(beside, 50, 32)});
    EXPECT_NE(v.verdict, Verdict::tampered) << beside << ": " << v.why;
    EXPECT_TRUE(v.correct) << v.why;
    ASSERT_TRUE(v.reference_alone_ns && v.reference_beside_ns);
    EXPECT_GT(*v.reference_beside_ns, *v.reference_alone_ns);
  }
  // Medians 2.25x apart, but two passes 2x apart themselves: the interval reaches below 2x.
  const CandidateVerdict wide = judged({honest_pass(30000, 50, 32), honest_pass(60000, 50, 32)});
  ASSERT_TRUE(wide.reference_beside_ns && wide.reference_alone_ns);
  EXPECT_GT(*wide.reference_beside_ns / *wide.reference_alone_ns, kHostReferenceSlowdownFactor);
  EXPECT_NE(wide.verdict, Verdict::tampered) << wide.why;
  const CandidateVerdict t = judged({honest_pass(92000, 50, 32), honest_pass(92000, 50, 32)});
  EXPECT_EQ(t.verdict, Verdict::tampered) << t.why;
  EXPECT_EQ(t.why.rfind("the reference ran 4.59x slower beside the candidate (92.1 us) than in a "
                        "process of its own (20.1 us; ",
                        0),
            0u)
      << t.why;
  EXPECT_NE(t.why.find("rule: beyond 2x on the host clock)"), std::string::npos) << t.why;
  EXPECT_FALSE(t.speedup.has_value());
}

TEST(Verdicts, NoSpeedUpIsGivenBesideNoDifferenceBeyondTheFloor) {
  // Seen under load with PyTorch on two busy cores: "no difference" beside a speed-up of 408x
  // (passes spread 460x). A verdict that claims nothing gives no factor it would claim from; one
  // within the floor is consistent with it and stays.
  const Result ref = on_wall_clock(
      checked(row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)})));
  VerdictInputs in;
  in.candidate = "candidate";
  const auto judged = [&](const std::vector<std::vector<Nanos>>& passes) {
    const Record rec = record_of(ref, on_wall_clock(checked(row_of("candidate", passes))));
    in.record = &rec;
    return judge_candidate(in);
  };
  const CandidateVerdict spread =
      judged({honest_pass(4000, 50, 32), honest_pass(4000, 50, 32), honest_pass(400000, 50, 32)});
  EXPECT_EQ(spread.verdict, Verdict::no_difference) << spread.why;
  EXPECT_FALSE(spread.speedup.has_value()) << *spread.speedup;
  EXPECT_NE(spread.why.find("the time of reference, by their medians"), std::string::npos)
      << spread.why;
  const CandidateVerdict within = judged({honest_pass(24000, 50, 32), honest_pass(24000, 50, 32)});
  EXPECT_EQ(within.verdict, Verdict::no_difference) << within.why;
  ASSERT_TRUE(within.speedup.has_value());
  EXPECT_NEAR(*within.speedup, 20064.0 / 24064.0, 0.01);
}

TEST(Verdicts, FasterOnTheDeviceButSlowerEndToEndIsRefused) {
  const Result ref =
      checked(row_of("reference", {honest_pass(195000, 50, 32), honest_pass(195000, 50, 32)}));
  const Result cand =
      checked(row_of("helper", {honest_pass(1200, 50, 32), honest_pass(1200, 50, 32)}));
  const Record device = record_of(ref, cand);
  Result wall_ref =
      row_of("reference", {honest_pass(210000, 50, 100), honest_pass(210000, 50, 100)});
  Result wall_cand = row_of("helper", {honest_pass(221000, 50, 100), honest_pass(221000, 50, 100)});
  wall_ref.measurement.method = wall_cand.measurement.method = TimingMethod::host_clock;
  wall_ref.summary = summarize(wall_ref.measurement.samples, TimingMethod::host_clock, 0);
  wall_cand.summary = summarize(wall_cand.measurement.samples, TimingMethod::host_clock, 0);
  const Record wall = record_of(wall_ref, wall_cand);
  VerdictInputs in;
  in.record = &device;
  in.candidate = "helper";
  EXPECT_EQ(judge_candidate(in).verdict, Verdict::faster);
  in.end_to_end = &wall;
  const CandidateVerdict v = judge_candidate(in);
  EXPECT_EQ(v.verdict, Verdict::refused) << v.why;
  EXPECT_EQ(v.why.rfind("faster on the device, slower end to end", 0), 0u) << v.why;
  // Both figures the refusal sets against each other: about 160x on the device, 0.95x end to end.
  ASSERT_TRUE(v.end_to_end_speedup.has_value());
  EXPECT_NEAR(*v.end_to_end_speedup, 210000.0 / 221000.0, 0.01);
  ASSERT_TRUE(v.device_speedup.has_value());
  EXPECT_GT(*v.device_speedup, 100.0);
  EXPECT_FALSE(v.speedup.has_value());  // a refusal is no comparison's answer
}

TEST(Verdicts, FailuresGiveTheirClasssVerdictAndTheReferencesAreNotTheCandidates) {
  Record rec;
  rec.results = {
      checked(row_of("reference", {honest_pass(20000, 50, 32), honest_pass(20000, 50, 32)}))};
  rec.failures = {Failure{{"op", {}, "lazy"}, "AnswerNotPlain", "returned a LazyTensor"}};
  VerdictInputs in;
  in.record = &rec;
  in.candidate = "lazy";
  CandidateVerdict v = judge_candidate(in);
  EXPECT_EQ(v.verdict, Verdict::refused);
  EXPECT_FALSE(v.correct);
  EXPECT_EQ(v.why, "AnswerNotPlain: returned a LazyTensor");
  Record ref_failed;
  ref_failed.failures = {
      Failure{{"op", {}, "reference"}, "VerificationFailed", "not deterministic"}};
  in.record = &ref_failed;
  v = judge_candidate(in);
  EXPECT_EQ(v.verdict, Verdict::not_measured) << v.why;
}

// The one reading of a comparison's direction (Comparison.found and .finding in Python, plot's
// colours, the sweep's reversed order, evaluate's verdict): the interval's side of 0 for device
// time, the host-clock rule's claim and its factor for the wall clock.
TEST(Direction, ReadFromTheRuleOfTheStatistic) {
  Comparison c;
  c.difference = RelativeDifference{};
  c.difference->estimate = 0.03;
  c.difference->low = 0.01;
  c.difference->high = 0.05;
  EXPECT_EQ(direction_of(c), Verdict::slower);
  c.difference->low = -0.01;  // the interval holds 0: no direction
  EXPECT_EQ(direction_of(c), Verdict::no_difference);
  c.difference->estimate = -0.03;
  c.difference->low = -0.05;
  c.difference->high = -0.01;
  EXPECT_EQ(direction_of(c), Verdict::faster);
  // The wall clock: the ratio's claim decides, whatever the finer interval beside it says.
  c.ratio = RatioVerdict{};
  c.ratio->speedup = 1.2;
  c.ratio->resolution = Resolution::no_measured_difference;
  EXPECT_EQ(direction_of(c), Verdict::no_difference);
  c.ratio->speedup = 0.5;
  c.ratio->resolution = Resolution::directional_difference;
  EXPECT_EQ(direction_of(c), Verdict::slower);
  c.ratio->speedup = 2.0;
  EXPECT_EQ(direction_of(c), Verdict::faster);
}

// A row's flags are decided by the core from its numbers; reporters only word them.
TEST(RowFlags, DecidedFromTheRowsNumbers) {
  Result r;
  r.measurement.method = TimingMethod::kernel_records;
  r.summary.n_samples = 10;
  r.summary.device_busy.median_ns = 4000;
  r.summary.median_uncounted_copy_ns = 4001;  // a nanosecond longer than the work: flagged
  r.summary.clock = ClockSummary{};
  r.summary.clock->max_mhz = 1800;
  r.summary.clock->flagged = 3;
  r.measurement.retries = 2;
  Record record;
  record.results = {r};
  Result fast = r;
  fast.summary.clock->max_mhz = 1980;
  record.results.push_back(fast);
  EXPECT_EQ(highest_clock(record), 1980);
  EXPECT_EQ(highest_clock(Record{}), 0);  // no clock read: nothing to be below

  RowFlags f = row_flags(r, highest_clock(record));
  EXPECT_EQ(f.clock_flagged, 3U);
  EXPECT_TRUE(f.low_clock);  // 1800 < 0.95 x 1980
  EXPECT_EQ(f.retries, 2);
  EXPECT_TRUE(f.uncounted_copy);
  EXPECT_TRUE(f.copy_exceeds_busy);
  EXPECT_FALSE(f.drops_unproven);
  EXPECT_FALSE(row_flags(r, 1890).low_clock);  // 1800 >= 0.95 x 1890

  r.summary.median_uncounted_copy_ns = 4000;  // as long as the work: a copy, not the work
  f = row_flags(r, 0);
  EXPECT_TRUE(f.uncounted_copy);
  EXPECT_FALSE(f.copy_exceeds_busy);
  r.summary.median_uncounted_copy_ns = 0;
  EXPECT_FALSE(row_flags(r, 0).uncounted_copy);

  // Copies counted as device time, or a timing that does not see kernels: nothing uncounted.
  r.summary.median_uncounted_copy_ns = 9000;
  r.count_copies = true;
  EXPECT_FALSE(row_flags(r, 0).uncounted_copy);
  r.count_copies = false;
  r.measurement.method = TimingMethod::host_clock;
  f = row_flags(r, 0);
  EXPECT_FALSE(f.uncounted_copy || f.copy_exceeds_busy);

  r.measurement.drop_counter_live = false;
  EXPECT_TRUE(row_flags(r, 0).drops_unproven);
  r.summary.clock.reset();
  f = row_flags(r, 1980);
  EXPECT_EQ(f.clock_flagged, 0U);
  EXPECT_FALSE(f.low_clock);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
