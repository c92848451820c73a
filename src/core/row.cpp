#include "gpumeter/row.hpp"

#include <string>

namespace gpumeter {
namespace {

bool needs_quotes(const std::string& text) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ') return true;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '=' || c == '"' || c == '\\' || u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

std::string quoted(const std::string& text) {
  if (!needs_quotes(text)) return text;
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      static const char* const kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
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

std::string row_label(const RowKey& row) {
  std::string label =
      row.case_name + " / " +
      (row.implementation.empty() ? std::string("(every implementation)") : row.implementation);
  if (!row.params.empty()) label += " (" + format_params(row.params) + ")";
  return label;
}

}  // namespace gpumeter
