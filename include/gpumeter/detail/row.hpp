#pragma once
// The identity of a row of results: which case, with which parameter values, by which
// implementation. Every format (JSON, markdown, CSV) and every comparison names a row through this
// one key, formatted one way.
#include <compare>
#include <map>
#include <string>

namespace gpumeter {

// A case's parameter axes and their values, ordered by name.
using Params = std::map<std::string, std::string>;

struct RowKey {
  std::string case_name;
  Params params;
  std::string implementation;  // "" for a failure of the whole case

  friend bool operator==(const RowKey&, const RowKey&) = default;
  friend auto operator<=>(const RowKey&, const RowKey&) = default;
};

// "k=v, k2=v2" in key order. A value (or key) that would read ambiguously (empty, holding
// ',', '=', '"', '\\' or a control character, or with spaces at either end) is quoted with
// escapes, so "v, z=1" reads as one value: `a="v, z=1"`.
std::string format_params(const Params& params);

// "case / implementation (k=v, ...)", the implementation "(every implementation)" when empty.
std::string row_label(const RowKey& row);

// "case (k=v, ...)": the case a row is of, as --filter matches and --list prints it.
std::string case_label(const RowKey& row);

}  // namespace gpumeter
