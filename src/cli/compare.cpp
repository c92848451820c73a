// `gpumeter compare BASE NEW`: every row of a new record against the same row of a baseline,
// by the comparison rule of its statistic, with a gate for CI.
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/comparison.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/format.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/table.hpp"
#include "number_option.hpp"

namespace gpumeter::cli {
namespace {

struct Options {
  std::string base;
  std::string next;
  std::optional<double> fail_on_regression_pct;
};

std::string time_text(double ns) {
  if (!std::isfinite(ns)) return kNotMeasured;
  if (ns >= 10e6) return format_significant(ns / 1e6, 3) + " ms";
  return format_significant(ns / 1e3, 3) + " us";
}

std::string label(const RowKey& row) {
  return inert_text(row_label(row));
}

std::string device_text(const Record& r) {
  return inert_text(r.device.name.empty() ? r.device.kind : r.device.name) +
         (r.device.uuid.empty() ? "" : " " + inert_text(r.device.uuid));
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Compare every row of NEW with the same row (case, params, implementation) of BASE.");
  sub->add_option("base", options->base, "The baseline record")->required();
  sub->add_option("new", options->next, "The record to judge against it")->required();
  sub->add_option("--fail-on-regression", options->fail_on_regression_pct,
                  "Exit 1 when a row is slower than BASE by more than PCT percent, with the "
                  "confidence of its interval (for CI)")
      ->type_name("PCT");
  check_number(sub->get_option("--fail-on-regression"), kPercentThreshold);
  sub->footer(
      "Exit codes: 0 no regression; 1 a row slower beyond --fail-on-regression; 2 a record that "
      "cannot be read, or a row that cannot be compared (another statistic or timing method, or "
      "too few passes); 3 internal error.");
  return {sub, [options](Io& io) {
            return compare(options->base, options->next, options->fail_on_regression_pct, io);
          }};
}

int compare(const std::string& base_file, const std::string& new_file,
            std::optional<double> fail_on_regression_pct, Io& io) {
  std::vector<Record> records;
  try {
    records = read_records({base_file, new_file});
  } catch (const InvalidRecord& e) {
    print_error(io, "compare", e.what());
    return kExitUsage;
  }
  const Record& base = records[0];
  const Record& next = records[1];

  std::map<RowKey, const Result*> in_base;
  for (const Result& r : base.results) in_base.emplace(r.row, &r);
  std::map<RowKey, const Result*> in_next;
  for (const Result& r : next.results) in_next.emplace(r.row, &r);

  std::string table =
      "| case / implementation (params) | statistic | base median | new median | change | "
      "finding |\n|---|---|---|---|---|---|\n";
  std::vector<std::string> only_base;
  std::vector<std::string> only_new;
  std::vector<std::string> refused;
  std::vector<std::string> regressions;
  double log_sum = 0;
  int logs = 0;
  for (const Result& r : next.results) {
    const auto it = in_base.find(r.row);
    if (it == in_base.end()) {
      only_new.push_back(label(r.row));
      continue;
    }
    const Result& b = *it->second;
    const Comparison c = compare_rows(b, r);
    std::string change = "not compared";
    std::string finding = inert_text(c.refusal);
    if (c.compared() && c.difference) {
      const RelativeDifference& d = *c.difference;
      // The core's numbers, so the change and its interval share their figures.
      const PercentText t = percent_text(d);
      change = t.estimate + " [" + t.low + ", " + t.high + "]";
      finding = d.slower()   ? "slower"
                : d.faster() ? "faster"
                             : "no difference detected (would see " +
                                   format_sig2(100 * d.smallest_detectable) + "%)";
      log_sum += std::log1p(d.estimate);
      ++logs;
      if (fail_on_regression_pct && d.low > *fail_on_regression_pct / 100) {
        const DifferenceWords w = difference_words(d);
        regressions.push_back(label(r.row) + ": " + w.change + " (" + w.interval + ")");
      }
    } else if (c.compared() && c.ratio) {
      change = c.ratio->wording;
      finding = c.ratio->label;
    }
    if (c.compared()) {
      const std::string clocks = clock_difference_words(c, "base", "new");
      if (!clocks.empty()) finding += "; " + clocks;
    }
    if (!c.compared()) refused.push_back(label(r.row) + ": " + inert_text(c.refusal));
    table += "| " + label(r.row) + " | " + std::string(to_string(c.statistic)) + " | " +
             time_text(b.summary.device_busy.median_ns) + " | " +
             time_text(r.summary.device_busy.median_ns) + " | " + change + " | " + finding + " |\n";
  }
  for (const Result& r : base.results) {
    if (in_next.find(r.row) == in_next.end()) only_base.push_back(label(r.row));
  }

  // Rendered whole before the first byte is written.
  std::string out = "Base: " + inert_text(base.run_id) + " (" + device_text(base) +
                    ")\nNew:  " + inert_text(next.run_id) + " (" + device_text(next) + ")\n";
  if (base.device.uuid != next.device.uuid || base.device.name != next.device.name) {
    out += "Note: the two records were measured on different devices.\n";
  }
  out += "\n" + table;
  if (logs > 0) {
    const double g = std::expm1(log_sum / logs);
    out += "\nGeometric mean of new / base over " + std::to_string(logs) +
           " row(s): " + (g >= 0 ? "+" : "") + format_sig2(100 * g) + "% (" +
           (g >= 0 ? "slower" : "faster") + ")\n";
  }
  if (!only_base.empty()) {
    out += "\nOnly in base (" + std::to_string(only_base.size()) + "):\n";
    for (const std::string& l : only_base) out += "- " + l + "\n";
  }
  if (!only_new.empty()) {
    out += "\nOnly in new (" + std::to_string(only_new.size()) + "):\n";
    for (const std::string& l : only_new) out += "- " + l + "\n";
  }
  if (fail_on_regression_pct) {
    out += "\nRegressions beyond " + format_sig2(*fail_on_regression_pct) + "% (" +
           std::to_string(regressions.size()) + "):\n";
    for (const std::string& l : regressions) out += "- " + l + "\n";
  }
  io.out << out << std::flush;
  if (!regressions.empty()) return 1;
  if (!refused.empty()) {
    print_error(
        io, "compare",
        std::to_string(refused.size()) + " row(s) could not be compared, e.g. " + refused.front());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace gpumeter::cli
