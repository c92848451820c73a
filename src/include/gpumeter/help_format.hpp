#pragma once
// --help text that fits a terminal: every line of every program's and subcommand's help is
// wrapped to kHelpWidth columns. CLI11 (2.1 to 2.4) never wraps an option's description or a
// footer, so a long one ran to hundreds of columns; here its text is rewrapped after CLI11 has
// laid it out, continuing under the column where the description began.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

namespace gpumeter {

inline constexpr std::size_t kHelpWidth = 100;

namespace help_detail {

// Columns a UTF-8 line takes (one per code point: the help text has no wide characters).
inline std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// Where a line's wrapped text continues: under its description (the text after the first run
// of two or more spaces past the option's name), else under the line's own indentation.
inline std::size_t hanging_indent(const std::string& line, std::size_t width) {
  const std::size_t first = line.find_first_not_of(' ');
  if (first == std::string::npos) return 0;
  std::size_t hang = first;
  if (first > 0) {
    const std::size_t gap = line.find("  ", first);
    if (gap != std::string::npos) {
      const std::size_t text = line.find_first_not_of(' ', gap);
      if (text != std::string::npos) hang = text;
    }
  }
  // A description that starts far right would leave too little room: continue nearer the left.
  if (hang + 30 > width) hang = first + 4;
  return hang;
}

inline std::string wrap_line(const std::string& line, std::size_t width) {
  if (columns(line) <= width) return line;
  const std::size_t hang = hanging_indent(line, width);
  std::string out;
  std::string current = line.substr(0, hang);  // the name column, kept as CLI11 laid it out
  bool current_has_word = false;
  std::istringstream words(line.substr(hang));
  std::string word;
  while (words >> word) {
    // "(default 30)" is read as one: a line never ends in "(default" with its value on the next.
    if (word.size() >= 8 && word.compare(word.size() - 8, 8, "(default") == 0) {
      std::string value;
      if (words >> value) word += ' ' + value;
    }
    const std::size_t needed = columns(current) + (current_has_word ? 1 : 0) + columns(word);
    if (current_has_word && needed > width) {
      out += current + '\n';
      current = std::string(hang, ' ');
      current_has_word = false;
    }
    if (current_has_word) current += ' ';
    current += word;
    current_has_word = true;
  }
  out += current;
  return out;
}

}  // namespace help_detail

// Rewraps `text` line by line to `width` columns (a word longer than a line stays whole).
inline std::string wrap_help_text(const std::string& text, std::size_t width = kHelpWidth) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    out += help_detail::wrap_line(text.substr(start, end - start), width);
    if (!last) out += '\n';
    start = end + 1;
  }
  return out;
}

// CLI11's formatter, with every line of its output wrapped to kHelpWidth.
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return wrap_help_text(CLI::Formatter::make_help(app, std::move(name), mode));
  }
};

// Installs the wrapping formatter on `app`; subcommands added after this inherit it.
inline void use_wrapping_help(CLI::App& app) {
  app.formatter(std::make_shared<WrappingFormatter>());
}

}  // namespace gpumeter
