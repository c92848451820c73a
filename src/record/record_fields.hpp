#pragma once
// Typed access to a parsed record's fields (record_fields.cpp), for every part of the record's
// reader: a field required or nullable, of its type and in its range, and one refused named by its
// path ("results[3].summary.n_samples") with what was expected and what was found. Internal to
// gpumeter_record.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/record.hpp"
#include "record_json.hpp"

namespace gpumeter::record_read {

using record_json::Doc;
using record_json::TextKind;

// The fields of one file (a record, a journal, a ceilings file): every refusal is an
// InvalidRecord naming its path.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& problem) const;

  const Doc& field(const Doc& object, const std::string& where, std::string_view key) const;

  static std::string join(const std::string& where, std::string_view key);

  void expect(bool ok, const Doc& value, const std::string& name, std::string_view wanted) const;

  // A string of at most kind.most bytes.
  std::string text_value(const Doc& v, const std::string& name, TextKind kind) const;

  std::string text(const Doc& object, const std::string& where, std::string_view key,
                   TextKind kind) const;

  // A string where null means "not available" and reads as "".
  std::string text_or_empty(const Doc& object, const std::string& where, std::string_view key,
                            TextKind kind) const;

  std::optional<std::string> optional_text(const Doc& object, const std::string& where,
                                           std::string_view key, TextKind kind) const;

  bool boolean(const Doc& object, const std::string& where, std::string_view key) const;

  template <typename Int>
  Int integer_value(const Doc& v, const std::string& name, Int lo = std::numeric_limits<Int>::min(),
                    Int hi = std::numeric_limits<Int>::max()) const {
    expect(v.is_number_integer(), v, name, "an integer");
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (std::cmp_less(u, lo) || std::cmp_greater(u, hi)) fail(out_of_range(name, u, lo, hi));
      return static_cast<Int>(u);
    }
    const auto s = v.get<std::int64_t>();
    if (std::cmp_less(s, lo) || std::cmp_greater(s, hi)) fail(out_of_range(name, s, lo, hi));
    return static_cast<Int>(s);
  }

  // Element i of an array, named (a string formatted) only when it is refused: a record holds
  // millions of elements.
  template <typename Int>
  Int integer_at(const Doc& array, std::size_t i, std::string_view array_name, Int lo,
                 Int hi) const {
    const Doc& v = array[i];
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (!std::cmp_less(u, lo) && !std::cmp_greater(u, hi)) return static_cast<Int>(u);
    }
    return integer_value<Int>(v, fmt::format("{}[{}]", array_name, i), lo, hi);
  }

  template <typename Int>
  Int integer(const Doc& object, const std::string& where, std::string_view key,
              Int lo = std::numeric_limits<Int>::min(),
              Int hi = std::numeric_limits<Int>::max()) const {
    return integer_value<Int>(field(object, where, key), join(where, key), lo, hi);
  }

  template <typename Int>
  std::optional<Int> optional_integer(const Doc& object, const std::string& where,
                                      std::string_view key,
                                      Int lo = std::numeric_limits<Int>::min(),
                                      Int hi = std::numeric_limits<Int>::max()) const {
    const Doc& v = field(object, where, key);
    if (v.is_null()) return std::nullopt;
    return integer_value<Int>(v, join(where, key), lo, hi);
  }

  // A finite number in [lo, hi]. The parser refuses numbers beyond a double's range; this
  // refuses the ones beyond the field's.
  double real_value(const Doc& v, const std::string& name, double lo, double hi) const;

  double real(const Doc& object, const std::string& where, std::string_view key, double lo,
              double hi) const;

  std::optional<double> optional_real(const Doc& object, const std::string& where,
                                      std::string_view key, double lo, double hi) const;

  // A duration in ms at the edge, back to integer ns inside.
  Nanos millis_as_nanos(const Doc& object, const std::string& where, std::string_view key) const;

  const Doc& array(const Doc& object, const std::string& where, std::string_view key) const;

  const Doc& object(const Doc& parent, const std::string& where, std::string_view key) const;

 private:
  template <typename Value, typename Int>
  static std::string out_of_range(const std::string& name, Value value, Int lo, Int hi) {
    return fmt::format("field {}: {} is out of range [{}, {}]", name, value, lo, hi);
  }

  const std::string& path_;
};

// An array of durations in ns, each in [0, kMaxNanos].
std::vector<Nanos> read_nanos(const Reader& r, const Doc& parent, const std::string& where,
                              std::string_view key);

// A name the record spells as one of a fixed set (a phase, a setting, a statistic).
template <typename T>
T read_named(const Reader& r, const Doc& j, const std::string& where, std::string_view key,
             std::optional<T> (*parse)(std::string_view), std::string_view what) {
  const std::string text = r.text(j, where, key, record_json::kName);
  const std::optional<T> value = parse(text);
  if (!value) {
    r.fail(fmt::format("field {}: {} is not {}", Reader::join(where, key),
                       record_json::record_text(text), what));
  }
  return *value;
}

}  // namespace gpumeter::record_read
