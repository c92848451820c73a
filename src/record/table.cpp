#include "gpumeter/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/duration.hpp"
#include "gpumeter/timing_method.hpp"

namespace gpumeter {
namespace {

// Counters that could not be read when the record was made (P2).
constexpr const char* kNotAvailable = "not available";

// Above this median device_busy the table switches from us to ms, so a long op does not read
// as 123000 us; below it, kernel times stay in the unit they are usually quoted in.
constexpr double kMillisecondColumnsFromNs = 10.0 * static_cast<double>(kMillisecond);

struct TimeUnit {
  const char* name;
  double ns_per_unit;
};

TimeUnit table_unit(const std::vector<Record>& records) {
  double largest = 0;
  for (const Record& record : records) {
    for (const Result& result : record.results) {
      largest = std::max(largest, result.summary.device_busy.median_ns);
    }
  }
  if (largest >= kMillisecondColumnsFromNs) return {"ms", static_cast<double>(kMillisecond)};
  return {"us", static_cast<double>(kMicrosecond)};
}

std::string sig3(double value) {
  return format_significant(value, kTableTimeDigits);
}

std::string time_cell(double ns, const TimeUnit& unit) {
  return sig3(ns / unit.ns_per_unit);
}

std::string optional_cell(const std::optional<double>& value, std::string_view suffix = {}) {
  if (!value || !std::isfinite(*value)) return kNotMeasured;
  return sig3(*value) + std::string(suffix);
}

std::string params_text(const std::map<std::string, std::string>& params) {
  std::string text;
  for (const auto& [key, value] : params) {
    if (!text.empty()) text += ", ";
    text += key + "=" + value;
  }
  return text;
}

std::string device_text(const DeviceIdentity& device) {
  const std::string where = fmt::format("{}:{}", device.kind, device.index);
  if (device.name.empty()) return where;
  return fmt::format("{} ({})", device.name, where);
}

std::string row_label(const std::string& case_name, const std::string& implementation,
                      const std::map<std::string, std::string>& params) {
  std::string label = case_name + " / " + implementation;
  if (!params.empty()) label += " (" + params_text(params) + ")";
  return label;
}

std::string row_label(const Result& result) {
  return row_label(result.case_name, result.implementation, result.params);
}

std::string failed_implementation(const Failure& f) {
  return f.implementation.empty() ? "(every implementation)" : f.implementation;
}

// A failed case's row: its identity, and "not measured" in every cell that would hold a number.
std::vector<std::string> failure_row(const Failure& f, std::size_t width, std::string device,
                                     std::string run_id = {}) {
  std::vector<std::string> row(width, std::string(kNotMeasured));
  row[0] = f.case_name;
  row[1] = failed_implementation(f);
  row[2] = params_text(f.params);
  if (run_id.empty()) {
    row[width - 1] = std::move(device);
  } else {
    row[width - 2] = std::move(device);
    row[width - 1] = std::move(run_id);
  }
  return row;
}

template <typename T>
std::string available(const std::optional<T>& value, std::string_view unit = {}) {
  if (!value) return kNotAvailable;
  return fmt::format("{}{}", *value, unit);
}

std::string available_real(const std::optional<double>& value, std::string_view unit) {
  if (!value || !std::isfinite(*value)) return kNotAvailable;
  return sig3(*value) + std::string(unit);
}

// ---------------------------------------------------------------------------------------------
// Markdown

std::string markdown_cell(std::string text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

void append_markdown_row(std::string& out, const std::vector<std::string>& cells,
                         const std::vector<std::size_t>& widths) {
  out += '|';
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out += ' ';
    out += cells[i];
    out.append(widths[i] - cells[i].size(), ' ');
    out += " |";
  }
  out += '\n';
}

std::string state_line(const DeviceState& s) {
  std::string clocks = kNotAvailable;
  if (s.sm_clock_mhz || s.sm_clock_max_mhz) {
    clocks = fmt::format("{} of max {}", available(s.sm_clock_mhz, " MHz"),
                         available(s.sm_clock_max_mhz, " MHz"));
  }
  return fmt::format(
      "driver {}, SM clock {}, memory clock {}, temperature {}, power {}, throttle reasons {}, "
      "utilization {}, compute processes {}",
      s.driver_version ? *s.driver_version : std::string(kNotAvailable), clocks,
      available(s.memory_clock_mhz, " MHz"), available(s.temperature_c, " C"),
      available_real(s.power_w, " W"),
      s.throttle_reasons ? fmt::format("{:#x}", *s.throttle_reasons) : std::string(kNotAvailable),
      available(s.utilization_pct, "%"), available(s.compute_processes));
}

std::string config_line(const RunConfig& c) {
  return fmt::format("warm-up {} ms, measure {} ms, iterations [{}, {}], L2 flush {}, schedule {}",
                     sig3(to_ms(c.budget.warmup_ns)), sig3(to_ms(c.budget.measure_ns)),
                     c.budget.min_iterations, c.budget.max_iterations,
                     !c.l2_flush               ? std::string("off")
                     : c.l2_flush_mode.empty() ? std::string("on")
                                               : "on (" + c.l2_flush_mode + ")",
                     c.schedule);
}

// ---------------------------------------------------------------------------------------------
// CSV

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// Twelve significant digits: every digit a record holds that means anything (sub-ns up to
// seconds), without the last-bit noise of the ms <-> ns conversion.
std::string csv_time_us(double ns) {
  return fmt::format("{:.12g}", ns / static_cast<double>(kMicrosecond));
}

std::string csv_optional(const std::optional<double>& value) {
  if (!value || !std::isfinite(*value)) return kNotMeasured;
  return fmt::format("{}", *value);
}

}  // namespace

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value)) return kNotMeasured;
  if (value == 0) return "0";
  digits = std::max(digits, 1);
  // Let the library round ("9.996" to 3 figures is "1.00e+01"), then place the point.
  const std::string scientific = fmt::format("{:.{}e}", value, digits - 1);
  const std::size_t e = scientific.find('e');
  const int exponent = std::atoi(scientific.c_str() + e + 1);
  std::string sign;
  std::string mantissa;
  for (std::size_t i = 0; i < e; ++i) {
    const char c = scientific[i];
    if (c == '-') {
      sign = "-";
    } else if (c != '.') {
      mantissa += c;
    }
  }
  const int n = static_cast<int>(mantissa.size());
  if (exponent >= n - 1)
    return sign + mantissa + std::string(static_cast<std::size_t>(exponent - (n - 1)), '0');
  if (exponent >= 0) {
    const auto point = static_cast<std::size_t>(exponent + 1);
    return sign + mantissa.substr(0, point) + "." + mantissa.substr(point);
  }
  return sign + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + mantissa;
}

std::string render_markdown(const std::vector<Record>& records) {
  const TimeUnit unit = table_unit(records);
  const std::string u = unit.name;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"case", "implementation", "params", "method", "statistic",
                  "device_busy median [p10, p90] (" + u + ")", "latency median (" + u + ")", "n",
                  "n_kernels (max)", "gap (" + u + ")", "uncounted copy (" + u + ")", "TFLOP/s",
                  "TB/s", "% peak FLOP/s", "% peak TB/s", "retries", "device"});
  std::vector<std::string> notes;
  for (const Record& record : records) {
    for (const Result& result : record.results) {
      const Summary& s = result.summary;
      const Measurement& m = result.measurement;
      rows.push_back({
          result.case_name,
          result.implementation,
          params_text(result.params),
          std::string(to_string(m.method)),
          std::string(to_string(statistic_of(m.method))),
          fmt::format("{} [{}, {}]", time_cell(s.device_busy.median_ns, unit),
                      time_cell(s.device_busy.p10_ns, unit), time_cell(s.device_busy.p90_ns, unit)),
          time_cell(s.latency.median_ns, unit),
          std::to_string(s.n_samples),
          s.max_n_kernels ? std::to_string(*s.max_n_kernels) : std::string(kNotMeasured),
          time_cell(s.gap_ns, unit),
          // With count_copies the copies are inside device_busy: nothing is left uncounted.
          result.count_copies ? std::string("counted in busy")
                              : time_cell(s.median_uncounted_copy_ns, unit),
          optional_cell(s.tflops),
          optional_cell(s.tbs),
          optional_cell(s.pct_of_peak_flops, "%"),
          optional_cell(s.pct_of_peak_bandwidth, "%"),
          std::to_string(s.retries),
          device_text(record.device),
      });
      if (!m.reason.empty()) {
        notes.push_back(fmt::format("{}: timing method {}: {}", row_label(result),
                                    to_string(m.method), m.reason));
      }
      if (!m.drop_counter_live) {
        notes.push_back(fmt::format(
            "{}: the dropped-record counter was not proven live; a lost record could have gone "
            "unseen",
            row_label(result)));
      }
    }
    for (const Failure& f : record.failures) {
      rows.push_back(failure_row(f, rows.front().size(), device_text(record.device)));
      notes.push_back(fmt::format("{}: not measured: {}: {}",
                                  row_label(f.case_name, failed_implementation(f), f.params),
                                  f.error, f.message));
    }
  }

  for (auto& row : rows) {
    for (auto& cell : row) cell = markdown_cell(std::move(cell));
  }
  std::vector<std::size_t> widths(rows.front().size(), 3);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }

  std::string out;
  append_markdown_row(out, rows.front(), widths);
  out += '|';
  for (std::size_t width : widths) out += std::string(width + 2, '-') + '|';
  out += '\n';
  for (std::size_t i = 1; i < rows.size(); ++i) append_markdown_row(out, rows[i], widths);
  if (rows.size() == 1) out += "\nNo results in these records.\n";

  out += "\nDeviations:";
  bool any_deviation = false;
  for (const Record& record : records) {
    for (const std::string& deviation : record.deviations) {
      out += fmt::format("\n- {}: {}", record.run_id, deviation);
      any_deviation = true;
    }
  }
  out += any_deviation ? "\n" : " none recorded.\n";

  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& note : notes) out += "- " + note + "\n";
  }

  out += "\nSources:\n";
  for (const Record& record : records) {
    const DeviceIdentity& d = record.device;
    out += fmt::format("- record {} (created {}, gpumeter {}, commit {})\n", record.run_id,
                       record.created_utc, record.gpumeter_version,
                       record.project_commit.empty() ? kNotAvailable : record.project_commit);
    out += fmt::format("  - device {}, uuid {}, arch {}, host {}\n", device_text(d),
                       d.uuid.empty() ? kNotAvailable : d.uuid, d.arch, record.host.hostname);
    out += "  - state: " + state_line(record.device_state) + "\n";
    out += "  - config: " + config_line(record.config) + "\n";
  }
  return out;
}

namespace {

constexpr std::size_t kCsvColumns = 22;

void append_csv_row(std::string& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(cells[i]);
  }
  out += '\n';
}

}  // namespace

std::string render_csv(const std::vector<Record>& records) {
  std::string out =
      "case,implementation,params,timing_method,statistic,device_busy_median_us,"
      "device_busy_p10_us,device_busy_p90_us,latency_median_us,latency_p10_us,latency_p90_us,"
      "n_samples,max_n_kernels,gap_us,uncounted_copy_us,tflops,tbs,pct_of_peak_flops,"
      "pct_of_peak_bandwidth,retries,device,run_id\n";
  for (const Record& record : records) {
    for (const Result& result : record.results) {
      const Summary& s = result.summary;
      const Measurement& m = result.measurement;
      const std::vector<std::string> cells{
          result.case_name,
          result.implementation,
          params_text(result.params),
          std::string(to_string(m.method)),
          std::string(to_string(statistic_of(m.method))),
          csv_time_us(s.device_busy.median_ns),
          csv_time_us(s.device_busy.p10_ns),
          csv_time_us(s.device_busy.p90_ns),
          csv_time_us(s.latency.median_ns),
          csv_time_us(s.latency.p10_ns),
          csv_time_us(s.latency.p90_ns),
          std::to_string(s.n_samples),
          s.max_n_kernels ? std::to_string(*s.max_n_kernels) : std::string(kNotMeasured),
          csv_time_us(s.gap_ns),
          csv_time_us(s.median_uncounted_copy_ns),
          csv_optional(s.tflops),
          csv_optional(s.tbs),
          csv_optional(s.pct_of_peak_flops),
          csv_optional(s.pct_of_peak_bandwidth),
          std::to_string(s.retries),
          device_text(record.device),
          record.run_id,
      };
      append_csv_row(out, cells);
    }
    for (const Failure& f : record.failures) {
      append_csv_row(out, failure_row(f, kCsvColumns, device_text(record.device), record.run_id));
    }
  }
  return out;
}

}  // namespace gpumeter
