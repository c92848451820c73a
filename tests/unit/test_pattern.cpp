#include "gpumeter/pattern.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

bool found(const std::string& pattern, const std::string& name) {
  return NamePattern(pattern, "--filter").search(name);
}

// The message a refused pattern gives: one line naming the option.
std::string refusal(const std::string& pattern) {
  try {
    NamePattern(pattern, "--filter");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(NamePattern, SearchesLikeEcmaScript) {
  EXPECT_TRUE(found("gemm", "gemm/n=1024"));
  EXPECT_TRUE(found("n=10", "gemm/n=1024"));
  EXPECT_FALSE(found("^n=", "gemm/n=1024"));
  EXPECT_TRUE(found("^gemm/n=1024$", "gemm/n=1024"));
  EXPECT_FALSE(found("^gemm$", "gemm/n=1024"));
  EXPECT_TRUE(found("copy|gemm", "gemm/n=1"));
  EXPECT_TRUE(found("^(copy|gemm)/n=[0-9]+$", "copy/n=42"));
  EXPECT_FALSE(found("^(copy|gemm)/n=[0-9]+$", "copy/n=4x"));
  EXPECT_TRUE(found("n=\\d{3,4}$", "gemm/n=1024"));
  EXPECT_FALSE(found("n=\\d{5}$", "gemm/n=1024"));
  EXPECT_TRUE(found("a.c", "xabcx"));
  EXPECT_FALSE(found("a.c", "a\nc"));
  EXPECT_TRUE(found("[^a-z]", "abc1"));
  EXPECT_FALSE(found("[^a-z]", "abc"));
  EXPECT_TRUE(found("(?:ab)+c", "ababc"));
  EXPECT_TRUE(found("x*", ""));  // an empty match is a match
  EXPECT_TRUE(found("\\w+\\s\\d", "add 3"));
  EXPECT_TRUE(found("a{2}", "baab"));
  EXPECT_FALSE(found("a{3}", "baab"));
  EXPECT_TRUE(found("a{,2}", "a{,2}"));  // not a repeat: literal braces, as ECMAScript reads it
  EXPECT_TRUE(found("\\.\\*", "x.*"));
  EXPECT_TRUE(found("(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"));
  EXPECT_FALSE(found("(a*)*b", std::string(5000, 'a')));  // no backtracking blow-up
}

TEST(NamePattern, RefusesWhatItCannotMatchInOneLine) {
  for (const std::string bad : {"(ab", "ab)", "[ab", "*a", "a**", "\\1", "\\b", "(?=a)", "a\\",
                                "[z-a]", "a{1001}", "a{3,2}"}) {
    const std::string why = refusal(bad);
    EXPECT_NE(why, "") << bad;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    EXPECT_NE(why.find("--filter"), std::string::npos) << why;
  }
}

// The standard library's engine ended the process with SIGSEGV on 90,000 characters or 20,000
// nested groups: here a megabyte of pattern and 100,000 nested groups are refused by their
// bounds, quickly and in one line, and the deepest and largest accepted patterns still match.
TEST(NamePattern, HostileSizesAreRefusedNotASignal) {
  const std::string megabyte(1 << 20, 'a');
  const std::string nested = std::string(100000, '(') + "a" + std::string(100000, ')');
  for (const std::string& bad : {megabyte, nested, std::string(4000, '(') + std::string(4000, ')'),
                                 std::string("(a{1000}){1000}")}) {
    const auto start = std::chrono::steady_clock::now();
    const std::string why = refusal(bad);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_NE(why, "");
    EXPECT_EQ(why.find('\n'), std::string::npos);
    EXPECT_LT(why.size(), 400u);  // the pattern is cut in the message, not echoed whole
  }
  const std::string deepest =
      std::string(kMaxPatternDepth, '(') + "a" + std::string(kMaxPatternDepth, ')');
  EXPECT_TRUE(found(deepest, "xa"));
  EXPECT_EQ(refusal("(" + deepest + ")").find("deeper") != std::string::npos, true);
  const std::string longest(kMaxPatternBytes, 'a');
  EXPECT_TRUE(found(longest, "x" + longest));
  EXPECT_FALSE(found(longest, longest.substr(1)));
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
