// Axes, their command-line overrides, the cartesian product and filters, and what a Setup turns
// into: the bookkeeping of benchmark programs, without running anything.
#include "gpumeter/benchmark.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace {

std::vector<std::string> values(const Axis& a) {
  return a.values;
}

TEST(Axes, DeclaredValuesReadAsParamsShowThem) {
  EXPECT_EQ(values(int_axis("n", {1, 1000000000})), (std::vector<std::string>{"1", "1000000000"}));
  EXPECT_EQ(values(power_of_two_axis("n", {0, 10})), (std::vector<std::string>{"1", "1024"}));
  EXPECT_EQ(values(float_axis("x", {0.5, 1e-3})), (std::vector<std::string>{"0.5", "0.001"}));
  EXPECT_EQ(values(string_axis("t", {"bf16"})), (std::vector<std::string>{"bf16"}));
  EXPECT_THROW((void)power_of_two_axis("n", {63}), ConfigError);
}

TEST(Axes, OverridesParseListsRangesAndScientificIntegers) {
  const Axis n = int_axis("n", {1});
  EXPECT_EQ(values(override_axis(n, "1e5,1e6, 7")),
            (std::vector<std::string>{"100000", "1000000", "7"}));
  EXPECT_EQ(values(override_axis(n, "1:10:4")), (std::vector<std::string>{"1", "5", "9"}));
  const Axis p = power_of_two_axis("p", {1});
  EXPECT_EQ(values(override_axis(p, "2^10:2^14:4")),
            (std::vector<std::string>{"1024", "4096", "16384"}));
  EXPECT_EQ(values(override_axis(p, "4096,2^3")), (std::vector<std::string>{"4096", "8"}));
  EXPECT_EQ(values(override_axis(float_axis("x", {1}), "0.25,1e-3")),
            (std::vector<std::string>{"0.25", "0.001"}));
  EXPECT_EQ(values(override_axis(string_axis("t", {"a"}), "bf16,f32")),
            (std::vector<std::string>{"bf16", "f32"}));
}

TEST(Axes, AnIntegerAxisTakesPowersOfTwoAndTheirRanges) {
  // `--axis n=2^10:2^14:2` on an integer axis: the powers of two from 2^10 to 2^14.
  const Axis n = int_axis("n", {1});
  EXPECT_EQ(values(override_axis(n, "2^10:2^14:2")),
            (std::vector<std::string>{"1024", "2048", "4096", "8192", "16384"}));
  EXPECT_EQ(values(override_axis(n, "2^10:2^14:4")),
            (std::vector<std::string>{"1024", "4096", "16384"}));
  EXPECT_EQ(values(override_axis(n, "2^20:2^22")),
            (std::vector<std::string>{"1048576", "2097152", "4194304"}));
  EXPECT_EQ(values(override_axis(n, "2^3,100")), (std::vector<std::string>{"8", "100"}));
  // A range in powers of two has powers of two at both ends.
  EXPECT_THROW((void)override_axis(n, "2^10:1000"), ConfigError);
  EXPECT_THROW((void)override_axis(n, "2^63"), ConfigError);
}

TEST(Axes, BadOverridesNameTheAxisAndTheValue) {
  const Axis n = int_axis("n", {1});
  auto what = [](const Axis& a, const std::string& text) {
    try {
      (void)override_axis(a, text);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(what(n, "12x"), "axis 'n': '12x' is not an integer");
  EXPECT_EQ(what(n, "1.5"), "axis 'n': '1.5' is not an integer");
  EXPECT_EQ(what(n, ""), "axis 'n': no values given");
  EXPECT_EQ(what(n, "1,,2"), "axis 'n': an empty value in '1,,2'");
  EXPECT_EQ(what(n, "3,3"), "axis 'n': the value 3 is given twice");
  EXPECT_NE(what(n, "10:1").find("start <= stop"), std::string::npos);
  EXPECT_NE(what(n, "1:1000000000").find("more than 100000 values"), std::string::npos);
  // Near the limits of a long long: the span overflowed a signed difference, and the step past
  // stop wrapped around, adding values until memory ran out.
  EXPECT_NE(what(n, "-9000000000000000000:9000000000000000000").find("more than 100000 values"),
            std::string::npos);
  EXPECT_EQ(override_axis(n, "9223372036854775800:9223372036854775807:5").values,
            (std::vector<std::string>{"9223372036854775800", "9223372036854775805"}));
  EXPECT_EQ(what(power_of_two_axis("p", {1}), "1000"), "axis 'p': '1000' is not a power of two");
  EXPECT_EQ(what(float_axis("x", {1}), "nan"), "axis 'x': 'nan' is not a number");
}

void nothing(Setup&) {}

TEST(Plan, CartesianProductFirstAxisSlowestAndFilters) {
  Benchmark b("gemm", nothing);
  b.axis(int_axis("m", {1, 2})).axis(string_axis("t", {"bf16", "f32"}));
  Benchmark c("copy", nothing);
  const std::vector<PlannedCase> all = plan_cases({&b, &c}, {}, "");
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].label, "gemm (m=1, t=bf16)");
  EXPECT_EQ(all[1].label, "gemm (m=1, t=f32)");
  EXPECT_EQ(all[2].label, "gemm (m=2, t=bf16)");
  EXPECT_EQ(all[3].label, "gemm (m=2, t=f32)");
  EXPECT_EQ(all[4].label, "copy");
  EXPECT_EQ(plan_cases({&b, &c}, {}, "f32").size(), 2u);
  EXPECT_EQ(plan_cases({&b, &c}, {}, "^copy$").size(), 1u);
  const std::vector<PlannedCase> over = plan_cases({&b, &c}, {"m=8:10"}, "bf16");
  ASSERT_EQ(over.size(), 3u);
  EXPECT_EQ(over[2].params.at("m"), "10");
  EXPECT_THROW((void)plan_cases({&b}, {"k=1"}, ""), ConfigError);      // no such axis
  EXPECT_THROW((void)plan_cases({&b}, {"m"}, ""), ConfigError);        // no values
  EXPECT_THROW((void)plan_cases({&b}, {}, "(unclosed"), ConfigError);  // not a regex
}

TEST(Plan, BenchmarksRefuseDuplicateNamesAndAxes) {
  Registry r;
  Benchmark& b = r.add("one", nothing);
  EXPECT_THROW(r.add("one", nothing), ConfigError);
  b.axis(int_axis("n", {1}));
  EXPECT_THROW(b.axis(int_axis("n", {2})), ConfigError);
  EXPECT_THROW(b.axis(int_axis("m", {})), ConfigError);
}

TEST(SetupTest, AxisValuesByKindAndTheCaseItBecomes) {
  gpumeter::Setup s(
      "copy", {{"bytes", "1000"}, {"x", "0.5"}, {"t", "bf16"}},
      {{"bytes", AxisKind::integer}, {"x", AxisKind::floating}, {"t", AxisKind::text}}, 0);
  EXPECT_EQ(s.get_int("bytes"), 1000);
  EXPECT_EQ(s.get_float("x"), 0.5);
  EXPECT_EQ(s.get_string("t"), "bf16");
  EXPECT_THROW((void)s.get_int("t"), ConfigError);
  EXPECT_THROW((void)s.get_int("missing"), ConfigError);
  EXPECT_THROW((void)s.to_case(), ConfigError);  // no implementation yet
  int calls = 0;
  s.bytes(2000).flops(10).count_copies();
  s.implementation("a", [&] { ++calls; });
  EXPECT_THROW(s.implementation("a", [] {}), ConfigError);
  const Case c = s.to_case();
  EXPECT_EQ(c.name, "copy");
  EXPECT_EQ(c.params.at("bytes"), "1000");
  EXPECT_EQ(c.workload.bytes, 2000.0);
  EXPECT_TRUE(c.count_copies);
  ASSERT_EQ(c.implementations.size(), 1u);
  c.implementations[0].call.run();
  EXPECT_EQ(calls, 1);
}

TEST(SetupTest, TheReferenceChecksEveryImplementationWithItsTolerance) {
  gpumeter::Setup s("sum", {}, {}, 0);
  double out = 0;
  int reference_runs = 0;
  s.implementation("right", [&] { out = 10.0; });
  s.implementation("close", [&] { out = 10.0 + 1e-9; });
  s.implementation("wrong", [&] { out = 11.0; });
  s.reference(
      [&] {
        ++reference_runs;
        return std::vector<double>{10.0};
      },
      [&] { return std::vector<double>{out}; }, 1e-6);
  const Case c = s.to_case();
  for (const Implementation& impl : c.implementations) {
    impl.call.run();
    if (impl.name == "wrong") {
      try {
        impl.verify();
        FAIL() << "a wrong output passed";
      } catch (const VerificationFailed& e) {
        EXPECT_NE(std::string(e.what()).find("wrong: element 0 is 11"), std::string::npos)
            << e.what();
      }
    } else {
      EXPECT_NO_THROW(impl.verify()) << impl.name;
    }
  }
  EXPECT_EQ(reference_runs, 1);  // computed once, shared
}

// B11: with fresh inputs, every call's answer is checked against the reference on its own seed's
// inputs; an answer remembered from the first call is wrong for the next.
TEST(SetupTest, FreshInputsCheckEachAnswerAgainstTheReferenceOnTheSameInputs) {
  gpumeter::Setup s("double", {}, {}, 0);
  double in = 0;
  double out = 0;
  std::optional<double> remembered;
  s.fresh_inputs([&](std::uint64_t seed) { in = static_cast<double>(seed % 1000); });
  s.implementation("right", [&] { out = 2 * in; });
  s.implementation("memo", [&] {
    if (!remembered) remembered = 2 * in;
    out = *remembered;
  });
  s.reference([&] { return std::vector<double>{2 * in}; }, [&] { return std::vector<double>{out}; },
              0.0);
  const Case c = s.to_case();
  for (const Implementation& impl : c.implementations) {
    ASSERT_TRUE(impl.call.prepare && impl.call.check) << impl.name;
    for (std::uint64_t seed : {11u, 12u}) {
      impl.call.prepare(seed);
      impl.call.run();
      in = -1;  // the call's inputs overwritten: the check makes them again
      if (impl.name == "memo" && seed == 12u) {
        EXPECT_THROW(impl.call.check(seed), VerificationFailed);
      } else {
        EXPECT_NO_THROW(impl.call.check(seed)) << impl.name << " seed " << seed;
      }
    }
  }
}

// An atol as large as the reference's answer passes an answer of all zeros: refused at the first
// check, naming the value (the core's absolute_tolerance_problem).
TEST(SetupTest, AnAbsoluteToleranceThatPassesZerosIsRefusedAtTheFirstCheck) {
  for (const double atol : {1e300, 10.0}) {
    gpumeter::Setup s("sum", {}, {}, 0);
    double out = 0;
    s.implementation("zeros", [&] { out = 0; });
    s.reference(
        [] {
          return std::vector<double>{10.0, -3.0};
        },
        [&] {
          return std::vector<double>{out, out};
        },
        1e-6, atol);
    const Case c = s.to_case();
    c.implementations[0].call.run();
    try {
      c.implementations[0].verify();
      FAIL() << "atol " << atol << " passed an answer of zeros";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("is not small against the reference's answer "
                                           "(largest magnitude 10)"),
                std::string::npos)
          << e.what();
    }
  }
  // A small atol: the zeros are wrong, as they are.
  gpumeter::Setup s("sum", {}, {}, 0);
  double out = 0;
  s.implementation("zeros", [&] { out = 0; });
  s.reference(
      [] {
        return std::vector<double>{10.0, -3.0};
      },
      [&] {
        return std::vector<double>{out, out};
      },
      1e-6, 1e-3);
  const Case c = s.to_case();
  c.implementations[0].call.run();
  EXPECT_THROW(c.implementations[0].verify(), VerificationFailed);
}

TEST(SetupTest, SkipKeepsTheReason) {
  gpumeter::Setup s("x", {}, {}, 0);
  EXPECT_FALSE(s.skipped());
  s.skip("needs sm_90");
  EXPECT_TRUE(s.skipped());
  EXPECT_EQ(s.skip_reason(), "needs sm_90");
}

}  // namespace
}  // namespace gpumeter
