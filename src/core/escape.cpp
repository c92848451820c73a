#include "gpumeter/detail/escape.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace gpumeter {
namespace {

// The length of a character a reader would not see as written, at the start of `text`, or 0:
// a C0 control or DEL (newline, ESC, NUL...), a C1 control in UTF-8 (U+0080 to U+009F: U+009B
// is a CSI of its own), a bidirectional mark, embedding, override or isolate (U+061C, U+200E,
// U+200F, U+202A to U+202E, U+2066 to U+2069), which would reorder what is shown around it, or a
// character that shows nothing or breaks a line outside the line's own end: the soft hyphen
// U+00AD, U+180E, the zero-width characters U+200B to U+200D, the line and paragraph separators
// U+2028 and U+2029, U+2060 to U+2065 and U+206A to U+206F, the byte order mark U+FEFF and the
// interlinear annotation marks U+FFF9 to U+FFFB. Two names that look alike are then told apart,
// and no name moves or hides the text beside it.
std::size_t control_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  if (byte(0) < 0x20 || byte(0) == 0x7f) return 1;
  if (text.size() >= 2 && byte(0) == 0xc2 &&
      ((byte(1) >= 0x80 && byte(1) <= 0x9f) || byte(1) == 0xad)) {
    return 2;
  }
  if (text.size() >= 2 && byte(0) == 0xd8 && byte(1) == 0x9c) return 2;  // U+061C
  if (text.size() < 3) return 0;
  const unsigned b1 = byte(1);
  const unsigned b2 = byte(2);
  if (byte(0) == 0xe2) {
    // U+200B to U+200F, and U+2028 to U+202E.
    if (b1 == 0x80 && ((b2 >= 0x8b && b2 <= 0x8f) || (b2 >= 0xa8 && b2 <= 0xae))) return 3;
    // U+2060 to U+206F (U+2066 to U+2069 are the isolates).
    if (b1 == 0x81 && b2 >= 0xa0 && b2 <= 0xaf) return 3;
  }
  if (byte(0) == 0xe1 && b1 == 0xa0 && b2 == 0x8e) return 3;                // U+180E
  if (byte(0) == 0xef && b1 == 0xbb && b2 == 0xbf) return 3;                // U+FEFF
  if (byte(0) == 0xef && b1 == 0xbf && b2 >= 0xb9 && b2 <= 0xbb) return 3;  // U+FFF9 to U+FFFB
  return 0;
}

// `value` as `digits` lower-case hex digits.
std::string hex(unsigned value, int digits) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, value >>= 4)
    out[static_cast<std::size_t>(i)] = kHex[value & 0xfu];
  return out;
}

// The code point of a control of control_length() n, as the reader sees it: \xNN or \uNNNN.
std::string shown_control(std::string_view c) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned>(c[i]) & 0xffu; };
  if (c.size() == 1) return "\\x" + hex(byte(0), 2);
  if (c.size() == 2) return "\\u" + hex(((byte(0) & 0x1fu) << 6) | (byte(1) & 0x3fu), 4);
  return "\\u" + hex(((byte(0) & 0x0fu) << 12) | ((byte(1) & 0x3fu) << 6) | (byte(2) & 0x3fu), 4);
}

bool ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Markup anywhere in a line: escapes and cell ends, HTML and autolinks, links and images,
// entities, emphasis, code spans, strikethrough, math.
constexpr std::string_view kInlineMarkup = "\\|<[&*`~$";
// What opens a block at the start of a line's content (after spaces or not); '*', '`' and '~'
// are escaped anywhere already.
constexpr std::string_view kBlockMarkers = "#>-+";

}  // namespace

std::string inert_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t n = control_length(text);
    if (n > 0) {
      out += shown_control(text.substr(0, n));
      text.remove_prefix(n);
    } else {
      out += text.front();
      text.remove_prefix(1);
    }
  }
  return out;
}

std::string markdown_text(std::string_view text, MarkdownPlace place) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  // What the line's content holds so far, kept as it goes (a scan of `out` per character would
  // take time quadratic in a long name): only spaces, or spaces then digits.
  bool blank = place == MarkdownPlace::line_start;
  bool digits = false;
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = control_length(text.substr(i)); n > 0) {
      out += shown_control(text.substr(i, n));
      i += n;
      blank = digits = false;
      continue;
    }
    const char c = text[i];
    // Spaces before a marker still let it open its block; so do digits before '.' or ')' (an
    // ordered list item: "1. x").
    const bool lead = blank && kBlockMarkers.find(c) != std::string_view::npos;
    const bool ordered = digits && (c == '.' || c == ')');
    // An underscore between two letters or digits opens and closes nothing (CommonMark's
    // flanking rules): decode_rmsnorm stays as it is written.
    const bool loose_underscore = c == '_' && !(i > 0 && ascii_alnum(text[i - 1]) &&
                                                i + 1 < text.size() && ascii_alnum(text[i + 1]));
    if (lead || ordered || loose_underscore || kInlineMarkup.find(c) != std::string_view::npos) {
      out += '\\';
    }
    out += c;
    ++i;
    const bool digit = c >= '0' && c <= '9';
    digits = (blank || digits) && digit;
    blank = blank && c == ' ';
  }
  return out;
}

namespace {

// Whether `cell` begins with a character a spreadsheet reads as the start of a formula: = + - @
// and their fullwidth (U+FF1D, U+FF0B, U+FF0D, U+FF20) and small (U+FE66, U+FE62, U+FE63,
// U+FE6B) forms, which some spreadsheets fold to the ASCII ones.
bool formula_lead(std::string_view cell) {
  if (cell.empty()) return false;
  if (std::string_view("=+-@").find(cell.front()) != std::string_view::npos) return true;
  static constexpr std::string_view kWideLeads[] = {"\xef\xbc\x9d", "\xef\xbc\x8b", "\xef\xbc\x8d",
                                                    "\xef\xbc\xa0", "\xef\xb9\xa6", "\xef\xb9\xa2",
                                                    "\xef\xb9\xa3", "\xef\xb9\xab"};
  for (const std::string_view lead : kWideLeads) {
    if (cell.substr(0, lead.size()) == lead) return true;
  }
  return false;
}

}  // namespace

std::string csv_cell(std::string_view text) {
  std::string cell = inert_text(text);
  if (formula_lead(cell)) cell.insert(cell.begin(), '\'');
  if (cell.find_first_of(",\"") == std::string::npos) return cell;
  std::string out = "\"";
  for (const char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string html_text(std::string_view text) {
  const std::string shown = inert_text(text);
  std::string out;
  out.reserve(shown.size() + shown.size() / 8);
  for (const char c : shown) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string quoted_text(std::string_view text, std::size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  if (cut) text = text.substr(0, max_bytes);
  std::string escaped;
  escaped.reserve(text.size() + 2);
  for (const char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "\"" + inert_text(escaped) + (cut ? "..." : "") + "\"";
}

std::string one_line(std::string_view text, std::size_t max_bytes) {
  std::string flat;
  flat.reserve(text.size());
  for (const char c : text) {
    // Line and argument separators read as one space.
    if (c == '\n' || c == '\r' || c == '\t' || c == '\0') {
      if (!flat.empty() && flat.back() != ' ') flat += ' ';
    } else {
      flat += c;
    }
  }
  while (!flat.empty() && flat.back() == ' ') flat.pop_back();
  if (flat.size() <= max_bytes) return inert_text(flat);
  return inert_text(std::string_view(flat).substr(0, max_bytes)) + "...";
}

std::string ci_annotation_text(std::string_view text, CiAnnotationPart part) {
  // GitHub Actions decodes %25, %0D and %0A in a command's message, and %3A and %2C too in a
  // property; the controls are already shown as \xNN, so the line holds no line end.
  const std::string shown = inert_text(text);
  std::string out;
  out.reserve(shown.size() + shown.size() / 8);
  for (const char c : shown) {
    if (c == '%') {
      out += "%25";
    } else if (part == CiAnnotationPart::property && c == ':') {
      out += "%3A";
    } else if (part == CiAnnotationPart::property && c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace gpumeter
