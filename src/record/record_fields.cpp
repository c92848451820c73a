// Typed access to a record's fields (record_fields.hpp).
#include "record_fields.hpp"

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/detail/escape.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter {

namespace record_json {

// Record text quoted in a message: control characters escaped, at most 80 characters, so a
// message about a forged record stays one harmless line.
std::string record_text(std::string_view text) {
  return quoted_text(text, 80);
}

}  // namespace record_json

namespace record_read {

using namespace record_json;

void Reader::fail(const std::string& problem) const {
  throw InvalidRecord(path_, problem);
}

const Doc& Reader::field(const Doc& object, const std::string& where, std::string_view key) const {
  if (!object.is_object())
    fail(fmt::format("{} is not an object", where.empty() ? "top level" : where));
  auto it = object.find(key);
  if (it == object.end()) fail("missing field " + join(where, key));
  return *it;
}

std::string Reader::join(const std::string& where, std::string_view key) {
  return where.empty() ? std::string(key) : where + "." + std::string(key);
}

void Reader::expect(bool ok, const Doc& value, const std::string& name,
                    std::string_view wanted) const {
  if (!ok) {
    fail(fmt::format("field {}: expected {}, found {}", name, wanted, value.type_name()));
  }
}

std::string Reader::text_value(const Doc& v, const std::string& name, TextKind kind) const {
  expect(v.is_string(), v, name, "a string");
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() > kind.most) {
    fail(fmt::format("field {}: {} bytes, more than the {} {} may hold", name, s.size(), kind.most,
                     kind.what));
  }
  return s;
}

std::string Reader::text(const Doc& object, const std::string& where, std::string_view key,
                         TextKind kind) const {
  return text_value(field(object, where, key), join(where, key), kind);
}

std::string Reader::text_or_empty(const Doc& object, const std::string& where, std::string_view key,
                                  TextKind kind) const {
  return optional_text(object, where, key, kind).value_or(std::string());
}

std::optional<std::string> Reader::optional_text(const Doc& object, const std::string& where,
                                                 std::string_view key, TextKind kind) const {
  const Doc& v = field(object, where, key);
  if (v.is_null()) return std::nullopt;
  expect(v.is_string(), v, join(where, key), "a string or null");
  return text_value(v, join(where, key), kind);
}

bool Reader::boolean(const Doc& object, const std::string& where, std::string_view key) const {
  const Doc& v = field(object, where, key);
  expect(v.is_boolean(), v, join(where, key), "true or false");
  return v.get<bool>();
}

double Reader::real_value(const Doc& v, const std::string& name, double lo, double hi) const {
  expect(v.is_number(), v, name, "a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) {
    fail(fmt::format("field {}: {} is out of range [{}, {}]", name, x, lo, hi));
  }
  return x;
}

double Reader::real(const Doc& object, const std::string& where, std::string_view key, double lo,
                    double hi) const {
  return real_value(field(object, where, key), join(where, key), lo, hi);
}

std::optional<double> Reader::optional_real(const Doc& object, const std::string& where,
                                            std::string_view key, double lo, double hi) const {
  const Doc& v = field(object, where, key);
  if (v.is_null()) return std::nullopt;
  return real_value(v, join(where, key), lo, hi);
}

Nanos Reader::millis_as_nanos(const Doc& object, const std::string& where,
                              std::string_view key) const {
  const double ms = real(object, where, key, 0, ms_of(kMaxNanos));
  return static_cast<Nanos>(std::round(ns_of(ms)));
}

const Doc& Reader::array(const Doc& object, const std::string& where, std::string_view key) const {
  const Doc& v = field(object, where, key);
  expect(v.is_array(), v, join(where, key), "an array");
  return v;
}

const Doc& Reader::object(const Doc& parent, const std::string& where, std::string_view key) const {
  const Doc& v = field(parent, where, key);
  expect(v.is_object(), v, join(where, key), "an object");
  return v;
}

std::vector<Nanos> read_nanos(const Reader& r, const Doc& parent, const std::string& where,
                              std::string_view key) {
  const Doc& a = r.array(parent, where, key);
  const std::string name = Reader::join(where, key);
  std::vector<Nanos> values;
  values.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    values.push_back(r.integer_at<Nanos>(a, i, name, 0, static_cast<Nanos>(kMaxNanos)));
  }
  return values;
}

}  // namespace record_read
}  // namespace gpumeter
