// The rule every numeric command-line option follows (number_option.hpp): one readable line,
// naming the option, its rule and what was given.
#include "number_option.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/option_spec.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

TEST(NumberOption, AcceptedValuesSayNothing) {
  EXPECT_EQ(number_problem("--timeout", "0.5", kLimitSeconds), "");
  EXPECT_EQ(number_problem("--timeout", "1e7", kLimitSeconds), "");
  EXPECT_EQ(number_problem("--lock-timeout", "0", kWaitSeconds), "");
  EXPECT_EQ(number_problem("--device", "3", kDeviceIndex), "");
  EXPECT_EQ(number_problem("--fail-on-regression", "2.5%", kGateThresholdRule), "");
  EXPECT_EQ(number_problem("--repeat", "1", kPositiveCount), "");
}

TEST(NumberOption, AWrongValueIsOneLineNamingTheOptionTheRuleAndTheValue) {
  EXPECT_EQ(number_problem("--timeout", "0", kLimitSeconds), "--timeout must be > 0 s, got 0");
  EXPECT_EQ(number_problem("--timeout", "1e99", kLimitSeconds),
            "--timeout must be at most 10000000 s, got 1e99");
  EXPECT_EQ(number_problem("--timeout", "", kLimitSeconds),
            "--timeout must be a duration > 0 s (10s, 500ms or bare seconds), got ''");
  EXPECT_EQ(number_problem("--timeout", "nan", kLimitSeconds),
            "--timeout must be a duration > 0 s (10s, 500ms or bare seconds), got 'nan'");
  EXPECT_EQ(number_problem("--timeout", "3h", kLimitSeconds),
            "--timeout must be a duration > 0 s (10s, 500ms or bare seconds), got '3h'");
  EXPECT_EQ(number_problem("--lock-timeout", "-0.1", kWaitSeconds),
            "--lock-timeout must be >= 0 s, got -0.1");
  EXPECT_EQ(number_problem("--fail-on-regression", "-5%", kGateThresholdRule),
            "--fail-on-regression must be a fraction from 0% to 10000% (0 to 100), got -5%");
  EXPECT_EQ(number_problem("--fail-on-regression", "inf", kGateThresholdRule),
            "--fail-on-regression must be a fraction from 0% to 10000% (0 to 100), written 1% or "
            "0.01, got 'inf'");
  EXPECT_EQ(number_problem("--device", "-1", kDeviceIndex), "--device must be >= 0, got -1");
  EXPECT_EQ(number_problem("--device", "1e3", kDeviceIndex),
            "--device must be an integer >= 0, got '1e3'");
  EXPECT_EQ(number_problem("--device", "4294967296", kDeviceIndex),
            "--device must be at most 2147483647, got 4294967296");
  EXPECT_EQ(number_problem("--device", "-99999999999999999999", kDeviceIndex),
            "--device must be >= 0, got -99999999999999999999");
  EXPECT_EQ(number_problem("--repeat", "0", kPositiveCount), "--repeat must be >= 1, got 0");
}

// strtod reads hex, leading spaces and "infinity"; a threshold had no upper bound, so 1e300 was a
// gate that never fails and "0x10" a 16% gate. Each is refused by value now.
TEST(NumberOption, OnlyDecimalNumbersWithinTheRuleAreRead) {
  EXPECT_EQ(number_problem("--fail-on-regression", "0x10", kGateThresholdRule),
            "--fail-on-regression must be a fraction from 0% to 10000% (0 to 100), written 1% or "
            "0.01, got '0x10'");
  EXPECT_EQ(number_problem("--fail-on-regression", "1e300", kGateThresholdRule),
            "--fail-on-regression must be a fraction from 0% to 10000% (0 to 100), got 1e300");
  EXPECT_EQ(number_problem("--fail-on-regression", "10000%", kGateThresholdRule), "");
  EXPECT_EQ(number_problem("--fail-on-regression", "10001%", kGateThresholdRule),
            "--fail-on-regression must be a fraction from 0% to 10000% (0 to 100), got 10001%");
  for (const char* bad : {" 5", "5 ", "0x1p3", "infinity", "+", ".", "1e", "1e+", "--1", "1..2",
                          "1,5", "\xef\xbc\x95"}) {
    EXPECT_NE(number_problem("--timeout", bad, kLimitSeconds), "") << bad;
  }
  for (const char* good : {"5", "+5", "0.5", ".5", "5.", "1e3", "1E-3", "2.5e+1"}) {
    EXPECT_EQ(number_problem("--timeout", good, kLimitSeconds), "") << good;
  }
}

TEST(NumberOption, CheckedOptionsEndParsingWithThatLine) {
  CLI::App app{"test"};
  double timeout = 0;
  int device = 0;
  check_number(app.add_option("--timeout", timeout), kLimitSeconds);
  check_number(app.add_option("--device", device), kDeviceIndex);
  const auto error = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "test");
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(e.get_exit_code(), 0);
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error({"--timeout", "0"}), "--timeout must be > 0 s, got 0");
  EXPECT_EQ(error({"--device=-1"}), "--device must be >= 0, got -1");
  EXPECT_EQ(error({"--timeout", "2.5", "--device", "1"}), "(accepted)");
  EXPECT_EQ(timeout, 2.5);
  EXPECT_EQ(device, 1);
  // A duration reaches the program in seconds, however it was written.
  EXPECT_EQ(error({"--timeout", "250ms"}), "(accepted)");
  EXPECT_EQ(timeout, 0.25);
  EXPECT_EQ(error({"--timeout", "3s"}), "(accepted)");
  EXPECT_EQ(timeout, 3);
  EXPECT_EQ(error({"--timeout", ""}), "--timeout: is empty (give it a value, or leave it out)");
}

// One duration rule everywhere: "10s", "500ms" or bare seconds, the value in seconds; anything
// else refused with the unit named.
TEST(NumberOption, ADurationIsSecondsMillisecondsOrBareSeconds) {
  const auto seconds = [](const char* text) {
    const NumberValue v = read_number(text, kWaitSeconds);
    EXPECT_TRUE(v.ok()) << text << ": " << v.must;
    return v.value;
  };
  EXPECT_EQ(seconds("10"), 10);
  EXPECT_EQ(seconds("10s"), 10);
  EXPECT_EQ(seconds("500ms"), 0.5);
  EXPECT_EQ(seconds("0.5s"), 0.5);
  EXPECT_EQ(seconds("1e3ms"), 1);
  for (const char* bad : {"10 s", "10m", "10min", "s", "ms", "10sec", "10S", "1h", "0x1s", "inf"}) {
    EXPECT_NE(number_problem("--lock-timeout", bad, kWaitSeconds)
                  .find("(10s, 500ms or bare "
                        "seconds)"),
              std::string::npos)
        << bad;
  }
  EXPECT_EQ(number_problem("--max-time", "50ms", kPrecisionTimeRule),
            "--max-time must be >= 0.1 s, got 50ms");
  EXPECT_EQ(number_problem("--max-time", "2h", kPrecisionTimeRule),
            "--max-time must be a duration >= 0.1 s (10s, 500ms or bare seconds), got '2h'");
  EXPECT_EQ(number_problem("--max-time", "3601", kPrecisionTimeRule),
            "--max-time must be at most 3600 s, got 3601");
}

// One fraction rule everywhere: "2%" or "0.02"; a bare number of 1 or more is someone's percent,
// refused with both spellings, never read as 100 times the target.
TEST(NumberOption, AFractionIsAPercentOrAFractionAndABareOneOrMoreIsRefused) {
  const auto fraction = [](const char* text) {
    const NumberValue v = read_number(text, kPrecisionTargetRule);
    EXPECT_TRUE(v.ok()) << text << ": " << v.must;
    return v.value;
  };
  EXPECT_EQ(fraction("2%"), 0.02);
  EXPECT_EQ(fraction("0.02"), 0.02);
  EXPECT_EQ(fraction("7%"), 0.07);  // divided, so the same double as 0.07
  EXPECT_EQ(fraction("0.5%"), 0.005);
  EXPECT_EQ(fraction("50%"), 0.5);
  EXPECT_EQ(fraction("0.1%"), 0.001);
  EXPECT_EQ(number_problem("--precision", "2", kPrecisionTargetRule),
            "--precision must be a fraction, written 2% or 0.02, got 2");
  EXPECT_EQ(number_problem("--precision", "1", kPrecisionTargetRule),
            "--precision must be a fraction, written 1% or 0.01, got 1");
  EXPECT_EQ(number_problem("--precision", "60", kPrecisionTargetRule),
            "--precision must be a fraction from 0.1% to 50% (0.001 to 0.5), got 60");
  EXPECT_EQ(number_problem("--precision", "60%", kPrecisionTargetRule),
            "--precision must be a fraction from 0.1% to 50% (0.001 to 0.5), got 60%");
  EXPECT_EQ(number_problem("--precision", "0.0001", kPrecisionTargetRule),
            "--precision must be a fraction from 0.1% to 50% (0.001 to 0.5), got 0.0001");
  EXPECT_EQ(number_problem("precision", "-1", kPrecisionTargetRule),
            "precision must be a fraction from 0.1% to 50% (0.001 to 0.5), got -1");
  for (const char* bad : {"abc", "2%%", "%", "2 %", "nan", "inf", "0x1", "2 pct", ""}) {
    EXPECT_EQ(number_problem("--precision", bad, kPrecisionTargetRule),
              "--precision must be a fraction from 0.1% to 50% (0.001 to 0.5), written 1% or "
              "0.01, got '" +
                  std::string(bad) + "'")
        << bad;
  }
}

// One size rule: "512M", "2G", "1.5GiB" or bare bytes, K to T powers of 1024, the value whole
// bytes; "MB" (1000 or 1024?), lowercase units and sizes under the rule's minimum refused, the
// minimum said in the same units.
TEST(NumberOption, ASizeIsBytesOrKMGTInPowersOf1024) {
  const auto bytes = [](const char* text) {
    const NumberValue v = read_number(text, kMemoryLimitBytes);
    EXPECT_TRUE(v.ok()) << text << ": " << v.must;
    return v.value;
  };
  EXPECT_EQ(bytes("512M"), 512.0 * (1 << 20));
  EXPECT_EQ(bytes("2G"), 2.0 * (1 << 30));
  EXPECT_EQ(bytes("1.5GiB"), 1.5 * (1 << 30));
  EXPECT_EQ(bytes("4096K"), 4.0 * (1 << 20));
  EXPECT_EQ(bytes("2T"), 2.0 * (1ULL << 40));
  EXPECT_EQ(bytes("1048576"), 1 << 20);
  EXPECT_EQ(bytes("1048576.7"), 1 << 20);  // whole bytes: the part of one dropped
  EXPECT_EQ(size_text(1 << 20), "1M");
  EXPECT_EQ(size_text(1536 * 1024), "1536K");
  EXPECT_EQ(size_text(100), "100");
  EXPECT_EQ(number_rule_text(kMemoryLimitBytes), ">= 1M");
  EXPECT_EQ(number_problem("--memory", "100", kMemoryLimitBytes),
            "--memory must be >= 1M, got 100");
  EXPECT_EQ(number_problem("--memory", "-1G", kMemoryLimitBytes),
            "--memory must be >= 1M, got -1G");
  EXPECT_EQ(number_problem("--memory", "2000T", kMemoryLimitBytes),
            "--memory must be at most 1024T, got 2000T");
  for (const char* bad : {"", "G", "1X", "1g", "4096k", "1MB", "1 G", "100iB", "inf", "0x1G"}) {
    EXPECT_EQ(number_problem("--memory", bad, kMemoryLimitBytes),
              "--memory must be a size >= 1M (512M, 2G or bare bytes; K, M, G, T are powers of "
              "1024), got '" +
                  std::string(bad) + "'")
        << bad;
  }
  EXPECT_EQ(value_problem("--memory", 1024, kMemoryLimitBytes), "--memory must be >= 1M, got 1024");
}

// The gate's threshold is a fraction as every fraction is: `--fail-on-regression 10` once meant
// 10% where `--precision 10` is refused; now a bare 10 is refused with both spellings named, and
// 10% and 0.1 are one gate, on the command line and in the pytest plugin alike.
TEST(NumberOption, TheGateThresholdIsAFractionAndABarePercentIsRefused) {
  EXPECT_EQ(number_problem("--fail-on-regression", "10", kGateThresholdRule),
            "--fail-on-regression must be a fraction, written 10% or 0.1, got 10");
  EXPECT_EQ(number_problem("--gpumeter-fail-on-regression", "5", kGateThresholdRule),
            "--gpumeter-fail-on-regression must be a fraction, written 5% or 0.05, got 5");
  const NumberValue percent = read_number("10%", kGateThresholdRule);
  const NumberValue fraction = read_number("0.1", kGateThresholdRule);
  ASSERT_TRUE(percent.ok() && fraction.ok());
  EXPECT_EQ(percent.value, fraction.value);
  EXPECT_EQ(percent.value, 0.1);
  EXPECT_EQ(read_number("0", kGateThresholdRule).value, 0);      // any resolved slowdown fails
  EXPECT_EQ(read_number("200%", kGateThresholdRule).value, 2);   // above 100% only with its unit
  EXPECT_EQ(read_number("0.5", kGateThresholdRule).value, 0.5);  // a bare fraction below 1
  // The same gate however it was written, and shown as the user wrote it.
  const std::optional<GateOptions> a =
      gate_options(percent.value, false, "--fail-on-regression", "--allow-missing");
  const std::optional<GateOptions> b =
      gate_options(fraction.value, false, "--fail-on-regression", "--allow-missing");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->threshold, b->threshold);
  EXPECT_EQ(gate_threshold_text(a->threshold), "10%");
  EXPECT_EQ(gate_threshold_text(read_number("1.25%", kGateThresholdRule).value), "1.25%");
  EXPECT_EQ(gate_threshold_text(read_number("7%", kGateThresholdRule).value), "7%");
  // A number handed over as a number (Python) is held to the same bounds, in the same words.
  EXPECT_FALSE(gate_options(std::nullopt, false, "x", "--allow-missing").has_value());
  try {
    (void)gate_options(-0.05, false, "fail_on_regression", "--allow-missing");
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "fail_on_regression must be a fraction from 0% to 10000% (0 to 100), got -0.05");
  }
  EXPECT_THROW((void)gate_options(101, false, "x", "--allow-missing"), ConfigError);
  EXPECT_THROW(
      (void)gate_options(std::numeric_limits<double>::quiet_NaN(), false, "x", "--allow-missing"),
      ConfigError);
}

// A value handed over as a number is held to its rule's bounds in read_number's words.
TEST(NumberOption, AValueGivenAsANumberIsHeldToTheSameBounds) {
  EXPECT_EQ(value_problem("--timeout", 0.5, kLimitSeconds), "");
  EXPECT_EQ(value_problem("--timeout", 0, kLimitSeconds), "--timeout must be > 0 s, got 0");
  EXPECT_EQ(value_problem("--device", 1.5, kDeviceIndex),
            "--device must be an integer >= 0, got 1.5");
  EXPECT_EQ(value_problem("precision", 0.6, kPrecisionTargetRule),
            "precision must be a fraction from 0.1% to 50% (0.001 to 0.5), got 0.6");
  EXPECT_EQ(value_problem("x", 2, kGateThresholdRule), "");  // 200%: a fraction needs no unit here
}

// A fraction option on CLI11 reaches the program as a fraction, however it was written.
TEST(NumberOption, AFractionReachesTheProgramAsAFraction) {
  CLI::App app{"test"};
  std::string precision;
  check_number(app.add_option("--precision", precision), kPrecisionTargetRule);
  const char* percent[] = {"test", "--precision", "2%"};
  app.parse(3, percent);
  EXPECT_EQ(read_number(precision, kPrecisionTargetRule).value, 0.02);
  const char* bare[] = {"test", "--precision", "2"};
  try {
    app.parse(3, bare);
    ADD_FAILURE() << "accepted";
  } catch (const CLI::ParseError& e) {
    EXPECT_EQ(std::string(e.what()), "--precision must be a fraction, written 2% or 0.02, got 2");
  }
}

// A budget: two parts, each by the budget's rule, in the words of every numeric option.
TEST(NumberOption, ABudgetIsTwoMillisecondParts) {
  const BudgetValue b = read_budget("--budget", "25,100");
  EXPECT_TRUE(b.ok()) << b.problem;
  EXPECT_EQ(b.warmup_ms, 25);
  EXPECT_EQ(b.measure_ms, 100);
  EXPECT_EQ(read_budget("--budget", "25").problem,
            "--budget must be WARMUP_MS,MEASURE_MS (e.g. 25,100), got '25'");
  EXPECT_EQ(read_budget("--budget", "0,100").problem, "--budget's warm-up must be > 0 ms, got 0");
  EXPECT_EQ(read_budget("--budget", "25,inf").problem,
            "--budget's measurement must be a number > 0 ms, got 'inf'");
}

// The shared options are one spec each, their defaults the core's values.
TEST(OptionSpec, EachSharedOptionIsOneSpecWithTheCoresDefault) {
  std::vector<std::string> names;
  for (const OptionSpec& s : option_specs()) names.emplace_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"--timing", "--budget", "--precision", "--max-time",
                                             "--device", "--out"}));
  // --device: an index by the device index rule, 0 where none is named; --out: each front end's
  // own folder, so the spec states none.
  EXPECT_EQ(option_spec("--device").meaning.rule, &kDeviceIndex);
  EXPECT_EQ(option_spec("--device").default_text, "0");
  EXPECT_EQ(option_spec("--out").meaning.rule, nullptr);
  EXPECT_EQ(option_spec("--out").default_text, "");
  EXPECT_EQ(option_spec("--budget").default_text, "25,100");
  EXPECT_EQ(option_spec("--max-time").default_text, "10s");
  EXPECT_EQ(option_spec("--precision").meaning.rule, &kPrecisionTargetRule);
  EXPECT_EQ(option_spec("--max-time").meaning.rule, &kPrecisionTimeRule);
  EXPECT_EQ(option_spec("--max-time").python_name, "max_time_s");
  EXPECT_THROW((void)option_spec("--nope"), std::logic_error);
  // The default cap reads back as the core's.
  EXPECT_EQ(read_number(option_spec("--max-time").default_text, kPrecisionTimeRule).value * 1e9,
            static_cast<double>(PrecisionTarget{}.max_time_ns));
}

// An empty text option ("--precision ''") was read as the option not given.
TEST(NumberOption, AnEmptyValueIsRefusedByTheOptionsName) {
  CLI::App app{"test"};
  std::string precision;
  check_not_empty(app.add_option("--precision", precision));
  const char* argv[] = {"test", "--precision", ""};
  try {
    app.parse(3, argv);
    ADD_FAILURE() << "accepted";
  } catch (const CLI::ParseError& e) {
    EXPECT_EQ(std::string(e.what()), "--precision: is empty (give it a value, or leave it out)");
  }
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
