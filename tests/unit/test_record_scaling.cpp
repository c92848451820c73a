// The reader's time is linear in its input (B7): a record of many keys or many array elements
// costs in proportion to its size. The JSON library's builders were quadratic (100k extra keys
// took 8.3 s, 400k 109 s; 100k empty objects in an array 1.5 s), well inside the size limit.
//
// Times are this thread's CPU time, the least of a few runs: other processes on the machine do
// not count against it. The ratio test holds under load and under the sanitizers (they slow every
// size alike); the bound in seconds is checked only in an optimized build without sanitizers.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "synthetic_record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The least CPU time of `runs` reads of `text`, which must read.
double read_seconds(const std::string& text, int runs = 3) {
  double least = 1e300;
  for (int i = 0; i < runs; ++i) {
    const double start = thread_cpu_seconds();
    const Record r = parse_record(text, "scaling.json");
    least = std::min(least, thread_cpu_seconds() - start);
    EXPECT_EQ(r.results.size(), 2u);
  }
  return least;
}

// A real record (the synthetic one of every field) with `fill` placed as an extra field at its
// top level, which the reader reads and ignores.
std::string record_with(const std::string& fill) {
  std::string text = serialize(testing::full_record());
  text.insert(1, fill + ",");
  return text;
}

// n distinct keys of one object, each with `value`: "k0": 0, "k1": 0, ...
std::string keys(std::size_t n, std::string_view value = "0") {
  std::string text;
  text.reserve(n * (12 + value.size()));
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) text += ", ";
    text += "\"k" + std::to_string(i) + "\": ";
    text += value;
  }
  return text;
}

// An array of n elements, each `element`.
std::string array_of(std::size_t n, std::string_view element) {
  std::string text = "\"x\": [";
  text.reserve(n * (element.size() + 1) + 8);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) text += ',';
    text += element;
  }
  return text + "]";
}

constexpr std::size_t kMillion = 1'000'000;
#if !defined(NDEBUG) || defined(GPUMETER_SANITIZED) || defined(__SANITIZE_ADDRESS__)
// Unoptimized or instrumented, every size is slower alike: a quarter of the inputs keep the
// ratio test's run short.
constexpr std::size_t kLargest = kMillion / 4;
#else
constexpr std::size_t kLargest = kMillion;
#endif

// Eight times the input within 24 times the time: linear gives 8 (a little more where the larger
// input no longer fits the caches), quadratic 64.
void expect_linear(const std::string& eighth, const std::string& whole, const char* what,
                   int runs = 3) {
  const double small = read_seconds(eighth, runs);
  const double large = read_seconds(whole, runs);
  std::printf(
      "%s: %zu bytes in %.3f s, %zu bytes in %.3f s (CPU): %.1fx the time for %.1fx the "
      "input\n",
      what, eighth.size(), small, whole.size(), large, large / small,
      static_cast<double>(whole.size()) / static_cast<double>(eighth.size()));
  EXPECT_LT(large, 24 * small) << what;
}

TEST(RecordReaderScaling, ManyKeysReadInLinearTime) {
  expect_linear(record_with(keys(kLargest / 8)), record_with(keys(kLargest)),
                "extra keys in one object");
  // Many keys in a row's params, which are read (and each held to a name's length).
  std::string text = serialize(testing::full_record());
  const std::string params = "\"params\": {";
  const auto many_params = [&](std::size_t n) {
    std::string t = text;
    t.insert(t.find(params) + params.size(), keys(n, "\"1\"") + ",");
    return t;
  };
  expect_linear(many_params(kLargest / 8), many_params(kLargest), "params of one row", 1);
}

TEST(RecordReaderScaling, ManyArrayElementsReadInLinearTime) {
  // Objects and arrays as elements: the library's filtering builder rescanned the array at each
  // one's end.
  expect_linear(record_with(array_of(kLargest / 8, "{}")), record_with(array_of(kLargest, "{}")),
                "empty objects in an array");
  expect_linear(record_with(array_of(kLargest / 8, "[]")), record_with(array_of(kLargest, "[]")),
                "empty arrays in an array");
  expect_linear(record_with(array_of(kLargest / 8, "0")), record_with(array_of(kLargest, "0")),
                "numbers in an array");
}

// The bound the issue asks for, on this kind of machine (2 cores): 1M keys and 1M array
// elements each under a second. CPU time of the reading thread, so load elsewhere does not
// count; only where the build is optimized and not instrumented.
TEST(RecordReaderScaling, AMillionKeysOrElementsReadInUnderASecond) {
#if !defined(NDEBUG) || defined(GPUMETER_SANITIZED) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a bound in seconds holds in an optimized build without sanitizers only; the "
                  "linear-time tests above hold in every build";
#else
  EXPECT_LT(read_seconds(record_with(keys(kMillion))), 1.0) << "1M keys";
  EXPECT_LT(read_seconds(record_with(array_of(kMillion, "{}"))), 1.0) << "1M objects";
  EXPECT_LT(read_seconds(record_with(array_of(kMillion, "0"))), 1.0) << "1M numbers";
#endif
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
