// run_cases on the host backend: what a record holds after a run, failures included.
#include "gpumeter/runner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

Case quick_case(const std::string& name, std::function<void()> verify) {
  Case c;
  c.name = name;
  c.params = {{"n", "1"}};
  c.implementations.push_back({name + "-impl", Call{[] {}, {}}, std::move(verify)});
  return c;
}

TEST(RunCases, AFailingCaseIsRecordedAndTheOthersKeepTheirNumbers) {
  auto backend = make_host_backend();
  RunOptions options;
  options.budget = Budget{1 * kMillisecond, 1 * kMillisecond, 10, 10};
  const Record rec =
      run_cases(*backend,
                {quick_case("before", {}),
                 quick_case("wrong", [] { throw VerificationFailed("wrong-impl: max error 0.5"); }),
                 quick_case("after", {})},
                options);
  ASSERT_EQ(rec.results.size(), 2u);
  EXPECT_EQ(rec.results[0].row.case_name, "before");
  EXPECT_EQ(rec.results[1].row.case_name, "after");
  EXPECT_EQ(rec.results[1].summary.n_samples, 30u);  // 6 passes of 5: 3 rounds on the host clock
  ASSERT_EQ(rec.failures.size(), 1u);
  const Failure& f = rec.failures[0];
  EXPECT_EQ(f.row.case_name, "wrong");
  EXPECT_EQ(f.row.implementation, "wrong-impl");
  EXPECT_EQ(f.row.params.at("n"), "1");
  EXPECT_EQ(f.error, "VerificationFailed");
  EXPECT_EQ(f.message, "wrong-impl: max error 0.5");
  // The error itself stays with the failure in this process, for a front end to raise again.
  ASSERT_TRUE(f.thrown);
  EXPECT_THROW(std::rethrow_exception(f.thrown), VerificationFailed);
}

TEST(RunCases, AUsersExceptionFailsItsCaseOnly) {
  auto backend = make_host_backend();
  RunOptions options;
  options.budget = Budget{1 * kMillisecond, 1 * kMillisecond, 10, 10};
  const Record rec =
      run_cases(*backend,
                {quick_case("before", {}),
                 quick_case("throws", [] { throw std::runtime_error("the check itself broke"); }),
                 quick_case("after", {})},
                options);
  ASSERT_EQ(rec.results.size(), 2u);
  EXPECT_EQ(rec.results[0].row.case_name, "before");
  EXPECT_EQ(rec.results[1].row.case_name, "after");
  ASSERT_EQ(rec.failures.size(), 1u);
  const Failure& f = rec.failures[0];
  EXPECT_EQ(f.row.case_name, "throws");
  EXPECT_EQ(f.error, "UserCodeError");
  EXPECT_EQ(f.message.rfind("implementation 'throws-impl', its output check threw "
                            "std::runtime_error: the check itself broke; ",
                            0),
            0u)
      << f.message;
  ASSERT_TRUE(f.thrown);
  try {
    std::rethrow_exception(f.thrown);
  } catch (const UserCodeError& e) {
    EXPECT_EQ(e.step(), "implementation 'throws-impl', its output check");
    EXPECT_EQ(e.type(), "std::runtime_error");
    EXPECT_EQ(e.message(), "the check itself broke");
  }
}

// P6 and P7 through the runner: a scalable implementation's null test lands in its result, and
// each case has its memory, GPU figures unknown on the host (never zero).
TEST(RunCases, NullTestAndMemoryPerCase) {
  auto backend = make_host_backend();
  RunOptions options;
  options.budget = Budget{1 * kMillisecond, 1 * kMillisecond, 10, 10};
  Case c = quick_case("scaled", {});
  int largest = 0;
  c.implementations[0].scaled = [&](int k) { largest = std::max(largest, k); };
  const Record rec = run_cases(*backend, {c, quick_case("plain", {})}, options);
  ASSERT_EQ(rec.results.size(), 2u);
  ASSERT_TRUE(rec.results[0].measurement.null_test.has_value());
  EXPECT_EQ(largest, kNullTestScale);
  EXPECT_FALSE(rec.results[0].measurement.null_test->scaled_ns.empty());
  EXPECT_FALSE(rec.results[1].measurement.null_test.has_value());
  for (const Result& r : rec.results) {
    EXPECT_FALSE(r.memory.gpu_context_floor_bytes.has_value());
    EXPECT_FALSE(r.memory.gpu_after_case_bytes.has_value());
    ASSERT_TRUE(r.memory.host_peak_rss_bytes.has_value());
    EXPECT_GT(*r.memory.host_peak_rss_bytes, 0);
    EXPECT_FALSE(r.memory.own_process);
  }
  EXPECT_FALSE(rec.config.launch_cost_ns.has_value());  // the host backend adds no records
}

TEST(RunCases, RecordStatesWhatTheBackendDid) {
  auto backend = make_host_backend();
  RunOptions options;
  options.budget = Budget{1 * kMillisecond, 1 * kMillisecond, 10, 10};
  options.argv = {"prog", "--x"};
  const Record rec = run_cases(*backend, {quick_case("one", {})}, options);
  EXPECT_FALSE(rec.config.l2_flush);  // the host backend flushes nothing
  EXPECT_EQ(rec.config.l2_flush_mode, "");
  EXPECT_EQ(rec.config.schedule, "ABCCBA");
  // A lone implementation runs A A, 3 rounds on the host clock: the spread a comparison with it
  // needs, and the passes the host-clock rule judges by.
  EXPECT_EQ(rec.results[0].measurement.pass_sizes, (std::vector<std::size_t>(6, 5)));
  EXPECT_EQ(rec.device.kind, "host");
  EXPECT_EQ(rec.argv, options.argv);
  EXPECT_EQ(rec.results[0].measurement.method, TimingMethod::host_clock);
  // A CPU has no clocks, power or driver to report: nothing read, and nothing missing.
  EXPECT_FALSE(rec.device_state.driver_version.has_value());
  EXPECT_TRUE(rec.deviations.empty());
}

// A name longer than a record holds (kMaxNameBytes) is refused before anything is measured: the
// record written at the end would refuse it, and the run would be lost.
TEST(RunCases, ANameARecordCannotHoldIsRefusedBeforeMeasuring) {
  auto backend = make_host_backend();
  RunOptions options;
  options.budget = Budget{1 * kMillisecond, 1 * kMillisecond, 10, 10};
  const std::string longest(kMaxNameBytes, 'n');
  const std::string too_long(kMaxNameBytes + 1, 'n');
  int measured = 0;
  const auto counted = [&](const std::string& name) {
    Case c = quick_case(name, {});
    c.implementations[0].call = Call{[&] { ++measured; }, {}};
    c.implementations[0].name = "impl";
    return c;
  };
  const auto refused = [&](Case bad) {
    try {
      run_cases(*backend, {counted("first"), std::move(bad)}, options);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no ConfigError)");
  };
  EXPECT_EQ(refused(counted(too_long)), "case '" + std::string(40, 'n') +
                                            "...': its name is 257 bytes long, more than the "
                                            "256 a record holds for a name; give it a shorter one");
  Case c = counted("c");
  c.implementations[0].name = too_long;
  EXPECT_EQ(refused(c),
            "case 'c': an implementation's name is 257 bytes long, more than the 256 a record "
            "holds for a name; give it a shorter one");
  c = counted("c");
  c.params = {{"n", too_long}};
  EXPECT_EQ(refused(c),
            "case 'c': the value of param 'n' is 257 bytes long, more than the 256 a record holds "
            "for a name; give it a shorter one");
  c = counted("c");
  c.params = {{too_long, "1"}};
  EXPECT_NE(refused(c).find("a param's name is 257 bytes long"), std::string::npos);
  EXPECT_EQ(measured, 0);  // the good first case was not measured either
  // The longest name a record holds runs.
  c = counted(longest);
  c.params = {{longest, longest}};
  c.implementations[0].name = longest;
  const Record rec = run_cases(*backend, {c}, options);
  ASSERT_EQ(rec.results.size(), 1u);
  EXPECT_EQ(rec.results[0].row.case_name, longest);
}

TEST(ErrorName, NamesTheMostDerivedClass) {
  EXPECT_STREQ(error_name(RecordsLost(3, 1)), "RecordsLost");
  EXPECT_STREQ(error_name(OffThreadLaunch(1, "k", true)), "OffThreadLaunch");
  EXPECT_STREQ(error_name(AttributionError(0, "x", true)), "AttributionError");
  EXPECT_STREQ(error_name(WrongDevice(0, "k", 1, 0)), "WrongDevice");
  EXPECT_STREQ(error_name(InvalidRecord("f", "p")), "InvalidRecord");
  EXPECT_STREQ(error_name(UserCodeError("step", "std::runtime_error", "x")), "UserCodeError");
  EXPECT_STREQ(error_name(Error("x")), "Error");
  EXPECT_STREQ(error_name(std::runtime_error("x")), "std::exception");
  EXPECT_STREQ(error_name(ConfigError("budget", "must be positive")), "ConfigError");
}

// What a front end reads from an error besides its message (Python raises them as fields).
TEST(ErrorFields, EachErrorKeepsWhatItsMessageSays) {
  const OffThreadLaunch off(2, "void axpy<float>(int, float*)", false);
  EXPECT_EQ(off.n_orphans(), 2u);
  EXPECT_EQ(off.example_kernel(), "void axpy<float>(int, float*)");
  EXPECT_FALSE(off.loss_ruled_out());
  const AttributionError none(5, "no kernel was attributed", true);
  EXPECT_EQ(none.iteration(), 5u);
  EXPECT_EQ(none.why(), "no kernel was attributed");
  EXPECT_TRUE(none.loss_ruled_out());
  const WrongDevice elsewhere(4, "copy_kernel", 1, 0);
  EXPECT_EQ(elsewhere.iteration(), 4u);
  EXPECT_EQ(elsewhere.kernel(), "copy_kernel");
  EXPECT_EQ(elsewhere.ran_on(), 1u);
  EXPECT_EQ(elsewhere.measured(), 0u);
  EXPECT_NE(std::string(elsewhere.what()).find("'copy_kernel' ran on device 1"), std::string::npos);
  const InvalidRecord bad("run.json", "truncated");
  EXPECT_EQ(bad.path(), "run.json");
  EXPECT_EQ(bad.problem(), "truncated");
  EXPECT_STREQ(bad.what(), "run.json: truncated");
  const ConfigError named("budget", "must be positive");
  EXPECT_EQ(named.argument(), "budget");
  EXPECT_STREQ(named.what(), "budget: must be positive");
  EXPECT_EQ(ConfigError("no argument named").argument(), "");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
