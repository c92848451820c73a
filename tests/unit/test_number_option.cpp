// The rule every numeric command-line option follows (number_option.hpp): one readable line,
// naming the option, its rule and what was given.
#include "number_option.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpumeter {
namespace {

TEST(NumberOption, AcceptedValuesSayNothing) {
  EXPECT_EQ(number_problem("--timeout", "0.5", kLimitSeconds), "");
  EXPECT_EQ(number_problem("--timeout", "1e7", kLimitSeconds), "");
  EXPECT_EQ(number_problem("--lock-timeout", "0", kWaitSeconds), "");
  EXPECT_EQ(number_problem("--device", "3", kDeviceIndex), "");
  EXPECT_EQ(number_problem("--fail-on-regression", "2.5", kPercentThreshold), "");
  EXPECT_EQ(number_problem("--repeat", "1", kPositiveCount), "");
}

TEST(NumberOption, AWrongValueIsOneLineNamingTheOptionTheRuleAndTheValue) {
  EXPECT_EQ(number_problem("--timeout", "0", kLimitSeconds), "--timeout must be > 0 s, got 0");
  EXPECT_EQ(number_problem("--timeout", "1e99", kLimitSeconds),
            "--timeout must be at most 10000000 s, got 1e99");
  EXPECT_EQ(number_problem("--timeout", "", kLimitSeconds),
            "--timeout must be a number > 0 s, got ''");
  EXPECT_EQ(number_problem("--timeout", "nan", kLimitSeconds),
            "--timeout must be a number > 0 s, got 'nan'");
  EXPECT_EQ(number_problem("--timeout", "3s", kLimitSeconds),
            "--timeout must be a number > 0 s, got '3s'");
  EXPECT_EQ(number_problem("--lock-timeout", "-0.1", kWaitSeconds),
            "--lock-timeout must be >= 0 s, got -0.1");
  EXPECT_EQ(number_problem("--fail-on-regression", "-5", kPercentThreshold),
            "--fail-on-regression must be >= 0%, got -5");
  EXPECT_EQ(number_problem("--fail-on-regression", "inf", kPercentThreshold),
            "--fail-on-regression must be a number >= 0%, got 'inf'");
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
  EXPECT_EQ(number_problem("--fail-on-regression", "0x10", kPercentThreshold),
            "--fail-on-regression must be a number >= 0%, got '0x10'");
  EXPECT_EQ(number_problem("--fail-on-regression", "1e300", kPercentThreshold),
            "--fail-on-regression must be at most 10000%, got 1e300");
  EXPECT_EQ(number_problem("--fail-on-regression", "10000", kPercentThreshold), "");
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

}  // namespace
}  // namespace gpumeter
