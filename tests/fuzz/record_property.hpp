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
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <exception>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/compare_table.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::testing {

// Where a fuzz input holds a second record: the two are compared and merged. A line no JSON text
// can hold (a JSON string holds no raw line break).
inline constexpr std::string_view kSecondRecord = "\n--- gpumeter fuzz: second record ---\n";

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

// A character that is markup anywhere in a line, standing unescaped (not after an odd run of
// backslashes): record text let through as emphasis, code, HTML, an entity, strikethrough or
// math. An underscore counts where it could emphasize: not between two letters or digits.
inline std::string inline_markup_problem(const std::string& text, std::string_view what) {
  for (const std::string& line : lines_of(text)) {
    std::size_t backslashes = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      const bool escaped = backslashes % 2 == 1;
      backslashes = c == '\\' ? backslashes + 1 : 0;
      if (escaped) continue;
      const auto alnum = [&](std::size_t k) {
        return std::isalnum(static_cast<unsigned char>(line[k])) != 0;
      };
      const bool loose_underscore =
          c == '_' && !(i > 0 && alnum(i - 1) && i + 1 < line.size() && alnum(i + 1));
      if (std::string_view("*`<&~$").find(c) != std::string_view::npos || loose_underscore) {
        return std::string(what) + ": unescaped markup '" + c + "' in: " + line;
      }
    }
  }
  return {};
}

inline std::string markdown_problem(const Record& record, const std::string& md) {
  if (std::string p = controls_problem(md, "markdown"); !p.empty()) return p;
  if (std::string p = inline_markup_problem(md, "markdown"); !p.empty()) return p;
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
  // A narrow table fitted to its width is followed by the renderer's caption: one paragraph of
  // fixed words (wrapped, so its later lines start anywhere) up to the next empty line.
  static const char* const kCaptionStarts[] = {"The null test column is left out to fit ",
                                               "Times in "};
  bool caption_may_follow = true;  // only before the first list or section
  for (; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) continue;
    const bool caption = caption_may_follow && lines[i - 1].empty() &&
                         std::any_of(std::begin(kCaptionStarts), std::end(kCaptionStarts),
                                     [&](const char* s) { return line.rfind(s, 0) == 0; });
    if (caption) {
      while (i + 1 < lines.size() && !lines[i + 1].empty()) ++i;
      caption_may_follow = false;
      continue;
    }
    if (line != "No results in these records.") caption_may_follow = false;
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

// `gpumeter compare`'s markdown: known lines only, a table of the header's width, inert text.
inline std::string compare_markdown_problem(const std::string& md) {
  if (std::string p = controls_problem(md, "compare"); !p.empty()) return p;
  if (std::string p = inline_markup_problem(md, "compare"); !p.empty()) return p;
  static const char* const kStarts[] = {"Base: ",
                                        "New:  ",
                                        "Note: ",
                                        "Each side's median ",
                                        "| case ",
                                        "|-",
                                        "| ",
                                        "Findings:",
                                        "  ",
                                        "No row is in both records",
                                        "Geometric mean of new / base",
                                        "Only in base (",
                                        "Only in new (",
                                        "Cases not measured (",
                                        "Regressions beyond ",
                                        "Gate (--fail-on-regression ",
                                        "- "};
  std::size_t header_cells = 0;
  for (const std::string& line : lines_of(md)) {
    if (line.empty()) continue;
    const char* start = nullptr;
    for (const char* s : kStarts) {
      if (line.rfind(s, 0) == 0) {
        start = s;
        break;
      }
    }
    if (start == nullptr) return "compare: a line the renderer does not write: " + line;
    const std::string_view st(start);
    if (st.rfind("| case", 0) == 0) header_cells = unescaped_pipes(line);
    if (st == "| " && unescaped_pipes(line) != header_cells) {
      return "compare: a row of another width: " + line;
    }
    if (st == "- " && line.size() > 2 &&
        std::string_view("#>-+*`~|").find(line[2]) != std::string_view::npos) {
      return "compare: a list item opens a block: " + line;
    }
  }
  return {};
}

// compare_records and its gate on `base` and `next`: every row accounted for once, a gate that
// passes only when it saw everything, and inert markdown, with a gate and without.
inline std::string compare_problem(const Record& base, const Record& next) {
  const RecordComparison c = compare_records(base, next);
  std::set<RowKey> base_rows;
  std::set<RowKey> next_rows;
  for (const Result& r : base.results) base_rows.insert(r.row);
  for (const Result& r : next.results) next_rows.insert(r.row);
  std::size_t from_next = 0;
  std::size_t from_base = 0;
  for (const MissingRow& m : c.missing)
    ++(m.missing_from == RecordSide::next ? from_next : from_base);
  // A record that holds a row twice pairs it more than once: only distinct rows are counted.
  if (base_rows.size() == base.results.size() && next_rows.size() == next.results.size() &&
      (c.pairs.size() + from_next != base_rows.size() ||
       c.pairs.size() + from_base != next_rows.size())) {
    return "compare: rows not accounted for once: " + std::to_string(c.pairs.size()) + " pairs, " +
           std::to_string(from_next) + " and " + std::to_string(from_base) + " missing, of " +
           std::to_string(base_rows.size()) + " and " + std::to_string(next_rows.size()) + " rows";
  }
  for (const double threshold : {0.0, 0.05}) {
    const GateOutcome g = judge_gate(c, GateOptions{threshold, false});
    const bool blind = c.pairs.empty() || !c.missing.empty() || !c.failures.empty() ||
                       !c.base_partial.empty() || !c.next_partial.empty();
    if (g.passed && (blind || !g.regressions.empty())) {
      return "compare: the gate passed what it could not see, or a regression";
    }
    if (!g.passed && !blind && g.regressions.empty()) return "compare: the gate failed on nothing";
    const GateOutcome allowed = judge_gate(c, GateOptions{threshold, true});
    if (allowed.passed != g.regressions.empty()) {
      return "compare: --allow-missing let a regression pass, or failed on what it allows";
    }
  }
  for (const std::optional<GateOptions>& gate :
       {std::optional<GateOptions>(), std::optional<GateOptions>(GateOptions{0.05, false}),
        std::optional<GateOptions>(GateOptions{0.05, true})}) {
    const std::string md = render_record_comparison(base, next, c, conclude(c, gate));
    if (std::string p = compare_markdown_problem(md); !p.empty()) return p;
  }
  return {};
}

// Options as `gpumeter merge` gives them, the merged record named like `like`.
inline MergeOptions merge_options(const Record& like, bool allow_mixed) {
  MergeOptions o;
  o.allow_mixed = allow_mixed;
  o.run_id = like.run_id;
  o.created_utc = like.created_utc;
  o.gpumeter_version = like.gpumeter_version;
  o.argv = {"gpumeter", "merge"};
  return o;
}

// A merged record, written and read back: the reader must accept what `merge` writes.
inline std::string merged_read_back_problem(const Record& merged, Record& back) {
  const std::string written = serialize(merged);
  try {
    back = parse_record(written, "merged.json");
  } catch (const InvalidRecord& e) {
    return std::string("merge wrote a record its reader refuses: ") + e.what();
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

// The halves of `record` (its results split in two, every failure in the first) merged back:
// the reader accepts the merge, and it holds the same rows and gives the same CSV. A record that
// holds a row twice is refused by cause. Compared with each half, every row is accounted for.
inline std::string halves_problem(const Record& record) {
  Record first = record;
  Record second = record;
  const std::size_t half = record.results.size() / 2;
  first.results.assign(record.results.begin(), record.results.begin() + static_cast<long>(half));
  second.results.assign(record.results.begin() + static_cast<long>(half), record.results.end());
  second.failures.clear();
  // Phases, totals and runtimes: all in the first half, as the failures.
  second.phases.clear();
  second.totals.clear();
  second.runtimes.clear();
  first.run_id += "-1";
  second.run_id += "-2";
  // Halves of one shard are no shards of a sweep (each lacks cases the dealing gave it): split,
  // they are plain records, which merge back row for row.
  first.shard.reset();
  second.shard.reset();
  first.comparisons = compare_results(first.results);
  second.comparisons = compare_results(second.results);
  if (std::string p = compare_problem(record, second); !p.empty()) return p;
  if (std::string p = compare_problem(first, record); !p.empty()) return p;

  std::set<RowKey> rows;
  for (const Result& r : record.results) rows.insert(r.row);
  Record merged;
  try {
    merged = merge_records({first, second}, merge_options(record, true));
  } catch (const MergeRefused& e) {
    if (rows.size() == record.results.size()) {
      return std::string("merge refused the halves of one record: ") + e.what();
    }
    return {};  // a row twice: refused by cause
  }
  Record back;
  if (std::string p = merged_read_back_problem(merged, back); !p.empty()) return p;
  if (back.results.size() != record.results.size() ||
      back.failures.size() != record.failures.size()) {
    return "merge lost or added rows";
  }
  const std::vector<Record> one{back};
  if (std::string p = markdown_problem(back, render_markdown(one) + "\n" + render_comparisons(one));
      !p.empty()) {
    return "merged: " + p;
  }
  if (render_csv(one) != render_csv({record})) return "merged: the CSV of the halves differs";
  return {};
}

// Two records: compared both ways, and merged (refused by cause, or read back).
inline std::string pair_problem(const Record& a, const Record& b) {
  if (std::string p = compare_problem(a, b); !p.empty()) return p;
  if (std::string p = compare_problem(b, a); !p.empty()) return p;
  for (const bool allow_mixed : {false, true}) {
    Record merged;
    try {
      merged = merge_records({a, b}, merge_options(a, allow_mixed));
    } catch (const MergeRefused&) {
      continue;
    }
    Record back;
    if (std::string p = merged_read_back_problem(merged, back); !p.empty()) return p;
  }
  return {};
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
    if (out.violation.empty()) {
      step = "comparing and merging its halves";
      out.violation = d::halves_problem(record);
    }
  } catch (const std::exception& e) {
    out.violation = step + " an accepted record threw: " + e.what();
  }
  return out;
}

}  // namespace gpumeter::testing

namespace gpumeter::testing {

// The property of every record in `text` (one record, or two around kSecondRecord), and of the
// two compared and merged.
inline PropertyCheck check_records_property(std::string_view text) {
  const std::size_t split = text.find(kSecondRecord);
  if (split == std::string_view::npos) return check_record_property(text);
  PropertyCheck first = check_record_property(text.substr(0, split));
  if (!first.violation.empty()) return first;
  const std::string_view rest = text.substr(split + kSecondRecord.size());
  PropertyCheck second = check_record_property(rest);
  if (!second.violation.empty() || !first.accepted || !second.accepted) return second;
  try {
    const Record a = parse_record(text.substr(0, split), "first.json");
    const Record b = parse_record(rest, "second.json");
    second.violation = property_detail::pair_problem(a, b);
  } catch (const std::exception& e) {
    second.violation = std::string("comparing or merging two records threw: ") + e.what();
  }
  return second;
}

}  // namespace gpumeter::testing
