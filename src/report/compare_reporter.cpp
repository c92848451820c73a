// `gpumeter compare`'s report: two records row by row, in markdown.
#include "gpumeter/detail/compare_table.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/row_status.hpp"
#include "table_parts.hpp"

namespace gpumeter {
namespace {

using report_parts::md;

// Record text at the start of a list item's text (in a cell or the rest of a line: md), broken
// into lines of at most 120 columns (a case not measured says why at length).
std::string item(const std::string& text) {
  return report_parts::wrapped_item("- ", markdown_text(text, MarkdownPlace::line_start));
}

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

}  // namespace

std::string render_record_comparison(const Record& base, const Record& next,
                                     const RecordComparison& comparison,
                                     const CompareConclusion& conclusion) {
  // Each record's boards by the one label every report uses, with its uuid: two boards of one
  // model are told apart, and a record joined from several names every one.
  std::string out = "Base: " + md(base.run_id) + " on " + md(record_boards_label(base)) + "\n" +
                    "New:  " + md(next.run_id) + " on " + md(record_boards_label(next)) + "\n";
  if (!same_boards(base, next)) {
    out +=
        "Note: the two records were measured on different devices; rows of two boards are "
        "never compared.\n";
  }
  if (!comparison.base_partial.empty()) {
    out += "Note: the base record is partial: " + md(comparison.base_partial) + "\n";
  }
  if (!comparison.next_partial.empty()) {
    out += "Note: the new record is partial: " + md(comparison.next_partial) + "\n";
  }

  // The table is laid out as report's: one column per part of a row's name, every column as
  // wide as its widest cell; the statistic gets a column only where rows differ in it.
  std::set<Statistic> statistics;
  for (const RowPair& p : comparison.pairs) statistics.insert(p.comparison.statistic);
  const bool statistic_column = statistics.size() > 1;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"case", "implementation", "params"});
  if (statistic_column) rows.back().emplace_back("statistic");
  for (const char* title : {"base median", "new median", "change", "finding"}) {
    rows.back().emplace_back(title);
  }
  std::vector<std::string> findings;
  for (const RowPair& p : comparison.pairs) {
    const Comparison& c = p.comparison;
    const CompareRowWords w = compare_row_words(c);
    const RowKey& row = p.next->row;
    rows.push_back({md(row.case_name), md(row.implementation), md(format_params(row.params))});
    if (statistic_column) rows.back().push_back(statistic_title(c.statistic));
    rows.back().push_back(time_text(p.base->summary.device_busy.median_ns));
    rows.back().push_back(time_text(p.next->summary.device_busy.median_ns));
    rows.back().push_back(w.change);  // the core's figures, no record text
    rows.back().push_back(md(w.finding));
    findings.push_back(row_label(row) + ": " + w.finding);
  }
  if (!comparison.pairs.empty()) {
    if (!statistic_column) {
      out += "\nEach side's median " + statistic_title(*statistics.begin()) + ", row by row:\n";
    }
    // Too wide for a terminal: the findings go under the table, one line each.
    if (report_parts::widest_line(report_parts::markdown_table(rows)) >
        report_parts::kNarrowWidth) {
      for (auto& r : rows) r.pop_back();
    } else {
      findings.clear();
    }
    out += "\n" + report_parts::markdown_table(rows);
    if (!findings.empty()) {
      out += "\nFindings:\n";
      for (const std::string& f : findings)
        out += report_parts::wrapped_item("- ", markdown_text(f, MarkdownPlace::line_start));
    }
  }
  if (comparison.pairs.empty()) out += "\nNo row is in both records: nothing was compared.\n";

  if (const std::optional<ChangeSummary> s = summarize_changes(comparison)) {
    out += "\n" + describe(*s) + "\n";
  }
  for (const RecordSide side : {RecordSide::next, RecordSide::base}) {
    std::vector<std::string> lines;
    for (const MissingRow& m : comparison.missing) {
      if (m.missing_from == side) lines.push_back(row_label(m.row) + ": " + describe(m));
    }
    if (lines.empty()) continue;
    out += std::string("\nOnly in ") + (side == RecordSide::next ? "base" : "new") + " (" +
           std::to_string(lines.size()) + "):\n";
    for (const std::string& l : lines) out += item(l);
  }
  if (!comparison.failures.empty()) {
    out += "\nCases not measured (" + std::to_string(comparison.failures.size()) + "):\n";
    for (const SideFailure& f : comparison.failures) {
      out += item(row_label(f.failure->row) + " (" + std::string(to_string(f.side)) +
                  "): " + describe(*f.failure));
    }
  }

  // The gate as the core judged it (conclude): the report words it and judges nothing.
  if (const std::optional<GateOptions>& gate = conclusion.gate) {
    const std::string threshold = gate_threshold_text(gate->threshold);
    out += "\nRegressions beyond " + threshold + " (" +
           std::to_string(conclusion.regressions.size()) + "):\n";
    for (const std::string& r : conclusion.regressions) out += item(r);
    std::vector<std::string> failed;
    if (!conclusion.regressions.empty()) {
      failed.push_back(std::to_string(conclusion.regressions.size()) + " row(s) slower beyond " +
                       threshold);
    }
    out += "\nGate (--fail-on-regression " + threshold + "): ";
    const std::vector<std::string>& unseen = conclusion.unseen;
    if (!conclusion.gate_passed()) {
      if (!gate->allow_missing) failed.insert(failed.end(), unseen.begin(), unseen.end());
      out += "FAILED: " + md(joined(failed)) +
             (unseen.empty() || gate->allow_missing
                  ? ""
                  : " (a gate fails on what it cannot see; --allow-missing lets rows missing, "
                    "failed or not run pass)");
    } else if (!unseen.empty()) {
      out += "passed with --allow-missing, which let pass what it could not see: " +
             md(joined(unseen));
    } else {
      out += "passed: no row slower beyond " + threshold + ", none missing, failed or not run";
    }
    out += "\n";
    for (const std::string& n : conclusion.notes) out += "Note: " + md(n) + "\n";
  }
  return out;
}

}  // namespace gpumeter
