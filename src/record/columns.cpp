#include "gpumeter/columns.hpp"

#include <array>
#include <string>
#include <vector>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {
namespace {

std::optional<double> as_value(double v) {
  return v;
}

// clang-format off
std::optional<double> busy_median(const Summary& s) { return as_value(s.device_busy.median_ns); }
std::optional<double> busy_p10(const Summary& s) { return as_value(s.device_busy.p10_ns); }
std::optional<double> busy_p90(const Summary& s) { return as_value(s.device_busy.p90_ns); }
std::optional<double> latency_median(const Summary& s) { return as_value(s.latency.median_ns); }
std::optional<double> latency_p10(const Summary& s) { return as_value(s.latency.p10_ns); }
std::optional<double> latency_p90(const Summary& s) { return as_value(s.latency.p90_ns); }
std::optional<double> n_samples(const Summary& s) { return static_cast<double>(s.n_samples); }
std::optional<double> max_kernels(const Summary& s) {
  return s.max_n_kernels ? std::optional<double>(*s.max_n_kernels) : std::nullopt;
}
std::optional<double> gap(const Summary& s) { return as_value(s.gap_ns); }
std::optional<double> uncounted_copy(const Summary& s) { return as_value(s.median_uncounted_copy_ns); }
std::optional<double> tflops(const Summary& s) { return s.tflops; }
std::optional<double> tbs(const Summary& s) { return s.tbs; }
std::optional<double> pct_flops(const Summary& s) { return s.pct_of_peak_flops; }
std::optional<double> pct_bandwidth(const Summary& s) { return s.pct_of_peak_bandwidth; }
std::optional<double> flag(const std::optional<bool>& f) { return f ? std::optional<double>(*f ? 1.0 : 0.0) : std::nullopt; }
std::optional<double> above_flops(const Summary& s) { return flag(s.above_flops_ceiling); }
std::optional<double> above_bandwidth(const Summary& s) { return flag(s.above_bandwidth_ceiling); }
std::optional<double> retries(const Summary& s) { return static_cast<double>(s.retries); }
template <auto field>
std::optional<double> clock_value(const Summary& s) {
  return s.clock ? std::optional<double>(static_cast<double>((*s.clock).*field)) : std::nullopt;
}
// Records of schema version 3 flagged by that version's rule (clock_state.hpp).
std::optional<double> schema_3_clock_flags(const Result& r) {
  std::vector<ClockReading> readings;
  for (const Sample& s : r.measurement.samples) {
    if (!s.clock) return std::nullopt;
    readings.push_back(*s.clock);
  }
  if (readings.empty()) return std::nullopt;
  return static_cast<double>(schema_3_flagged_samples(readings));
}

std::string case_name(const Record&, const Result& r) { return r.row.case_name; }
std::string implementation(const Record&, const Result& r) { return r.row.implementation; }
std::string params(const Record&, const Result& r) { return format_params(r.row.params); }
std::string method(const Record&, const Result& r) { return std::string(to_string(r.measurement.method)); }
std::string statistic(const Record&, const Result& r) { return std::string(to_string(statistic_of(r.measurement.method))); }
std::string device(const Record& rec, const Result& r) { return row_device_label(rec.device, rec.device_state, r.board); }
// A result's; a failure's row is written from the failure (render_csv).
std::string status(const Record&, const Result& r) { return std::string(to_string(status_of(r))); }
std::string error(const Record&, const Result& r) { return error_of(r); }
std::string run_id(const Record& rec, const Result&) { return rec.run_id; }
std::string null_test(const Record&, const Result& r) { return null_test_cell(r.null_test_outcome); }
std::optional<double> bytes(const std::optional<long long>& b) {
  return b ? std::optional<double>(static_cast<double>(*b)) : std::nullopt;
}
std::optional<double> gpu_workload(const Result& r) { return bytes(r.memory.gpu_workload_bytes()); }
std::optional<double> gpu_floor(const Result& r) { return bytes(r.memory.gpu_context_floor_bytes); }
std::optional<double> host_peak(const Result& r) { return bytes(r.memory.host_peak_rss_bytes); }

using K = ColumnKind;
using M = MarkdownPlacement;
constexpr std::array kColumns{
  Column{"case", "case", K::text, M::cell, "", "", false, nullptr, case_name},
  Column{"implementation", "implementation", K::text, M::cell, "", "", false, nullptr, implementation},
  Column{"params", "params", K::text, M::cell, "", "", false, nullptr, params},
  // What became of the row and why (row_status.hpp): CSV only; the markdown table says it in a
  // note under the table.
  Column{"status", "status", K::text, M::hidden, "", "", false, nullptr, status},
  Column{"error", "error", K::text, M::hidden, "", "", false, nullptr, error},
  Column{"timing_method", "method", K::text, M::cell, "", "", false, nullptr, method},
  Column{"statistic", "statistic", K::text, M::cell, "", "", false, nullptr, statistic},
  // The row's statistic (the column before): device_busy, or the wall clock of a method that
  // times one interval around the call. Named "time" so no wall-clock reading is labelled
  // device_busy; the record's field keeps its schema's name.
  Column{"time_median_us", "time median [p10, p90]", K::time, M::cell, "device_busy_ms", "median", false, busy_median, nullptr},
  Column{"time_p10_us", "", K::time, M::bracket_previous, "device_busy_ms", "p10", false, busy_p10, nullptr},
  Column{"time_p90_us", "", K::time, M::bracket_previous, "device_busy_ms", "p90", false, busy_p90, nullptr},
  Column{"latency_median_us", "latency median", K::time, M::cell, "latency_ms", "median", false, latency_median, nullptr},
  Column{"latency_p10_us", "", K::time, M::hidden, "latency_ms", "p10", false, latency_p10, nullptr},
  Column{"latency_p90_us", "", K::time, M::hidden, "latency_ms", "p90", false, latency_p90, nullptr},
  Column{"n_samples", "n", K::count, M::cell, "", "n_samples", false, n_samples, nullptr},
  Column{"max_n_kernels", "n_kernels (max)", K::count, M::cell, "", "max_n_kernels", true, max_kernels, nullptr},
  Column{"gap_us", "gap", K::time, M::cell, "", "gap_ms", false, gap, nullptr, 1, nullptr, 1, nullptr, true},
  Column{"uncounted_copy_us", "uncounted copy", K::time, M::cell, "", "uncounted_copy_ms", false, uncounted_copy, nullptr, 1, nullptr, 1, nullptr, true},
  Column{"tflops", "TFLOP/s", K::real, M::cell, "", "tflops", true, tflops, nullptr},
  Column{"tbs", "TB/s", K::real, M::cell, "", "tbs", true, tbs, nullptr},
  Column{"pct_of_peak_flops", "% peak FLOP/s", K::real, M::cell, "", "pct_of_peak_flops", true, pct_flops, nullptr},
  Column{"above_flops_ceiling", kAboveCeiling, K::flag, M::annotate_previous, "", "above_flops_ceiling", true, above_flops, nullptr, 4},
  Column{"pct_of_peak_bandwidth", "% peak TB/s", K::real, M::cell, "", "pct_of_peak_bandwidth", true, pct_bandwidth, nullptr},
  Column{"above_bandwidth_ceiling", kAboveCeiling, K::flag, M::annotate_previous, "", "above_bandwidth_ceiling", true, above_bandwidth, nullptr, 4},
  Column{"retries", "retries", K::count, M::cell, "", "retries", false, retries, nullptr},
  Column{"null_test", "null test", K::text, M::cell, "", "", false, nullptr, null_test, 3},
  // B4: the row's clocks beside its flag count, each recomputed from the samples by a reader.
  Column{"median_sm_clock_mhz", "SM clock median [min, max]", K::clock, M::cell, "", "median_sm_clock_mhz", true, clock_value<&ClockSummary::median_mhz>, nullptr, 3},
  Column{"min_sm_clock_mhz", "", K::clock, M::bracket_previous, "", "min_sm_clock_mhz", true, clock_value<&ClockSummary::min_mhz>, nullptr, 4},
  Column{"max_sm_clock_mhz", "", K::clock, M::bracket_previous, "", "max_sm_clock_mhz", true, clock_value<&ClockSummary::max_mhz>, nullptr, 4},
  Column{"clock_flagged_samples", "clock-flagged", K::count, M::cell, "", "clock_flagged_samples", true, clock_value<&ClockSummary::flagged>, nullptr, 3, nullptr, 4, schema_3_clock_flags},
  Column{"clock_below_reference_samples", "", K::count, M::hidden, "", "clock_below_reference_samples", true, clock_value<&ClockSummary::below_reference>, nullptr, 4},
  Column{"sw_power_cap_samples", "", K::count, M::hidden, "throttle_reason_samples", "sw_power_cap", true, clock_value<&ClockSummary::sw_power_cap>, nullptr, 4},
  Column{"hw_slowdown_samples", "", K::count, M::hidden, "throttle_reason_samples", "hw_slowdown", true, clock_value<&ClockSummary::hw_slowdown>, nullptr, 4},
  Column{"sw_thermal_samples", "", K::count, M::hidden, "throttle_reason_samples", "sw_thermal", true, clock_value<&ClockSummary::sw_thermal>, nullptr, 4},
  Column{"hw_thermal_samples", "", K::count, M::hidden, "throttle_reason_samples", "hw_thermal", true, clock_value<&ClockSummary::hw_thermal>, nullptr, 4},
  Column{"hw_power_brake_samples", "", K::count, M::hidden, "throttle_reason_samples", "hw_power_brake", true, clock_value<&ClockSummary::hw_power_brake>, nullptr, 4},
  Column{"gpu_workload_mib", "GPU memory", K::memory, M::cell, "", "", true, nullptr, nullptr, 3, gpu_workload},
  Column{"gpu_context_floor_mib", "", K::memory, M::hidden, "", "", true, nullptr, nullptr, 3, gpu_floor},
  Column{"host_peak_rss_mib", "host peak RSS", K::memory, M::cell, "", "", true, nullptr, nullptr, 3, host_peak},
  Column{"device", "device", K::text, M::cell, "", "", false, nullptr, device},
  Column{"run_id", "", K::text, M::hidden, "", "", false, nullptr, run_id},
};
// clang-format on

}  // namespace

std::span<const Column> result_columns() {
  return kColumns;
}

std::optional<double> number_of(const Column& column, const Result& result) {
  if (column.summary != nullptr) return column.summary(result.summary);
  return column.value != nullptr ? column.value(result) : std::nullopt;
}

std::optional<double> shown_number_of(const Column& column, const Result& result) {
  if (column.needs_kernels && !sees_kernels(result.measurement.method)) return std::nullopt;
  return number_of(column, result);
}

std::string text_of(const Column& column, const Record& record, const Result& result) {
  return column.text != nullptr ? column.text(record, result) : std::string();
}

}  // namespace gpumeter
