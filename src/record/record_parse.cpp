// The record's JSON parse, bounded (record_parse.hpp): the text is counted and checked before
// anything is built, and the document is built with limits the JSON library does not set.
#include "record_parse.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/errors.hpp"
#include "json_scan.hpp"

namespace gpumeter::record_read {

using namespace record_json;

namespace {

// About how many values `text` holds, without parsing it: the commas and opening brackets outside
// strings (every element of an array or object after its first follows a comma; an empty
// container counts one too many). One cheap pass, so a forged record is refused before the
// parse grows.
std::size_t approximate_values(std::string_view text) {
  std::size_t n = 1;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == '[' || c == '{') {
      ++n;
    }
  }
  return n;
}

// Builds the document from the parser's events, with the limits the JSON library does not set
// by itself: nesting no deeper than kMaxDepth (a deep document would be copied and destroyed
// recursively), no key twice in one object (the library would keep the last silently, so one file
// could read two ways), no key longer than a name and no string longer than any field may hold.
// Each member is inserted once into an object kept by key, in log time; each element appended to
// its array. (The library's own builders were quadratic: its ordered objects searched every member
// per key inserted, and its filtering builder rescanned an array at each element's end.)
class DocumentBuilder final {
 public:
  explicit DocumentBuilder(const std::string& path, ResultTaker* results = nullptr)
      : path_(path), results_(results) {}

  Doc take() { return std::move(root_); }

  // The scanner's events (json_scan.hpp).
  void null() { place(Doc(nullptr)); }
  void boolean(bool value) { place(Doc(value)); }
  void number_integer(std::int64_t value) { place(Doc(value)); }
  void number_unsigned(std::uint64_t value) { place(Doc(value)); }
  void number_float(double value) { place(Doc(value)); }

  void string(std::string& value) {
    if (value.size() > kMaxArgumentBytes) {
      fail(fmt::format("a string of {} bytes, more than the {} any field of a record may hold",
                       value.size(), kMaxArgumentBytes));
    }
    place(Doc(std::move(value)));
  }

  void key(std::string& key) {
    if (key.size() > kMaxNameBytes) {
      fail(fmt::format("a key of {} bytes, more than the {} a name may hold", key.size(),
                       kMaxNameBytes));
    }
    auto& members = open_.back()->get_ref<Doc::object_t&>();
    const auto [at, fresh] = members.try_emplace(std::move(key));  // not moved from if not fresh
    if (!fresh) {
      fail(fmt::format("the key {} appears twice in one object; a record must read one way",
                       record_text(at->first)));
    }
    member_ = &at->second;
    if (open_.size() == 1) results_key_ = at->first == "results";
  }

  void start_object() { open(Doc::value_t::object); }
  void start_array() { open(Doc::value_t::array); }
  void end_object() { close(); }
  void end_array() { close(); }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw InvalidRecord(path_, problem); }

  // Places a value: the document itself, the next element of the open array, or the member whose
  // key came last.
  Doc* place(Doc&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Doc& parent = *open_.back();
    if (parent.is_array()) {
      auto& elements = parent.get_ref<Doc::array_t&>();
      elements.push_back(std::move(value));
      return &elements.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  void open(Doc::value_t type) {
    if (open_.size() >= static_cast<std::size_t>(kMaxDepth)) {
      fail(fmt::format("nested deeper than {} levels; no record is", kMaxDepth));
    }
    // A container's address is stable while it is open: its parent grows only after it closes.
    const bool results = open_.size() == 1 && results_key_ && type == Doc::value_t::array;
    open_.push_back(place(Doc(type)));
    if (results) results_array_ = open_.back();
  }

  void close() {
    // A row of the top level's `results` array, closed: read, and dropped from the document.
    if (results_ != nullptr && open_.size() == 3 && results_array_ == open_[1] &&
        results_->take(root_, *open_[2])) {
      *open_[2] = Doc();
    }
    open_.pop_back();
  }

  const std::string& path_;
  ResultTaker* results_ = nullptr;
  bool results_key_ = false;      // the last key of the top level was "results"
  Doc* results_array_ = nullptr;  // the top level's results, once opened
  Doc root_;
  std::vector<Doc*> open_;  // the containers open, outermost first
  Doc* member_ = nullptr;   // where the value after the last key goes
};

}  // namespace

// Parses with the limits above, after two checks on the text: no more than kMaxValues values,
// counted before anything is built, and no NUL byte. The JSON parser ends its input at a NUL, so
// whatever followed one (a 100 KB random tail) was ignored; JSON text has none, inside a string or
// out.
Doc parse_strict(std::string_view text, const std::string& path, ResultTaker* results) {
  // Each value counted is one byte of text at least: a text shorter than the limit is not
  // counted (the pass was an eighth of the time to read a 57 KB record).
  if (text.size() >= kMaxValues && approximate_values(text) > kMaxValues) {
    throw InvalidRecord(path, fmt::format("holds more than about {} values, the most a record "
                                          "may hold (a real record of the largest size holds "
                                          "about 50 million)",
                                          kMaxValues));
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    throw InvalidRecord(path, fmt::format("not valid JSON (a NUL byte at byte {} of {}; a record "
                                          "has none, and nothing after it)",
                                          nul, text.size()));
  }
  if (text.empty()) throw InvalidRecord(path, "not valid JSON (empty file)");
  DocumentBuilder builder(path, results);
  if (const std::optional<json_scan::ScanError> error = json_scan::scan(text, builder)) {
    if (error->number_out_of_range) {
      throw InvalidRecord(path, "not valid JSON for a record (a number beyond a double's range)");
    }
    const std::size_t at = error->position;
    if (at > text.size()) {
      throw InvalidRecord(
          path, fmt::format("not valid JSON (ends early at byte {}: truncated?)", text.size()));
    }
    throw InvalidRecord(path, fmt::format("not valid JSON (parse error at byte {})", at));
  }
  return builder.take();
}

}  // namespace gpumeter::record_read
