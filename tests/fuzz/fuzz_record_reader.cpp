// libFuzzer target for the record reader and everything that renders records (B7): any bytes,
// as a record file would hold them, or two records around kSecondRecord. The reader must accept
// them or refuse them with InvalidRecord; a record it accepts must render (`report`), be inert,
// and write and read back to itself; compared with another (`compare`: its own halves, and the
// second record) it must account for every row and fail its gate on what it cannot see; merged
// (`merge`: its halves, and the two records) it must read back (record_property.hpp). Anything
// else aborts, and libFuzzer keeps the input as a crash. Built with GPUMETER_FUZZ=ON under Clang
// (tests/fuzz/run.sh), with AddressSanitizer and UndefinedBehaviorSanitizer. Every input is
// also read by the reader's JSON scanner and the JSON library's parser, which must agree.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "json_scan_property.hpp"
#include "record_property.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

using Json = nlohmann::ordered_json;

// Text that would break an output not made inert, and numbers at the edges of the ranges.
const char* const kTexts[] = {"\n# heading",
                              "\n| a | b |\n|---|---|",
                              "\x1b[2J",
                              "=1+2",
                              "-1",
                              "@x",
                              "v, z=1",
                              "a\\|b",
                              "<b>",
                              "[x](y)",
                              "\xc2\x9b",
                              "\xe2\x80\xae",
                              "",
                              " # x",
                              "`",
                              "null_test_scale"};
const double kNumbers[] = {0,    -0.0, 1,     -1,     0.5,    1e-300, 4.9e-324,
                           1e15, 1e24, 1e308, -1e308, 9.3e18, 1.8e19, 2147483648.0};

void leaves(Json& j, std::vector<Json*>& out) {
  if (j.is_object() || j.is_array()) {
    for (Json& child : j) leaves(child, out);
  } else {
    out.push_back(&j);
  }
}

// A record that parses as JSON, one leaf changed; false when `text` is not such a record.
bool mutate_leaf(std::string_view text, std::minstd_rand& random, std::string& out) {
  bool too_deep = false;
  const auto limit = [&](int depth, Json::parse_event_t, Json&) {
    too_deep = too_deep || depth > 64;
    return !too_deep;
  };
  Json j = Json::parse(text.begin(), text.end(), limit, /*allow_exceptions=*/false);
  if (j.is_discarded() || too_deep) return false;
  std::vector<Json*> all;
  leaves(j, all);
  if (all.empty()) return false;
  Json& leaf = *all[random() % all.size()];
  if (leaf.is_string() && !leaf.get_ref<const std::string&>().empty() && random() % 2 == 0) {
    // libFuzzer's own mutations of the text: any bytes, invalid UTF-8 replaced when written.
    std::string s = leaf.get<std::string>();
    const std::size_t most = s.size() + 64;
    s.resize(most);
    s.resize(LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(s.data()), most - 64, most));
    leaf = s;
  } else if (leaf.is_string() || random() % 4 == 0) {
    leaf = std::string(kTexts[random() % std::size(kTexts)]) +
           (random() % 2 == 0 ? leaf.dump() : std::string());
  } else if (leaf.is_boolean()) {
    leaf = !leaf.get<bool>();
  } else if (leaf.is_number_integer() && random() % 2 == 0) {
    // A neighbour, wrapping at the ends of 64 bits (unsigned arithmetic: no overflow).
    const std::uint64_t nearby = static_cast<std::uint64_t>(random() % 5) - 2u;
    if (leaf.is_number_unsigned()) {
      leaf = leaf.get<std::uint64_t>() + nearby;
    } else {
      leaf =
          static_cast<std::int64_t>(static_cast<std::uint64_t>(leaf.get<std::int64_t>()) + nearby);
    }
  } else {
    leaf = kNumbers[random() % std::size(kNumbers)];
  }
  out = j.dump(random() % 2 == 0 ? 2 : -1, ' ', false, Json::error_handler_t::replace);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The reader's JSON scanner reads every input as the JSON library does.
  if (const std::string problem = gpumeter::testing::json_scan_problem(text); !problem.empty()) {
    std::fprintf(stderr, "JSON scanner differs from the library: %s\n", problem.c_str());
    std::abort();
  }
  const gpumeter::testing::PropertyCheck check = gpumeter::testing::check_records_property(text);
  if (!check.violation.empty()) {
    std::fprintf(stderr, "record property violated: %s\n", check.violation.c_str());
    std::abort();
  }
  return 0;
}

// Byte mutations seldom keep a record the reader accepts (its summaries must match its samples,
// its comparisons its results), so on their own they seldom reach the renderer or the round
// trip. Half the mutations therefore change one leaf of the JSON instead: a text to other text
// (libFuzzer's mutations of it, or one made to break an output), a number to a nearby or an
// edge value.
// An input of two records has one of them changed, the other kept, so the pair stays a pair.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  std::minstd_rand random(seed);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (random() % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  const std::string_view separator = gpumeter::testing::kSecondRecord;
  const std::size_t split = text.find(separator);
  std::string mutated;
  if (split == std::string_view::npos) {
    if (!mutate_leaf(text, random, mutated)) return LLVMFuzzerMutate(data, size, max_size);
  } else {
    const std::string_view first = text.substr(0, split);
    const std::string_view second = text.substr(split + separator.size());
    const bool change_first = random() % 2 == 0;
    std::string changed;
    if (!mutate_leaf(change_first ? first : second, random, changed)) {
      return LLVMFuzzerMutate(data, size, max_size);
    }
    mutated = change_first ? changed + std::string(separator) + std::string(second)
                           : std::string(first) + std::string(separator) + changed;
  }
  if (mutated.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, mutated.data(), mutated.size());
  return mutated.size();
}
