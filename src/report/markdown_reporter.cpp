// The markdown report: the table (narrow or wide) with its deviations, notes and sources, then
// the comparisons and null tests; and its Reporter.
#include "table_parts.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_clock.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {
namespace {

using namespace report_parts;  // NOLINT: the parts of this report

// B10: the boards of a record whose rows ran on more than one, each with its rows and its clocks
// as read; "" for a record of one board.
std::string boards_line(const Record& record) {
  std::vector<std::pair<Board, std::size_t>> boards;  // in the order of their first rows
  std::map<std::pair<std::string, std::string>, std::size_t> at;  // one board: same_board's key
  for (const Result& r : record.results) {
    const auto [it, fresh] = at.try_emplace({r.board.uuid, r.board.name}, boards.size());
    if (fresh) boards.emplace_back(r.board, 0);
    ++boards[it->second].second;
  }
  if (boards.size() < 2) return "";
  const auto mhz = [](const std::optional<int>& v) {
    return v ? std::to_string(*v) + " MHz" : std::string(kNotAvailable);
  };
  std::string text = fmt::format(
      "boards: the rows ran on {} (rows of two boards are never compared): ", boards.size());
  for (std::size_t i = 0; i < boards.size(); ++i) {
    const Board& b = boards[i].first;
    const bool clocks = b.sm_clock_mhz || b.sm_clock_max_mhz || b.memory_clock_mhz;
    text += fmt::format(
        "{}{} ({} rows; {})", i == 0 ? "" : "; ", md(board_label(b)), boards[i].second,
        clocks ? fmt::format("SM clock {} (max {}), memory clock {}, as read", mhz(b.sm_clock_mhz),
                             mhz(b.sm_clock_max_mhz), mhz(b.memory_clock_mhz))
               : std::string("clocks not available"));
  }
  return text;
}

}  // namespace

std::string render_markdown(const std::vector<Record>& records, TableLayout layout) {
  const TimeUnit unit = table_unit(records);
  const bool narrow = layout == TableLayout::narrow;
  const std::string above_mark = narrow ? kNarrowAboveMark : kAboveCeiling;
  std::vector<std::vector<std::string>> rows;
  if (narrow) {
    rows = narrow_rows(records, unit);
  } else {
    rows.push_back(markdown_header(unit));
    // The time column by its statistic where every row shares one ("wall clock median ..."),
    // as the narrow table titles it; "time" where rows differ (the statistic column says).
    std::set<Statistic> statistics;
    for (const Record& record : records) {
      for (const Result& r : record.results) statistics.insert(statistic_of(r.measurement.method));
    }
    if (statistics.size() == 1) {
      const std::string name = statistic_title(*statistics.begin());
      for (std::string& title : rows.back()) {
        if (title.rfind("time median [p10, p90]", 0) == 0) title.replace(0, 4, name);
      }
    }
  }
  std::vector<std::string> notes;
  bool any_above_ceiling = false;
  for (const Record& record : records) {
    // B4: a row's flags are judged against its own highest clock, so a row that ran held down
    // throughout (a small case after a power-capped GEMM) has none; the same rule against the
    // highest clock of the record's rows says so.
    const int record_mhz = highest_clock(record);
    for (const Result& result : record.results) {
      if (!narrow) rows.push_back(markdown_row(record, result, unit));
      const RowFlags& flags = result.flags;  // the core's (finish_record); worded here
      if (const std::optional<ClockSummary>& clock = result.summary.clock;
          clock && flags.low_clock) {
        const std::string range = clock->min_mhz == clock->max_mhz
                                      ? fmt::format("at {} MHz", clock->max_mhz)
                                      : fmt::format("{} to {} MHz", clock->min_mhz, clock->max_mhz);
        notes.push_back(fmt::format(
            "{}: every sample ran below {}% of the highest SM clock of this record's rows ({} "
            "MHz; this row {}), so its times may be the clock's",
            md(row_label(result.row), MdPlace::line_start),
            format_significant(100 * kClockFlagFraction, 2), record_mhz, range));
      }
      const Measurement& m = result.measurement;
      const Summary& s = result.summary;
      // A row whose null test failed shows no percent, so no mark to explain.
      any_above_ceiling =
          any_above_ceiling ||
          (!shows_no_numbers(result) &&
           (s.above_flops_ceiling.value_or(false) || s.above_bandwidth_ceiling.value_or(false)));
      const bool has_ceiling = (result.workload.flops && record.ceilings.flops_per_s) ||
                               (result.workload.bytes && record.ceilings.bytes_per_s);
      if (has_ceiling && !ceiling_applies(record.ceilings, m.method)) {
        notes.push_back(fmt::format(
            "{}: no percent of peak: the record's ceilings were timed by {}, this row by {}",
            md(row_label(result.row), MdPlace::line_start), to_string(*record.ceilings.method),
            to_string(m.method)));
      }
      if (!m.reason.empty()) {
        notes.push_back(fmt::format("{}: timing method {}: {}",
                                    md(row_label(result.row), MdPlace::line_start),
                                    to_string(m.method), md(m.reason)));
      }
      if (result.null_test_failed()) {
        notes.push_back(fmt::format("{}: {}", md(row_label(result.row), MdPlace::line_start),
                                    md(null_test_failed_words(*result.null_test_outcome))));
      }
      if (const std::optional<ClockSummary>& clock = result.summary.clock;
          clock && flags.clock_flagged > 0) {
        notes.push_back(fmt::format("{}: {}", md(row_label(result.row), MdPlace::line_start),
                                    md(describe_clock_flags(*clock, result.summary.n_samples))));
      }
      if (flags.call_overhead) {
        notes.push_back(fmt::format("{}: {}", md(row_label(result.row), MdPlace::line_start),
                                    md(call_overhead_words(s.device_busy.median_ns))));
      }
      if (flags.drops_unproven) {
        notes.push_back(fmt::format(
            "{}: the dropped-record counter was not proven live; a lost record could have gone "
            "unseen",
            md(row_label(result.row), MdPlace::line_start)));
      }
    }
    for (const Failure& f : record.failures) {
      if (!narrow) {
        rows.push_back(failure_cells(f, record, true));
        for (std::string& cell : rows.back()) cell = md(cell);
      }
      notes.push_back(fmt::format("{}: not measured: {}: {}",
                                  md(row_label(f.row), MdPlace::line_start), md(f.error),
                                  md(f.message)));
    }
  }

  // A narrow table is fitted to a terminal where it can be without losing a number.
  const std::string caption = narrow ? fit_narrow_rows(rows, unit) : std::string();
  std::string out = markdown_table(rows);
  if (rows.size() == 1) out += "\nNo results in these records.\n";
  if (!caption.empty()) out += "\n" + wrapped_item("", caption);
  if (narrow) out += "\n" + std::string(kNarrowWideHint) + "\n";

  // A narrow table's lists are broken into lines a terminal shows whole.
  const auto item = [&](std::string_view marker, const std::string& text) {
    return narrow ? wrapped_item(marker, text) : std::string(marker) + text + "\n";
  };
  out += "\nDeviations:";
  bool any_deviation = false;
  for (const Record& record : records) {
    // B10: a shard's table shows one share of a sweep, said from its shard section (records of
    // schema 7 said it as a deviation too: shown once).
    std::vector<std::string> said;
    if (record.shard) said.push_back(describe_shard(*record.shard));
    for (const std::string& deviation : record.deviations) {
      if (record.shard && deviation.rfind(kShardRecordMark, 0) == 0) continue;
      said.push_back(deviation);
    }
    for (const std::string& deviation : said) {
      out += (any_deviation ? "" : "\n") +
             item("- ", md(record.run_id, MdPlace::line_start) + ": " + md(deviation));
      any_deviation = true;
    }
  }
  out += any_deviation ? "" : " none recorded.\n";

  if (narrow) {
    if (std::string legend = flags_legend(records); !legend.empty()) notes.push_back(legend);
  }
  if (any_above_ceiling) {
    notes.push_back(
        "a percent marked \"" + above_mark +
        "\" is a row that ran faster than the fastest run of the work its ceiling times (the "
        "ceilings under Sources name it): a finding about the row or about that work, not a "
        "device beyond itself");
  }
  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& note : notes) out += item("- ", note);
  }

  out += "\nSources:\n";
  for (const Record& record : records) {
    const DeviceIdentity& d = record.device;
    out += item(
        "- ",
        fmt::format("record {} (created {}, gpumeter {}, commit {})", md(record.run_id),
                    md(record.created_utc), md(record.gpumeter_version),
                    record.project_commit.empty() ? kNotAvailable : md(record.project_commit)));
    out += item("  - ", fmt::format("device {}, uuid {}, arch {}, host {}", md(device_label(d)),
                                    d.uuid.empty() ? kNotAvailable : md(d.uuid), md(d.arch),
                                    md(record.host.hostname)));
    out += item("  - ", "state: " + state_line(record.device_state));
    if (const std::string boards = boards_line(record); !boards.empty()) {
      out += item("  - ", boards);
    }
    out += item("  - ", "config: " + config_line(record.config));
    if (narrow) {
      // The wide table names each row's method; here the record names them once.
      std::set<TimingMethod> methods;
      for (const Result& r : record.results) methods.insert(r.measurement.method);
      std::string timing;
      for (const TimingMethod m : methods) {
        timing += fmt::format("{}{} ({})", timing.empty() ? "" : ", ", to_string(m),
                              to_string(statistic_of(m)));
      }
      if (!timing.empty()) out += item("  - ", "timing: " + timing);
      // One line per run of the ceilings' work, not one line of all of them.
      const CeilingsText ceilings = ceilings_text(record.ceilings);
      out += item("  - ", "ceilings: " + ceilings.head);
      for (const std::string& run : ceilings.runs) out += item("    - ", run);
    } else {
      out += item("  - ", "ceilings: " + ceilings_line(record.ceilings));
    }
  }
  return out;
}

std::string render_comparisons(const std::vector<Record>& records, TableLayout layout) {
  // Narrow: every line broken at 120 characters, as the table above it.
  const auto item = [&](std::string_view marker, const std::string& text) {
    return layout == TableLayout::narrow ? wrapped_item(marker, text)
                                         : std::string(marker) + text + "\n";
  };
  std::string s;
  std::string null_lines;
  std::string lines;
  for (const Record& record : records) {
    for (const Comparison& c : record.comparisons) {
      lines += item("- ", md(case_label(c.baseline), MdPlace::line_start) + ": " + md(describe(c)));
    }
    // A lone implementation run to a target precision: its level's width, where a comparison
    // would have stated its own.
    std::map<std::string, int> rows_of_case;
    const auto case_key = [](const RowKey& row) {
      return row.case_name + '\x1f' + format_params(row.params);
    };
    for (const Result& r : record.results) {
      if (r.measurement.precision) ++rows_of_case[case_key(r.row)];
    }
    for (const Result& r : record.results) {
      if (r.measurement.precision && rows_of_case[case_key(r.row)] == 1) {
        lines += item("- ", md(row_label(r.row), MdPlace::line_start) + ": " +
                                md(describe_precision(r, record.schema_version)));
      }
    }
    for (const NullTestOutcome& n : null_tests(record.results)) {
      null_lines += item("- ", md(row_label(n.row), MdPlace::line_start) + ": " + md(describe(n)));
    }
  }
  if (!lines.empty()) {
    const std::string heading = item("", comparisons_heading(records));
    s += heading + lines;
  }
  if (!null_lines.empty()) {
    s += item("", null_tests_heading()) + null_lines;
  }
  return s;
}

}  // namespace gpumeter
