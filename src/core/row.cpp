#include "gpumeter/detail/row.hpp"

#include <string>

#include "gpumeter/detail/escape.hpp"

namespace gpumeter {
namespace {

// Quoted where it would read ambiguously: empty, spaces at either end, a separator, a quote or
// backslash, or a character escape.hpp shows escaped (a control).
bool needs_quotes(const std::string& text) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ') return true;
  if (text.find_first_of(",=\"\\") != std::string::npos) return true;
  return inert_text(text) != text;
}

std::string quoted(const std::string& text) {
  return needs_quotes(text) ? quoted_text(text) : text;
}

}  // namespace

std::string format_params(const Params& params) {
  std::string text;
  for (const auto& [key, value] : params) {
    if (!text.empty()) text += ", ";
    text += quoted(key) + "=" + quoted(value);
  }
  return text;
}

std::string case_label(const RowKey& row) {
  std::string label = row.case_name;
  if (!row.params.empty()) label += " (" + format_params(row.params) + ")";
  return label;
}

std::string row_label(const RowKey& row) {
  std::string label =
      row.case_name + " / " +
      (row.implementation.empty() ? std::string("(every implementation)") : row.implementation);
  if (!row.params.empty()) label += " (" + format_params(row.params) + ")";
  return label;
}

}  // namespace gpumeter
