#pragma once
// The property every record the reader accepts must have (B7), checked on any text by the
// libFuzzer target (fuzz_record_reader.cpp) and by the unit property test
// (tests/unit/test_record_property.cpp):
//   - parse_record accepts the text or throws InvalidRecord; nothing else escapes it;
//   - an accepted record renders (markdown wide and narrow, comparisons, CSV) without an
//     exception, so a report of it prints everything or, refused, nothing;
//   - what it renders is inert: no control but the line ends, a markdown table of one row per
//     result and failure with the header's number of cells, no line that record text begins,
//     CSV lines of the header's number of fields and no text cell a spreadsheet would run;
//   - it writes and reads back to the same record: serialize(parse(serialize(r))) is
//     serialize(r), and the record read back renders the same tables.
#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/columns.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/table.hpp"

namespace gpumeter::testing {

struct PropertyCheck {
  bool accepted = false;  // the reader took the text as a record
  std::string violation;  // what broke the property; empty when it holds
};

namespace property_detail {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) {
      lines.push_back(text.substr(at));
      break;
    }
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// Cell separators of a markdown row: '|' not escaped by an odd run of backslashes.
inline std::size_t unescaped_pipes(const std::string& line) {
  std::size_t pipes = 0;
  std::size_t backslashes = 0;
  for (const char c : line) {
    if (c == '|' && backslashes % 2 == 0) ++pipes;
    backslashes = c == '\\' ? backslashes + 1 : 0;
  }
  return pipes;
}

// RFC 4180 fields of one CSV line (no line breaks inside fields: inert text has none).
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// Every line of `text` as the renderer wrote it: a control inside a line (anything inert_text
// would escape) came from a record unescaped.
inline std::string controls_problem(const std::string& text, std::string_view what) {
  for (const std::string& line : lines_of(text)) {
    if (inert_text(line) != line) return std::string(what) + " holds a raw control: " + line;
  }
  return {};
}

inline std::string markdown_problem(const Record& record, const std::string& md) {
  if (std::string p = controls_problem(md, "markdown"); !p.empty()) return p;
  const std::vector<std::string> lines = lines_of(md);
  if (lines.size() < 2 || lines[0].rfind("| case", 0) != 0) return "markdown: no table header";
  const std::size_t cells = unescaped_pipes(lines[0]);
  std::size_t i = 2;
  for (; i < lines.size() && !lines[i].empty() && lines[i][0] == '|'; ++i) {
    if (unescaped_pipes(lines[i]) != cells) return "markdown: a row of another width: " + lines[i];
  }
  const std::size_t rows = record.results.size() + record.failures.size();
  if (i - 2 != rows) {
    return "markdown: " + std::to_string(i - 2) + " table rows for " + std::to_string(rows) +
           " results and failures";
  }
  // Below the table, every line starts as the renderer starts it, and a list item's content
  // opens no heading, quote, list or code block.
  static const char* const kStarts[] = {
      "Deviations:",   "Notes:",       "Sources:", "No results in these records.",
      "Comparisons (", "Null tests (", "- ",       "  - ",
      "    - ",        "With --wide: "};
  for (; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) continue;
    // A narrow table's list item broken into lines: the continuation is indented, and its first
    // character opens no block (neither does an ordered list's "1." or "1)").
    if (line.rfind("  ", 0) == 0) {
      const std::size_t text = line.find_first_not_of(' ');
      if (text != std::string::npos && line.compare(text, 2, "- ") != 0) {
        if (std::string_view("#>-+*`~|").find(line[text]) != std::string_view::npos) {
          return "markdown: a continued line opens a block: " + line;
        }
        const std::size_t digits = line.find_first_not_of("0123456789", text);
        if (digits != std::string::npos && digits > text &&
            (line[digits] == '.' || line[digits] == ')') &&
            (digits + 1 == line.size() || line[digits + 1] == ' ')) {
          return "markdown: a continued line opens an ordered list: " + line;
        }
        continue;
      }
    }
    bool known = false;
    for (const char* start : kStarts) {
      const std::string_view s(start);
      if (line.rfind(s, 0) != 0) continue;
      known = true;
      const std::size_t content = line.find_first_not_of(' ', s.size());
      if (s.back() == ' ' && content != std::string::npos &&
          std::string_view("#>-+*`~|").find(line[content]) != std::string_view::npos) {
        return "markdown: a list item opens a block: " + line;
      }
    }
    if (!known) return "markdown: a line the renderer does not write: " + line;
  }
  return {};
}

inline std::string csv_problem(const Record& record, const std::string& csv) {
  if (std::string p = controls_problem(csv, "CSV"); !p.empty()) return p;
  const std::vector<std::string> lines = lines_of(csv);
  const auto columns = result_columns();
  if (lines.size() != 1 + record.results.size() + record.failures.size()) {
    return "CSV: " + std::to_string(lines.size()) + " lines for " +
           std::to_string(record.results.size() + record.failures.size()) + " rows";
  }
  for (const std::string& line : lines) {
    const std::vector<std::string> fields = csv_fields(line);
    if (fields.size() != columns.size()) return "CSV: a line of another width: " + line;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].kind == ColumnKind::text && !fields[c].empty() &&
          std::string_view("=+-@").find(fields[c].front()) != std::string_view::npos) {
        return "CSV: a text cell a spreadsheet would run: " + fields[c];
      }
    }
  }
  return {};
}

struct Rendered {
  std::string markdown;
  std::string narrow;  // the table benchmark programs print
  std::string csv;
};

inline Rendered render(const Record& record) {
  const std::vector<Record> one{record};
  return {render_markdown(one) + "\n" + render_comparisons(one),
          render_markdown(one, TableLayout::narrow) + "\n" + render_comparisons(one),
          render_csv(one)};
}

}  // namespace property_detail

// Checks the property on `text` (what a record file holds).
inline PropertyCheck check_record_property(std::string_view text) {
  namespace d = property_detail;
  PropertyCheck out;
  Record record;
  try {
    record = parse_record(text, "fuzz.json");
  } catch (const InvalidRecord&) {
    return out;  // refused, as the reader may
  } catch (const std::exception& e) {
    out.violation = std::string("the reader threw something other than InvalidRecord: ") + e.what();
    return out;
  }
  out.accepted = true;
  std::string step = "rendering";
  try {
    const d::Rendered first = d::render(record);
    out.violation = d::markdown_problem(record, first.markdown);
    if (out.violation.empty()) out.violation = d::markdown_problem(record, first.narrow);
    if (out.violation.empty()) out.violation = d::csv_problem(record, first.csv);
    if (!out.violation.empty()) return out;

    step = "writing";
    const std::string written = serialize(record);
    step = "reading back";
    const Record back = parse_record(written, "written.json");
    step = "writing again";
    if (serialize(back) != written) {
      out.violation = "written, read back and written again, the record changed";
    } else {
      step = "rendering again";
      const d::Rendered again = d::render(back);
      if (again.markdown != first.markdown || again.narrow != first.narrow) {
        out.violation = "the markdown changed on a round trip";
      }
      if (again.csv != first.csv) out.violation = "the CSV changed on a round trip";
    }
  } catch (const std::exception& e) {
    out.violation = step + " an accepted record threw: " + e.what();
  }
  return out;
}

}  // namespace gpumeter::testing
