// The record reader's JSON scanner against the JSON library's parser (B7): the same texts
// accepted and refused, the same values read (tests/fuzz/json_scan_property.hpp), on texts at
// every edge of the grammar and on the committed records, whole and cut short.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json_scan_property.hpp"

namespace gpumeter::testing {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;

TEST(JsonScan, AgreesWithTheLibraryAtEveryEdgeOfTheGrammar) {
  const std::vector<std::string> texts = {
      // Scalars, and what may surround them.
      "null", "true", "false", " \t\r\n true \n", "nul", "tru", "falsy", "nulll", "True", "", " ",
      "\xEF\xBB\xBF{}", "\xEF\xBB{}", "\xEF{}", "\xEF", "{} {}", "{}x", "[]]", "1 2",
      // Numbers: kinds, edges of 64 bits, of a double, and the grammar.
      "0", "-0", "1", "-1", "01", "-01", "00", "1.", ".5", "1.5", "-1.5e3", "1E5", "1e+5", "1e-5",
      "1e", "1e+", "-", "+1", "1.e5", "0.0", "-0.0", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
      "18446744073709551616", "123456789012345678901234567890", "1e308", "1.7976931348623157e308",
      "1.7976931348623159e308", "1e309", "-1e309", "1e-320", "4.9e-324", "2.4e-324", "2.5e-324",
      "1e-400", "-1e-400", "0e999999", "0.00000e-99999999999999999999", "1e99999999999999999999",
      "1e-99999999999999999999", "0.000000000000000000000000001e-300",
      "1000000000000000000000e-330", "[1,-0,0.5e1]",
      // Strings: escapes, surrogates, control bytes and UTF-8.
      R"("")", R"("a")", R"("\"\\\/\b\f\n\r\t")", R"("\x")", R"("\u0041")", R"("\u00e9")",
      R"("\u20AC")", R"("\uD83D\uDE00")", R"("\uD83D")", R"("\uDE00")", R"("\uD83Dx")",
      R"("\uD83D\u0041")", R"("\uD83D\uD83D")", R"("\u12")", R"("\u12G4")", R"("\u0000")", "\"a",
      "\"\\", "\"\\u", "\"\x01\"", "\"\x1f\"", "\"\x7f\"", "\"\t\"", "\"\xc3\xa9\"", "\"\xc3\"",
      "\"\xc3x\"", "\"\xc0\x80\"", "\"\xc1\xbf\"", "\"\xc2\x80\"", "\"\xe0\x9f\xbf\"",
      "\"\xe0\xa0\x80\"", "\"\xed\x9f\xbf\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbf\"",
      "\"\xf0\x8f\xbf\xbf\"", "\"\xf0\x90\x80\x80\"", "\"\xf4\x8f\xbf\xbf\"",
      "\"\xf4\x90\x80\x80\"", "\"\xf5\x80\x80\x80\"", "\"\x80\"", "\"\xff\"", "\"\xe2\x82\"",
      // Containers: empty, nested, keys, separators.
      "{}", "[]", "[", "]", "{", "}", "[1,]", "[,1]", "[1 2]", "{\"a\":1}", "{\"a\" : 1 }",
      "{\"a\":1,}", "{\"a\"}", "{\"a\":}", "{1:2}", "{\"a\":1 \"b\":2}", "{\"a\":1,\"a\":2}",
      "[[[[]]]]", "[[[[]]]", "{\"a\":{\"b\":[{}, [], null]}}", "[true,false,null,\"x\",1.5]",
      "{\"a\":[1,{\"b\":\"c\"}],\"d\":-2}", "[1]x", "[1]  ", "{\"a\":1}}",
      // A misplaced token cut short by the end (the fuzzer's, of CI's kind): the library reads
      // the token to the end first, the scanner stops at its first byte.
      "{\n  \"schma_versiun_id\": \"000\\u0000:'50'50Z\" \"", "{\"a\":\"x\" \"y", "{\"a\":1 tr",
      "[1 \"", "[1 -", "{\"a\" \"b"};
  for (const std::string& text : texts) {
    EXPECT_EQ(json_scan_problem(text), "") << "text: " << text;
  }
  // Deep nesting: the scanner holds no recursion.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(json_scan_problem(deep), "");
  EXPECT_EQ(json_scan_problem(deep.substr(0, deep.size() - 1)), "");
}

// The scanner's error positions are the library's where the reader's messages name them.
TEST(JsonScan, ErrorPositionsAreTheByteAfterTheOffendingOne) {
  struct Ignore {
    void null() {}
    void boolean(bool) {}
    void number_integer(std::int64_t) {}
    void number_unsigned(std::uint64_t) {}
    void number_float(double) {}
    void string(std::string&) {}
    void key(std::string&) {}
    void start_object() {}
    void start_array() {}
    void end_object() {}
    void end_array() {}
  } ignore;
  const auto at = [&](std::string_view text) {
    const auto error = json_scan::scan(text, ignore);
    return error ? error->position : 0;
  };
  EXPECT_EQ(at("{\"schema\": gpumeter}"), 12u);
  EXPECT_EQ(at("{} {}"), 4u);
  EXPECT_EQ(at("[1, 2"), 6u);  // ended early: one past the end
  EXPECT_EQ(at("\"\\q\""), 3u);
  EXPECT_EQ(at("[1]"), 0u);
  const auto range = json_scan::scan("[1e999]", ignore);
  ASSERT_TRUE(range.has_value());
  EXPECT_TRUE(range->number_out_of_range);
}

// Every committed record and journal, whole and cut at many places.
TEST(JsonScan, AgreesWithTheLibraryOnTheCommittedRecords) {
  std::size_t files = 0;
  for (const char* folder : {"tests/fuzz/corpus", "tests/data"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(GPUMETER_SOURCE_DIR) / folder)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      const std::string text = s.str();
      ++files;
      EXPECT_EQ(json_scan_problem(text), "") << entry.path();
      for (std::size_t cut = 1; cut < text.size(); cut += 1 + text.size() / 97) {
        EXPECT_EQ(json_scan_problem(text.substr(0, cut)), "") << entry.path() << " cut at " << cut;
      }
    }
  }
  EXPECT_GT(files, 20u);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter::testing
