// The record reader's JSON scanner (src/record/json_scan.hpp) against the JSON library's parser,
// its oracle: on any text, both accept or both refuse, and what both accept is the same value,
// numbers of the same kind. Used by the unit test (chosen texts) and the fuzzer (every input).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_scan.hpp"

namespace gpumeter::testing {

// Builds the library's document from the scanner's events; a key given twice keeps its last
// value, as the library's own builder does.
class ScannedDocument {
 public:
  nlohmann::json take() { return std::move(root_); }
  void null() { place(nullptr); }
  void boolean(bool b) { place(b); }
  void number_integer(std::int64_t i) { place(i); }
  void number_unsigned(std::uint64_t u) { place(u); }
  void number_float(double d) { place(d); }
  void string(std::string& s) { place(s); }
  void key(std::string& k) { member_ = &(*open_.back())[k]; }
  void start_object() { open_.push_back(place(nlohmann::json::object())); }
  void start_array() { open_.push_back(place(nlohmann::json::array())); }
  void end_object() { open_.pop_back(); }
  void end_array() { open_.pop_back(); }

 private:
  nlohmann::json* place(nlohmann::json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    if (open_.back()->is_array()) {
      open_.back()->push_back(std::move(value));
      return &open_.back()->back();
    }
    *member_ = std::move(value);
    return member_;
  }
  nlohmann::json root_;
  std::vector<nlohmann::json*> open_;
  nlohmann::json* member_ = nullptr;
};

// The two documents equal, and each number of the same kind (the library's == compares 1 and
// 1.0 as equal; the reader tells an unsigned count from a signed or real one). Without
// recursion: a document may nest as deep as its text allows.
inline bool same_document(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::pair<const nlohmann::json*, const nlohmann::json*>> todo{{&a, &b}};
  while (!todo.empty()) {
    const auto [x, y] = todo.back();
    todo.pop_back();
    if (x->type() != y->type()) return false;
    if (x->is_object()) {
      if (x->size() != y->size()) return false;
      for (auto i = x->begin(), j = y->begin(); i != x->end(); ++i, ++j) {
        if (i.key() != j.key()) return false;
        todo.emplace_back(&i.value(), &j.value());
      }
    } else if (x->is_array()) {
      if (x->size() != y->size()) return false;
      for (std::size_t i = 0; i < x->size(); ++i) todo.emplace_back(&(*x)[i], &(*y)[i]);
    } else if (x->is_number_float()) {
      // Bit for bit: a signed zero is kept.
      const double p = x->get<double>();
      const double q = y->get<double>();
      if (p != q || std::signbit(p) != std::signbit(q)) return false;
    } else if (*x != *y) {
      return false;
    }
  }
  return true;
}

// Whether the library refuses `text` for ending early (its error past the last byte).
inline bool library_ends_early(std::string_view text) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text.begin(), text.end());
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    return e.byte > text.size();
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return false;
}

// "" when the scanner and the library agree on `text`, else what differs. A text with a NUL
// byte is not compared: the library ends its input there, the reader refuses it before
// scanning.
inline std::string json_scan_problem(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return {};
  const nlohmann::json want = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                                    /*allow_exceptions=*/false);
  const bool library_accepts = !want.is_discarded();
  ScannedDocument built;
  const std::optional<json_scan::ScanError> error = json_scan::scan(text, built);
  if (library_accepts && error) {
    return "the scanner refused (at byte " + std::to_string(error->position) +
           ") what the library accepts";
  }
  if (!library_accepts && !error) return "the scanner accepted what the library refuses";
  if (error) {
    // Both refuse. Text cut short reads as such to both (the reader says "truncated?").
    const bool scanner_early = error->position > text.size();
    const bool library_early = library_ends_early(text);
    // The library reads a whole token before it checks where the token may stand, so a token
    // cut short by the end of the text where none may stand (`{"a": "x" "y`) ends its input
    // early, while the scanner stops at the token's first byte: the same text, refused for the
    // misplaced token by one and for its cut by the other.
    // (Positions are of the byte after the offending one, as the library counts.)
    const bool misplaced_token_cut_short = !scanner_early && library_early && error->position > 0 &&
                                           error->position <= text.size() &&
                                           library_ends_early(text.substr(error->position - 1));
    if (scanner_early != library_early && !error->number_out_of_range &&
        !misplaced_token_cut_short) {
      return scanner_early ? "the scanner says the text ended early; the library does not"
                           : "the library says the text ended early; the scanner does not";
    }
    return {};
  }
  if (!same_document(built.take(), want)) return "the scanner read another value than the library";
  return {};
}

}  // namespace gpumeter::testing
