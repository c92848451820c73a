// The narrow table: the columns a reader decides with, its flags and their legend, and lists
// broken into lines a terminal of 120 columns shows whole.
#include "table_parts.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter::report_parts {
namespace {

// A rate with its percent of the ceiling, "4.27 (99.9%)", marked when above the ceiling.
std::string rate_cell(const Result& r, const Column& rate, const Column& pct, const Column& above,
                      const TimeUnit& unit) {
  if (shows_no_numbers(r)) return kNotShownCell;
  const std::optional<double> v = number_of(rate, r);
  if (!v || !std::isfinite(*v)) return kNotMeasured;
  std::string cell = markdown_value(rate, Record{}, r, unit, false);
  const std::optional<double> p = number_of(pct, r);
  if (p && std::isfinite(*p)) {
    const std::optional<double> marked = number_of(above, r);
    cell += " (" + markdown_value(pct, Record{}, r, unit, false) +
            (marked && *marked != 0 ? std::string(", ") + kNarrowAboveMark : std::string()) + ")";
  }
  return cell;
}

// A row's flags (the core's, set by finish_record: row_flags.hpp) in a word each: clock-flagged
// samples, a clock held down throughout, lost records retried, copies the call ran that
// device_busy does not count.
std::vector<std::string> flag_words(const Result& r) {
  const RowFlags& f = r.flags;
  std::vector<std::string> words;
  if (f.clock_flagged > 0) {
    words.push_back(fmt::format("clock {}/{}", f.clock_flagged, r.summary.n_samples));
  }
  if (f.low_clock) words.emplace_back("low clock");
  if (f.retries > 0)
    words.push_back(fmt::format("{} {}", f.retries, f.retries == 1 ? "retry" : "retries"));
  if (f.copy_exceeds_busy) {
    words.emplace_back("copy > busy");
  } else if (f.uncounted_copy) {
    words.emplace_back("uncounted copy");
  }
  if (f.drops_unproven) words.emplace_back("drops unproven");
  if (f.call_overhead) words.emplace_back("call overhead");
  return words;
}

// Whether a continuation line of a list item may start with `word`: never with a character
// that would open a block there (a list, heading, quote, code, table or HTML) or with an
// ordered list's "1." or "1)".
bool may_start_line(std::string_view word) {
  if (word.empty()) return false;
  const auto first = static_cast<unsigned char>(word.front());
  if (!std::isalnum(first) && std::string_view("(\"'/\\").find(word.front()) == std::string::npos) {
    return false;
  }
  const std::size_t digits = word.find_first_not_of("0123456789");
  return !(digits != std::string_view::npos && digits > 0 && digits + 1 == word.size() &&
           (word[digits] == '.' || word[digits] == ')'));
}

}  // namespace

std::string flags_legend(const std::vector<Record>& records) {
  std::set<std::string> kinds;
  for (const Record& record : records) {
    for (const Result& r : record.results) {
      for (const std::string& f : flag_words(r)) {
        kinds.insert(f.rfind("clock ", 0) == 0              ? "clock"
                     : f.find(" retr") != std::string::npos ? "retries"
                                                            : f);
      }
    }
  }
  if (kinds.empty()) return "";
  std::vector<std::string> parts;
  if (kinds.count("clock") != 0) {
    parts.emplace_back(
        "\"clock N/M\": N of the row's M samples may have run slower for their "
        "SM clock (the note on the row says how)");
  }
  if (kinds.count("low clock") != 0) {
    parts.emplace_back("\"low clock\": the whole row ran below the record's highest clock");
  }
  if (kinds.count("retries") != 0) {
    parts.emplace_back(
        "\"N retries\": activity records were lost and the measurement repeated with larger "
        "buffers");
  }
  if (kinds.count("uncounted copy") != 0) {
    parts.emplace_back(
        "\"uncounted copy\": the call also ran copies or fills, which device_busy "
        "does not count (--wide shows how long)");
  }
  if (kinds.count("copy > busy") != 0) {
    parts.emplace_back(
        "\"copy > busy\": the call's uncounted copies or fills took longer than its "
        "device_busy: its time may not be its work's (an answer copied in); count_copies times "
        "them");
  }
  if (kinds.count("drops unproven") != 0) {
    parts.emplace_back("\"drops unproven\": a lost record could have gone unseen");
  }
  if (kinds.count("call overhead") != 0) {
    parts.emplace_back(
        "\"call overhead\": the host clock read the call at or under its floor: it measures the "
        "call's overhead, not work");
  }
  std::string legend = "flags: ";
  for (std::size_t i = 0; i < parts.size(); ++i) legend += (i > 0 ? "; " : "") + parts[i];
  return legend;
}

// The narrow table's header and rows: the columns a reader decides with (case, implementation,
// params, the time as median [p10, p90], latency, kernels, each declared throughput with its
// percent of the ceiling, the null test, flags), each left out when no row has a value for it;
// a method or device column only when rows differ in it.
std::vector<std::vector<std::string>> narrow_rows(const std::vector<Record>& records,
                                                  const TimeUnit& unit) {
  std::set<TimingMethod> methods;
  std::set<std::string> devices;
  bool any_params = false, any_kernel_method = false, any_kernels = false, any_flops = false,
       any_bytes = false, any_null_test = false, any_flags = false;
  for (const Record& record : records) {
    if (!record.failures.empty()) devices.insert(device_label(record.device));
    for (const Result& r : record.results) {
      devices.insert(row_device_label(record.device, record.device_state, r.board));
      methods.insert(r.measurement.method);
      any_params = any_params || !r.row.params.empty();
      any_kernel_method = any_kernel_method || sees_kernels(r.measurement.method);
      any_kernels = any_kernels || r.summary.max_n_kernels.has_value();
      any_flops = any_flops || r.workload.flops.has_value();
      any_bytes = any_bytes || r.workload.bytes.has_value();
      any_null_test = any_null_test || r.null_test_outcome.has_value();
      any_flags = any_flags || !flag_words(r).empty();
    }
    for (const Failure& f : record.failures) any_params = any_params || !f.row.params.empty();
  }
  const auto any_percent = [&](std::string_view id) {
    for (const Record& record : records) {
      for (const Result& r : record.results) {
        if (number_of(column(id), r)) return true;
      }
    }
    return false;
  };

  struct Cell {
    std::string title;
    std::function<std::string(const Record&, const Result&)> of_result;
  };
  std::vector<Cell> cells;
  cells.push_back({"case", [](const Record&, const Result& r) { return md(r.row.case_name); }});
  cells.push_back(
      {"implementation", [](const Record&, const Result& r) { return md(r.row.implementation); }});
  if (any_params) {
    cells.push_back(
        {"params", [](const Record&, const Result& r) { return md(format_params(r.row.params)); }});
  }
  if (methods.size() > 1) {
    cells.push_back({"method", [](const Record&, const Result& r) {
                       return std::string(to_string(r.measurement.method));
                     }});
  }
  const std::string statistic =
      methods.size() == 1 ? statistic_title(statistic_of(*methods.begin())) : "time";
  cells.push_back({fmt::format("{} median [p10, p90] ({})", statistic, unit.name),
                   [&unit](const Record& rec, const Result& r) {
                     if (shows_no_numbers(r)) return std::string(kNullTestFailedCell);
                     const std::string median =
                         markdown_value(column("time_median_us"), rec, r, unit, false);
                     if (median == kNotMeasured) return median;
                     return median + " [" +
                            markdown_value(column("time_p10_us"), rec, r, unit, false) + ", " +
                            markdown_value(column("time_p90_us"), rec, r, unit, false) + "]";
                   }});
  if (any_kernel_method) {
    cells.push_back(
        {fmt::format("latency ({})", unit.name), [&unit](const Record& rec, const Result& r) {
           if (shows_no_numbers(r)) return std::string(kNotShownCell);
           return markdown_value(column("latency_median_us"), rec, r, unit, false);
         }});
  }
  if (any_kernels) {
    cells.push_back({"kernels", [&unit](const Record& rec, const Result& r) {
                       return markdown_value(column("max_n_kernels"), rec, r, unit, false);
                     }});
  }
  const auto flops_cell = [&unit](const Result& r) {
    return rate_cell(r, column("tflops"), column("pct_of_peak_flops"),
                     column("above_flops_ceiling"), unit);
  };
  const auto bytes_cell = [&unit](const Result& r) {
    return rate_cell(r, column("tbs"), column("pct_of_peak_bandwidth"),
                     column("above_bandwidth_ceiling"), unit);
  };
  const bool any_rate_percent =
      any_percent("pct_of_peak_flops") || any_percent("pct_of_peak_bandwidth");
  if (any_flops && any_bytes) {
    // Rows declare different work (GEMMs flops, copies bytes): one column, the unit in the
    // cell, rather than two columns each mostly empty.
    cells.push_back({any_rate_percent ? "throughput (% peak)" : "throughput",
                     [flops_cell, bytes_cell](const Record&, const Result& r) {
                       if (shows_no_numbers(r)) return std::string(kNotShownCell);
                       std::string cell;
                       const auto add = [&](const std::string& rate, const char* unit_name) {
                         if (rate == kNotMeasured) return;
                         const std::size_t space = rate.find(' ');
                         cell += (cell.empty() ? "" : ", ") + rate.substr(0, space) + " " +
                                 unit_name + (space == std::string::npos ? "" : rate.substr(space));
                       };
                       add(flops_cell(r), "TFLOP/s");
                       add(bytes_cell(r), "TB/s");
                       return cell.empty() ? std::string(kNotMeasured) : cell;
                     }});
  } else if (any_flops) {
    cells.push_back({any_rate_percent ? "TFLOP/s (% peak)" : "TFLOP/s",
                     [flops_cell](const Record&, const Result& r) { return flops_cell(r); }});
  } else if (any_bytes) {
    cells.push_back({any_rate_percent ? "TB/s (% peak)" : "TB/s",
                     [bytes_cell](const Record&, const Result& r) { return bytes_cell(r); }});
  }
  if (any_null_test) {
    cells.push_back({"null test", [](const Record&, const Result& r) {
                       return null_test_cell(r.null_test_outcome, false);
                     }});
  }
  if (any_flags) {
    cells.push_back({"flags", [](const Record&, const Result& r) {
                       std::string joined;
                       for (const std::string& f : flag_words(r)) {
                         joined += (joined.empty() ? "" : ", ") + f;
                       }
                       return joined;
                     }});
  }
  if (devices.size() > 1) {
    cells.push_back({"device", [](const Record& rec, const Result& r) {
                       return md(row_device_label(rec.device, rec.device_state, r.board));
                     }});
  }

  std::vector<std::vector<std::string>> rows;
  rows.emplace_back();
  for (const Cell& c : cells) rows.back().push_back(c.title);
  for (const Record& record : records) {
    for (const Result& r : record.results) {
      rows.emplace_back();
      for (const Cell& c : cells) rows.back().push_back(c.of_result(record, r));
    }
    // A failed case: its identity, and "not measured" where its numbers would be.
    for (const Failure& f : record.failures) {
      rows.emplace_back();
      for (const Cell& c : cells) {
        std::string cell = c.title == "flags" ? "" : kNotMeasured;
        if (c.title == "case") cell = md(f.row.case_name);
        if (c.title == "implementation") {
          cell = md(f.row.implementation.empty() ? "(every implementation)" : f.row.implementation);
        }
        if (c.title == "params") cell = md(format_params(f.row.params));
        if (c.title == "device") cell = md(device_label(record.device));
        rows.back().push_back(std::move(cell));
      }
    }
  }
  return rows;
}

std::size_t widest_line(std::string_view text) {
  std::size_t widest = 0, current = 0;
  for (const char c : text) {
    if (c == '\n') {
      widest = std::max(widest, current);
      current = 0;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++current;
    }
  }
  return std::max(widest, current);
}

namespace {

// fit_narrow_rows' steps, applied until the table fits or none is left; the caption says what
// they moved.
std::string narrow_rows_further(std::vector<std::vector<std::string>>& rows, const TimeUnit& unit) {
  const auto fits = [&rows] { return widest_line(markdown_table(rows)) <= kNarrowWidth; };
  std::vector<std::string>& header = rows.front();
  const auto index_of = [&header](const std::function<bool(const std::string&)>& match) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (match(header[i])) return static_cast<std::ptrdiff_t>(i);
    }
    return static_cast<std::ptrdiff_t>(-1);
  };
  std::string caption;
  // 1. The null test column: each null test is also a line under "Null tests" below.
  if (const std::ptrdiff_t i = index_of([](const std::string& t) { return t == "null test"; });
      i >= 0) {
    for (auto& row : rows) row.erase(row.begin() + i);
    caption = fmt::format(
        "The null test column is left out to fit {} columns: each null test is listed below.",
        kNarrowWidth);
  }
  if (fits()) return caption;
  // 2. The time titles: "device_busy median [p10, p90] (us)" becomes "device_busy", and
  // "latency (us)" "latency"; the caption says what their cells hold.
  const std::string time_suffix = fmt::format(" median [p10, p90] ({})", unit.name);
  const std::string latency_title = fmt::format("latency ({})", unit.name);
  std::string statistic;
  bool latency = false;
  for (std::string& title : header) {
    if (title.size() > time_suffix.size() &&
        title.compare(title.size() - time_suffix.size(), time_suffix.size(), time_suffix) == 0) {
      statistic = title.substr(0, title.size() - time_suffix.size());
      title = statistic;
    } else if (title == latency_title) {
      title = "latency";
      latency = true;
    }
  }
  if (!statistic.empty()) {
    caption += fmt::format("{}Times in {}: {} is each row's median [p10, p90]{}{}.",
                           caption.empty() ? "" : " ", unit.name, statistic,
                           statistic == "time" ? " of its method's statistic" : "",
                           latency ? ", latency its median" : "");
  }
  return caption;
}

}  // namespace

std::string fit_narrow_rows(std::vector<std::vector<std::string>>& rows, const TimeUnit& unit) {
  if (rows.empty() || widest_line(markdown_table(rows)) <= kNarrowWidth) return "";
  // Only a table the steps make fit is changed: one too wide anyway (names of unusual length)
  // keeps every column and title as they were.
  std::vector<std::vector<std::string>> fitted = rows;
  std::string caption = narrow_rows_further(fitted, unit);
  if (widest_line(markdown_table(fitted)) > kNarrowWidth) return "";
  rows = std::move(fitted);
  return caption;
}

// A markdown list item (`marker` then `text`) broken at spaces into lines of at most
// kNarrowWidth characters where a break is allowed; continuation lines are indented to the
// item's text, so the item reads the same in a renderer.
std::string wrapped_item(std::string_view marker, std::string_view text) {
  const std::string indent(marker.size(), ' ');
  std::string out;
  std::string line(marker);
  bool line_has_word = false;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t space = text.find(' ', at);
    const std::string_view word =
        text.substr(at, space == std::string_view::npos ? std::string_view::npos : space - at);
    if (line_has_word && line.size() + 1 + word.size() > kNarrowWidth && may_start_line(word)) {
      out += line + "\n";
      line = indent + std::string(word);
    } else {
      line += (line_has_word ? " " : "") + std::string(word);
    }
    line_has_word = true;
    if (space == std::string_view::npos) break;
    at = space + 1;
  }
  return out + line + "\n";
}

}  // namespace gpumeter::report_parts
