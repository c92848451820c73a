// The reader's property (B7, tests/fuzz/record_property.hpp) on the fuzzer's seed corpus of real
// records and on variants of them made deterministically: every record the reader accepts
// renders, is inert, and writes and reads back to the same record; nothing else escapes the
// reader. The fuzz target (tests/fuzz/run.sh) searches for counterexamples; this keeps the
// property in every unit test run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "record_property.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(GPUMETER_FUZZ_CORPUS_DIR)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Text and numbers at the edges: what breaks outputs, ranges and arithmetic if not handled.
const std::vector<std::string>& hostile_texts() {
  static const std::vector<std::string> texts = {
      "",
      " ",
      "\n# heading",
      "\n| a | b |\n|---|---|",
      "\x1b[2J\x1b[31mred",
      std::string("nul\0byte", 8),
      "\xc2\x9b"
      "31m",
      "\xe2\x80\xae"
      "rlo",
      "=1+2",
      "+1",
      "-1",
      "@SUM(A1)",
      "v, z=1",
      "a\\|b",
      "\\",
      "\"",
      "# x",
      "  > quote",
      "```",
      "<img src=x>",
      "[x](http://x)",
      "null_test_scale",
  };
  return texts;
}

const std::vector<ordered_json>& edge_numbers() {
  static const std::vector<ordered_json> numbers = {0,
                                                    -1,
                                                    1,
                                                    0.0,
                                                    -0.0,
                                                    0.5,
                                                    1e308,
                                                    -1e308,
                                                    1e-308,
                                                    4.9e-324,
                                                    1e15,
                                                    1e15 + 1,
                                                    1e24,
                                                    1e-300,
                                                    1000000000000000,
                                                    9223372036854775807LL,
                                                    std::uint64_t{18446744073709551615ULL},
                                                    2147483648LL,
                                                    -2147483649LL};
  return numbers;
}

// Every leaf of `j` (value that is not an object or array), by JSON pointer.
void leaves(const ordered_json& j, const ordered_json::json_pointer& at,
            std::vector<ordered_json::json_pointer>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) leaves(value, at / key, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) leaves(j[i], at / i, out);
  } else {
    out.push_back(at);
  }
}

// One variant of a record's JSON: a text set to a hostile one (half the time: text is what a
// reader must accept whatever it holds), or a leaf set to an edge number, a boolean flipped, an
// array emptied or grown, an object member dropped.
std::string mutate_json(ordered_json j, std::mt19937& random) {
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  const int edits = 1 + static_cast<int>(pick(3));
  for (int e = 0; e < edits; ++e) {
    std::vector<ordered_json::json_pointer> all;
    leaves(j, ordered_json::json_pointer(), all);
    std::vector<ordered_json::json_pointer> texts;
    std::copy_if(all.begin(), all.end(), std::back_inserter(texts),
                 [&](const auto& at) { return j[at].is_string(); });
    if (pick(2) == 0 && !texts.empty()) {
      j[texts[pick(texts.size())]] = hostile_texts()[pick(hostile_texts().size())];
      continue;
    }
    const ordered_json::json_pointer at = all[pick(all.size())];
    ordered_json& leaf = j[at];
    switch (pick(4)) {
      case 0:
        leaf = leaf.is_boolean() ? ordered_json(!leaf.get<bool>()) : ordered_json(nullptr);
        break;
      case 1: {
        ordered_json& parent = j[at.parent_pointer()];
        if (parent.is_array() && pick(2) == 0) {
          parent.push_back(ordered_json(parent.back()));
        } else if (parent.is_array()) {
          parent.erase(parent.size() - 1);
        }
        break;
      }
      case 2: {
        ordered_json& parent = j[at.parent_pointer()];
        if (parent.is_object()) parent.erase(at.back());
        break;
      }
      default:
        leaf = edge_numbers()[pick(edge_numbers().size())];
        break;
    }
  }
  return j.dump(pick(2) == 0 ? -1 : 2);
}

// One variant of the bytes: a byte changed, a range cut or repeated, a key doubled.
std::string mutate_bytes(std::string text, std::mt19937& random) {
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  const std::size_t at = pick(text.size());
  switch (pick(4)) {
    case 0:
      text[at] = static_cast<char>(pick(256));
      break;
    case 1:
      text.erase(at, pick(64));
      break;
    case 2:
      text.insert(at, text.substr(at, pick(64)));
      break;
    default: {
      // The first key after `at`, written twice.
      const std::size_t key = text.find("\": ", at);
      const std::size_t open = key == std::string::npos ? key : text.rfind('"', key - 1);
      const std::size_t end = key == std::string::npos ? key : text.find_first_of(",\n}", key);
      if (open != std::string::npos && end != std::string::npos) {
        text.insert(end, ", " + text.substr(open, end - open));
      }
      break;
    }
  }
  return text;
}

void expect_property(const std::string& text, const std::string& what, int& accepted) {
  const testing::PropertyCheck check = testing::check_record_property(text);
  EXPECT_TRUE(check.violation.empty()) << what << ": " << check.violation;
  if (check.accepted) ++accepted;
}

TEST(RecordProperty, EverySeedRecordIsAcceptedAndKeepsTheProperty) {
  const auto files = corpus_files();
  ASSERT_GE(files.size(), 5u) << GPUMETER_FUZZ_CORPUS_DIR;
  for (const fs::path& file : files) {
    const testing::PropertyCheck check = testing::check_record_property(read_file(file));
    EXPECT_TRUE(check.accepted) << file << " is not read as a record";
    EXPECT_TRUE(check.violation.empty()) << file << ": " << check.violation;
  }
}

TEST(RecordProperty, VariantsOfRealRecordsAreRefusedOrKeepTheProperty) {
  constexpr int kJsonVariants = 100;
  constexpr int kByteVariants = 30;
  int accepted = 0;
  int tried = 0;
  for (const fs::path& file : corpus_files()) {
    const std::string text = read_file(file);
    std::mt19937 random(20261130);  // fixed: the same variants on every run
    // A run's journal is JSON lines, not one document: its variants are of its bytes.
    const bool journal = file.extension() == ".jsonl";
    const ordered_json j = journal ? ordered_json() : ordered_json::parse(text);
    for (int i = 0; i < (journal ? 0 : kJsonVariants); ++i, ++tried) {
      expect_property(mutate_json(j, random),
                      file.filename().string() + " json variant " + std::to_string(i), accepted);
    }
    for (int i = 0; i < kByteVariants; ++i, ++tried) {
      expect_property(mutate_bytes(text, random),
                      file.filename().string() + " byte variant " + std::to_string(i), accepted);
    }
  }
  // Many variants must be accepted, or the property was hardly exercised past the reader.
  EXPECT_GE(accepted, tried / 8) << accepted << " of " << tried << " variants accepted";
}

// A narrow table fitted to its width by shortening its time titles carries a caption saying what
// the cells hold ("Times in us: ..."), wrapped into lines of any start: the property knows it
// as the renderer writes it (the fuzzer found a fitted table of one host-clock row it refused).
TEST(RecordProperty, ANarrowTablesCaptionIsALineTheRendererWrites) {
  int captions = 0;
  for (const fs::path& file : corpus_files()) {
    if (file.extension() == ".jsonl") continue;
    const Record seed = parse_record(read_file(file), file.string());
    if (seed.results.empty()) continue;
    for (std::size_t extra = 0; extra <= 80; extra += 2) {
      Record wide = seed;
      for (Result& r : wide.results) r.row.case_name += std::string(extra, 'x');
      const std::string narrow = testing::property_detail::render(wide).narrow;
      if (narrow.find("\nTimes in ") == std::string::npos &&
          narrow.find("\nThe null test column") == std::string::npos) {
        continue;
      }
      ++captions;
      EXPECT_EQ(testing::property_detail::markdown_problem(wide, narrow), "")
          << file.filename() << " with case names " << extra << " characters longer";
    }
  }
  EXPECT_GT(captions, 0) << "no seed record gave a fitted narrow table";
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
