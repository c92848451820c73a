#include "gpumeter/comparisons.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <system_error>

#include "gpumeter/summary.hpp"

namespace gpumeter {
namespace {

std::vector<double> busy_samples(const Result& r) {
  std::vector<double> v;
  v.reserve(r.measurement.samples.size());
  for (const Sample& s : r.measurement.samples) v.push_back(static_cast<double>(s.device_busy_ns));
  return v;
}

std::string params_key(const Result& r) {
  std::string key;
  for (const auto& [k, v] : r.params) key += k + "=" + v + ";";
  return key;
}

std::string statistic_name(const Result& r) {
  return std::string(to_string(statistic_of(r.measurement.method)));
}

}  // namespace

Comparisons compare_records(const std::vector<Record>& records) {
  Comparisons out;
  for (const Record& rec : records) {
    // Rows of one case keep their order: the first is the baseline.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const Result*>> groups;
    for (const Result& r : rec.results) {
      const std::string key = r.case_name + "\n" + params_key(r);
      if (!groups.count(key)) order.push_back(key);
      groups[key].push_back(&r);
    }
    for (const std::string& key : order) {
      const auto& rows = groups[key];
      if (rows.size() < 2) continue;
      const Result& base = *rows.front();
      const auto scale_it = base.params.find(kNullTestParam);
      if (scale_it != base.params.end()) {
        NullTestOutcome nt;
        nt.case_name = base.case_name;
        const std::string& text = scale_it->second;
        const auto parsed = std::from_chars(text.data(), text.data() + text.size(), nt.scale);
        if (parsed.ec != std::errc{} || parsed.ptr != text.data() + text.size() ||
            !std::isfinite(nt.scale) || !(nt.scale > 0)) {
          nt.refusal = "null_test_scale '" + text + "' is not a positive number";
        } else if (rows.size() != 2) {
          nt.refusal = "a null test needs exactly two rows (1x and the scaled work)";
        } else if (base.measurement.method != rows[1]->measurement.method) {
          nt.refusal = "the two rows were timed with different methods";
        } else if (!(base.summary.device_busy.median_ns > 0) ||
                   !(rows[1]->summary.device_busy.median_ns > 0)) {
          nt.refusal = "a median of zero";
        } else {
          nt.verdict = evaluate_null_test(base.summary.device_busy.median_ns,
                                          rows[1]->summary.device_busy.median_ns, nt.scale);
        }
        out.null_tests.push_back(std::move(nt));
        continue;
      }
      for (std::size_t i = 1; i < rows.size(); ++i) {
        const Result& cand = *rows[i];
        CaseComparison c;
        c.case_name = base.case_name;
        c.baseline = base.implementation;
        c.candidate = cand.implementation;
        c.statistic = statistic_name(base);
        if (statistic_of(base.measurement.method) != statistic_of(cand.measurement.method)) {
          c.refusal = "not compared: " + base.implementation + " is " + statistic_name(base) +
                      " and " + cand.implementation + " is " + statistic_name(cand) +
                      "; two different statistics are never compared";
        } else if (!(base.summary.device_busy.median_ns > 0) ||
                   !(cand.summary.device_busy.median_ns > 0)) {
          c.refusal = "not compared: a median of zero";
        } else {
          c.verdict =
              compare_times(base.summary.device_busy.median_ns, cand.summary.device_busy.median_ns);
          c.interval = bootstrap_speedup_interval(busy_samples(base), busy_samples(cand));
        }
        out.cases.push_back(std::move(c));
      }
    }
  }
  return out;
}

std::string render_comparisons(const std::vector<Record>& records) {
  const Comparisons cmp = compare_records(records);
  std::string s;
  if (!cmp.cases.empty()) {
    s += "Comparisons (median of each row's statistic; baseline: the case's first row; "
         "resolution " +
         format_sig2(kResolutionRatio) + "x):\n";
    for (const CaseComparison& c : cmp.cases) {
      s += "- " + c.case_name + ": ";
      if (!c.verdict) {
        s += c.refusal + "\n";
        continue;
      }
      s += c.candidate + " is " + c.verdict->wording + " than " + c.baseline + " (" +
           c.verdict->label;
      if (c.verdict->resolution == Resolution::no_measured_difference && c.interval) {
        const std::string finer = finer_statement(*c.interval);
        s += finer.empty() ? "; the samples support nothing finer" : "; the samples: " + finer;
      }
      s += "; statistic " + c.statistic + ")\n";
    }
  }
  if (!cmp.null_tests.empty()) {
    s += "Null tests (P6: the work scaled, the time must scale alike within " +
         format_sig2(kNullTestTolerance * 100) + "%):\n";
    for (const NullTestOutcome& n : cmp.null_tests) {
      s += "- " + n.case_name + ": ";
      if (!n.verdict) {
        s += "not evaluated: " + n.refusal + "\n";
        continue;
      }
      s += format_sig2(n.scale) + "x the work took " + format_sig2(n.verdict->observed_ratio) +
           "x the time: " +
           (n.verdict->pass ? "pass" : "FAIL (the harness may not be timing the work)") + "\n";
    }
  }
  return s;
}

}  // namespace gpumeter
