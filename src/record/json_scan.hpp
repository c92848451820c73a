// A strict JSON scanner (RFC 8259) that hands each value to a handler as it is read, for the
// record reader. It accepts exactly what the JSON library's parser accepts (tests/unit/
// test_json_scan.cpp and the fuzzer compare the two on every input) and gives the same values:
// a number without fraction or exponent is an unsigned integer, or a signed one when negative,
// and a double when it does not fit 64 bits; a double beyond a double's range is refused, one
// below it is zero. It exists because the library's lexer copied every byte it read into a
// token buffer kept for its error messages: a third of the time to read 10,000 records.
//
// The handler is called with null(), boolean(b), number_integer(i), number_unsigned(u),
// number_float(d), string(s), key(s), start_object(), end_object(), start_array() and
// end_array(); it may throw to stop. The scanner holds no recursion: depth is the handler's to
// limit.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace gpumeter::json_scan {

// Where the text stopped being JSON: the byte after the offending one (counting from 1), as
// the library counts; text.size() + 1 when it ended early.
struct ScanError {
  std::size_t position = 0;
  bool number_out_of_range = false;  // a number beyond a double's range
};

namespace detail {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::size_t at() const { return at_; }
  bool done() const { return at_ >= text_.size(); }
  char peek() const { return text_[at_]; }
  void advance() { ++at_; }

  // The error at the current byte (or past the end).
  ScanError error() const { return ScanError{std::min(at_, text_.size()) + 1, false}; }

  void skip_space() {
    while (at_ < text_.size() && is_space(text_[at_])) ++at_;
  }

  // A byte order mark is skipped at the start, as the library does; a partial one is an error.
  bool skip_bom() {
    if (text_.empty() || static_cast<unsigned char>(text_[0]) != 0xEF) return true;
    if (text_.size() >= 3 && static_cast<unsigned char>(text_[1]) == 0xBB &&
        static_cast<unsigned char>(text_[2]) == 0xBF) {
      at_ = 3;
      return true;
    }
    // The library stops at the first byte that is not the mark's.
    at_ = 1;
    if (text_.size() > 1 && static_cast<unsigned char>(text_[1]) == 0xBB) at_ = 2;
    return false;
  }

  bool literal(std::string_view word) {
    for (const char c : word) {
      if (at_ >= text_.size() || text_[at_] != c) return false;
      ++at_;
    }
    return true;
  }

  // A string, its opening quote at the current byte; false at the first byte that is not JSON.
  bool string(std::string& out) {
    out.clear();
    ++at_;  // the opening quote
    for (;;) {
      // The plain run: printable ASCII other than the quote and the backslash.
      const std::size_t start = at_;
      while (at_ < text_.size()) {
        const auto c = static_cast<unsigned char>(text_[at_]);
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
        ++at_;
      }
      out.append(text_.data() + start, at_ - start);
      if (at_ >= text_.size()) return false;
      const auto c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') {
        ++at_;
        return true;
      }
      if (c < 0x20) return false;  // a control character must be escaped
      if (c == '\\') {
        if (!escape(out)) return false;
      } else if (!utf8(out)) {
        return false;
      }
    }
  }

  // A number, its first byte at the current one. `value` tells which kind it was.
  enum class Number { invalid, out_of_range, signed_integer, unsigned_integer, real };
  struct NumberValue {
    Number kind = Number::invalid;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
  };
  NumberValue number() {
    NumberValue v;
    const std::size_t start = at_;
    const bool negative = text_[at_] == '-';
    if (negative) ++at_;
    if (at_ >= text_.size() || !is_digit(text_[at_])) return v;
    if (text_[at_] == '0') {
      ++at_;
    } else {
      while (at_ < text_.size() && is_digit(text_[at_])) ++at_;
    }
    bool integer = true;
    if (at_ < text_.size() && text_[at_] == '.') {
      integer = false;
      ++at_;
      if (at_ >= text_.size() || !is_digit(text_[at_])) return v;
      while (at_ < text_.size() && is_digit(text_[at_])) ++at_;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      integer = false;
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (at_ >= text_.size() || !is_digit(text_[at_])) return v;
      while (at_ < text_.size() && is_digit(text_[at_])) ++at_;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + at_;
    if (integer) {
      // Negative: a signed integer; otherwise unsigned; either as a double when beyond 64 bits.
      if (negative) {
        if (const auto r = std::from_chars(first, last, v.i);
            r.ec == std::errc() && r.ptr == last) {
          v.kind = Number::signed_integer;
          return v;
        }
      } else if (const auto r = std::from_chars(first, last, v.u);
                 r.ec == std::errc() && r.ptr == last) {
        v.kind = Number::unsigned_integer;
        return v;
      }
    }
    const auto r = std::from_chars(first, last, v.d);
    if (r.ec == std::errc() && r.ptr == last) {
      v.kind = Number::real;
      return v;
    }
    if (r.ec != std::errc::result_out_of_range || r.ptr != last) return v;  // not expected
    // Beyond a double's range: below it reads as zero (the library's strtod gives a signed zero),
    // above it is refused.
    if (order_of_magnitude(std::string_view(first, at_ - start)) < 0) {
      v.kind = Number::real;
      v.d = negative ? -0.0 : 0.0;
    } else {
      v.kind = Number::out_of_range;
    }
    return v;
  }

 private:
  // The decimal order of magnitude of a valid number that is not zero, saturated: its sign is
  // all that is used.
  static long long order_of_magnitude(std::string_view n) {
    long long digits_before_point = 0;
    long long first_nonzero = -1;  // its index among the mantissa's digits
    long long index = 0;
    bool after_point = false;
    std::size_t i = n[0] == '-' ? 1 : 0;
    for (; i < n.size() && n[i] != 'e' && n[i] != 'E'; ++i) {
      if (n[i] == '.') {
        after_point = true;
        continue;
      }
      if (first_nonzero < 0 && n[i] != '0') first_nonzero = index;
      if (!after_point) ++digits_before_point;
      ++index;
    }
    long long exponent = 0;
    if (i < n.size()) {
      ++i;
      bool minus = false;
      if (n[i] == '+' || n[i] == '-') minus = n[i++] == '-';
      for (; i < n.size(); ++i) {
        if (exponent < 1'000'000'000'000LL) exponent = exponent * 10 + (n[i] - '0');
      }
      if (minus) exponent = -exponent;
    }
    if (first_nonzero < 0) return -1;  // zero (never out of range)
    return digits_before_point - first_nonzero - 1 + exponent;
  }

  bool escape(std::string& out) {
    ++at_;  // the backslash
    if (at_ >= text_.size()) return false;
    const char c = text_[at_++];
    switch (c) {
      case '"':
        out.push_back('"');
        return true;
      case '\\':
        out.push_back('\\');
        return true;
      case '/':
        out.push_back('/');
        return true;
      case 'b':
        out.push_back('\b');
        return true;
      case 'f':
        out.push_back('\f');
        return true;
      case 'n':
        out.push_back('\n');
        return true;
      case 'r':
        out.push_back('\r');
        return true;
      case 't':
        out.push_back('\t');
        return true;
      case 'u':
        break;
      default:
        --at_;
        return false;
    }
    std::uint32_t code = 0;
    if (!hex4(code)) return false;
    if (code >= 0xDC00 && code <= 0xDFFF) return false;  // a low surrogate alone
    if (code >= 0xD800 && code <= 0xDBFF) {
      // A high surrogate: a low one must follow, escaped.
      if (at_ >= text_.size() || text_[at_] != '\\') return false;
      ++at_;
      if (at_ >= text_.size() || text_[at_] != 'u') return false;
      ++at_;
      std::uint32_t low = 0;
      if (!hex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return false;
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, code);
    return true;
  }

  bool hex4(std::uint32_t& code) {
    for (int k = 0; k < 4; ++k) {
      if (at_ >= text_.size()) return false;
      const int h = hex_value(text_[at_]);
      if (h < 0) return false;
      code = code * 16 + static_cast<std::uint32_t>(h);
      ++at_;
    }
    return true;
  }

  // One UTF-8 sequence of two to four bytes, well formed (no overlong form, no surrogate, nothing
  // beyond U+10FFFF), its lead byte at the current one.
  bool utf8(std::string& out) {
    const auto byte = [&](std::size_t k) {
      return static_cast<unsigned char>(at_ + k < text_.size() ? text_[at_ + k] : 0);
    };
    const unsigned char lead = byte(0);
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    std::size_t length = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    for (std::size_t k = 1; k < length; ++k) {
      const unsigned char b = byte(k);
      const unsigned char lo = k == 1 ? low : 0x80;
      const unsigned char hi = k == 1 ? high : 0xBF;
      if (b < lo || b > hi) {
        at_ += k;
        return false;
      }
    }
    out.append(text_.data() + at_, length);
    at_ += length;
    return true;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace detail

// Scans `text` as one JSON value (whitespace around it), calling `handler` for each part; the
// error where it is not JSON, or nothing.
template <class Handler>
std::optional<ScanError> scan(std::string_view text, Handler& handler) {
  detail::Scanner s(text);
  if (!s.skip_bom()) return s.error();
  std::vector<char> open;  // '{' or '[' for each container open, outermost first
  std::string part;        // the last string or key read
  // A member's key and its colon, the key's quote next (after whitespace).
  const auto key = [&]() {
    s.skip_space();
    if (s.done() || s.peek() != '"' || !s.string(part)) return false;
    handler.key(part);
    s.skip_space();
    if (s.done() || s.peek() != ':') return false;
    s.advance();
    return true;
  };
  for (;;) {
    // A value: a scalar whole, or a container opened (and closed at once when empty).
    s.skip_space();
    if (s.done()) return s.error();
    const char c = s.peek();
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      s.advance();
      c == '{' ? handler.start_object() : handler.start_array();
      s.skip_space();
      if (s.done() || s.peek() != close) {
        open.push_back(c);
        if (c == '{' && !key()) return s.error();
        continue;  // its first value
      }
      s.advance();
      c == '{' ? handler.end_object() : handler.end_array();
    } else if (c == '"') {
      if (!s.string(part)) return s.error();
      handler.string(part);
    } else if (c == 't' || c == 'f' || c == 'n') {
      const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
      if (!s.literal(word)) return s.error();
      c == 'n' ? handler.null() : handler.boolean(c == 't');
    } else if (c == '-' || detail::is_digit(c)) {
      const std::size_t start = s.at();
      const detail::Scanner::NumberValue n = s.number();
      using Number = detail::Scanner::Number;
      switch (n.kind) {
        case Number::invalid:
          return s.error();
        case Number::out_of_range:
          return ScanError{start + 1, true};
        case Number::signed_integer:
          handler.number_integer(n.i);
          break;
        case Number::unsigned_integer:
          handler.number_unsigned(n.u);
          break;
        case Number::real:
          handler.number_float(n.d);
          break;
      }
    } else {
      return s.error();
    }
    // After a whole value: containers closed, until the next value of the one open.
    for (;;) {
      s.skip_space();
      if (open.empty()) {
        if (!s.done()) return s.error();  // only whitespace may follow the value
        return std::nullopt;
      }
      if (s.done()) return s.error();
      const char next = s.peek();
      if (next == ',') {
        s.advance();
        if (open.back() == '{' && !key()) return s.error();
        break;
      }
      if (next != (open.back() == '{' ? '}' : ']')) return s.error();
      s.advance();
      open.back() == '{' ? handler.end_object() : handler.end_array();
      open.pop_back();
    }
  }
}

}  // namespace gpumeter::json_scan
