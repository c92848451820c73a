// The sources listed under a table: each record's device state, configuration and ceilings.
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

template <typename T>
std::string available(const std::optional<T>& value, std::string_view unit = {}) {
  if (!value) return kNotAvailable;
  return fmt::format("{}{}", *value, unit);
}

std::string available_real(const std::optional<double>& value, std::string_view unit) {
  if (!value || !std::isfinite(*value)) return kNotAvailable;
  return sig3(*value) + std::string(unit);
}

std::string rate_text(CeilingKind kind, double per_s) {
  return sig3(per_s / 1e12) + (kind == CeilingKind::bytes_per_s ? " TB/s" : " TFLOP/s");
}

}  // namespace

std::string state_line(const DeviceState& s) {
  std::string clocks = kNotAvailable;
  if (s.sm_clock_mhz || s.sm_clock_max_mhz) {
    clocks = fmt::format("{} of max {}", available(s.sm_clock_mhz, " MHz"),
                         available(s.sm_clock_max_mhz, " MHz"));
  }
  return fmt::format(
      "driver {}, SM clock {}, memory clock {}, temperature {}, power {}, throttle reasons {}, "
      "utilization {}, compute processes {}",
      s.driver_version ? md(*s.driver_version) : std::string(kNotAvailable), clocks,
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
                                               : "on (" + md(c.l2_flush_mode) + ")",
                     md(c.schedule));
}

CeilingsText ceilings_text(const Ceilings& c) {
  if (!c.flops_per_s && !c.bytes_per_s) return {kNotMeasured, {}};
  std::string values;
  if (c.bytes_per_s) values = "copy " + rate_text(CeilingKind::bytes_per_s, *c.bytes_per_s);
  if (c.flops_per_s) {
    values += (values.empty() ? "matrix " : ", matrix ") +
              rate_text(CeilingKind::flops_per_s, *c.flops_per_s);
  }
  if (!c.method) {
    return {values +
                " (recorded before ceilings were timed like the rows: the best of 10 runs timed "
                "with CUDA event pairs, so a percent near 100 may be the difference between two "
                "clocks)",
            {}};
  }
  CeilingsText out;
  out.head = fmt::format(
      "{}, each the fastest sample of the best of its runs, timed like the rows ({}, {})", values,
      to_string(*c.method), to_string(statistic_of(*c.method)));
  for (const CeilingRun& run : c.runs) {
    const std::vector<double> ns(run.samples_ns.begin(), run.samples_ns.end());
    const double median_rate = run.per_call / (quantile(ns, 0.5) * 1e-9);
    // The narrow table starts a list item with it.
    out.runs.push_back(fmt::format("{}: {} (fastest of {} samples; median {})",
                                   md(run.work, MdPlace::line_start),
                                   rate_text(run.kind, ceiling_rate(run)), run.samples_ns.size(),
                                   rate_text(run.kind, median_rate)));
  }
  return out;
}

std::string ceilings_line(const Ceilings& c) {
  const CeilingsText t = ceilings_text(c);
  std::string line = t.head;
  for (const std::string& run : t.runs) line += "; " + run;
  return line;
}

}  // namespace gpumeter::report_parts
