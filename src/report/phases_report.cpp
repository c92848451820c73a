// The phases a user waits for, total(N), crossovers and growth in the markdown report: after the
// comparisons, each part only when a record holds what it is made of. Every number comes from the
// records' samples through the core (total_n.hpp, growth.hpp); every sentence from wording.hpp.
#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/growth.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/detail/total_n.hpp"
#include "gpumeter/detail/verdict.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_clock.hpp"
#include "table_parts.hpp"

namespace gpumeter {
namespace {

using namespace report_parts;  // NOLINT: the parts of this report

std::string case_of(const RowKey& row) {
  std::string label = row.case_name;
  if (!row.params.empty()) label += " (" + format_params(row.params) + ")";
  return label;
}

std::string spread_text(const std::vector<Nanos>& samples) {
  const Spread s = spread_of(samples);
  return time_text(s.median_ns) + " [" + time_text(s.p10_ns) + ", " + time_text(s.p90_ns) + "]";
}

std::string optional_time(const std::optional<double>& ns) {
  return ns ? time_text(*ns) : std::string(kNotMeasured);
}

std::string phases_part(const Record& record, TableLayout layout) {
  const auto item = [&](std::string_view marker, const std::string& text) {
    return layout == TableLayout::narrow ? wrapped_item(marker, text)
                                         : std::string(marker) + text + "\n";
  };
  std::string out;
  if (!record.phases.empty()) {
    std::map<std::tuple<std::string, std::string, Phase, PhaseSetting>, const PhaseReading*> by;
    for (const PhaseReading& p : record.phases) {
      const std::string c = case_of(p.row);
      by[{c, p.row.implementation, p.phase, p.setting}] = &p;
    }
    struct Line {
      std::string case_name, candidate, phase, setting, statistic, spread, n, versus;
    };
    std::vector<Line> lines;
    std::vector<std::string> versus_of(record.phases.size(), "-");
    for (const PhaseVersus& v : compare_phases(record.phases)) {
      if (!v.verdict) {
        versus_of[v.reading] = "not compared (a reading of zero)";
        continue;
      }
      // Unclaimed, the cell says how far the readings spread (the heading names the rule).
      const bool claimed = v.verdict->resolution == Resolution::directional_difference;
      versus_of[v.reading] =
          v.verdict->wording + (claimed ? " than " : " of ") + v.against +
          (claimed ? "" : " (" + spread_words(v.verdict->spread, v.verdict->load_average) + ")");
    }
    for (std::size_t i = 0; i < record.phases.size(); ++i) {
      const PhaseReading& p = record.phases[i];
      const std::string c = case_of(p.row);
      std::string phase(phase_title(p.phase));
      if (p.recaptures) phase += fmt::format(" ({} captures)", *p.recaptures);
      lines.push_back({c, p.row.implementation, phase, std::string(to_string(p.setting)),
                       std::string(to_string(p.statistic)), spread_text(p.samples_ns),
                       std::to_string(p.samples_ns.size()), versus_of[i]});
    }
    // `common`: the statistic said once above the table; a phase by another says its own.
    const auto table = [&](bool statistic, bool setting, bool versus,
                           const std::string& only_setting, const std::string& common = "") {
      std::vector<std::vector<std::string>> rows;
      std::vector<std::string> head = {"case", "candidate", "phase"};
      if (setting) head.push_back("setting");
      if (statistic) head.push_back("statistic");
      head.insert(head.end(), {"median [p10, p90]", "n"});
      if (versus) head.push_back("against the first candidate");
      rows.push_back(head);
      for (const Line& l : lines) {
        if (!only_setting.empty() && l.setting != only_setting) continue;
        std::vector<std::string> r = {
            md(l.case_name), md(l.candidate),
            l.phase + (statistic || l.statistic == common ? "" : " [" + l.statistic + "]")};
        if (setting) r.push_back(l.setting);
        if (statistic) r.push_back(l.statistic);
        r.insert(r.end(), {l.spread, l.n});
        if (versus) r.push_back(md(l.versus));
        rows.push_back(std::move(r));
      }
      return markdown_table(rows);
    };
    std::string phases_table = table(true, true, true, "");
    if (layout == TableLayout::narrow && widest_line(phases_table) > kNarrowWidth) {
      // Within kNarrowWidth where the content allows (issue 51: 180 columns): a statistic every
      // row shares said once, a table per setting, and each comparison with the first
      // candidate as a line under the tables.
      std::map<std::string, std::size_t> statistics;
      std::vector<std::string> settings;
      for (const Line& l : lines) {
        ++statistics[l.statistic];
        if (std::find(settings.begin(), settings.end(), l.setting) == settings.end()) {
          settings.push_back(l.setting);
        }
      }
      std::string common;  // the statistic of most phases
      std::size_t most = 0;
      for (const auto& [statistic, count] : statistics) {
        if (count > most) {
          common = statistic;
          most = count;
        }
      }
      phases_table.clear();
      for (const std::string& setting : settings) {
        phases_table += (phases_table.empty() ? "" : "\n") + std::string("Setting ") + setting +
                        ", every phase by " + common +
                        (statistics.size() > 1 ? " but those that name another" : "") + ":\n\n" +
                        table(false, false, false, setting, common);
      }
      std::string versus_lines;
      for (const Line& l : lines) {
        if (l.versus == "-") continue;
        versus_lines += item("- ", md(l.case_name + " / " + l.candidate, MdPlace::line_start) +
                                       ", " + l.phase + " (" + l.setting + "): " + md(l.versus));
      }
      if (!versus_lines.empty()) {
        phases_table += "\nAgainst the first candidate:\n" + versus_lines;
      }
    }
    out += item("", phases_heading()) + "\n" + phases_table;
    // The wrapper: the public call against the bare kernel, one candidate at a time.
    std::string wrappers;
    for (const auto& [key, p] : by) {
      const auto& [c, implementation, phase, setting] = key;
      if (phase != Phase::end_to_end) continue;
      const auto kernel = by.find({c, implementation, Phase::kernel_call, setting});
      if (kernel == by.end()) continue;
      wrappers += item("- ", md(c + " / " + implementation, MdPlace::line_start) + ": " +
                                 md(wrapper_words(kernel->second->samples_ns, p->samples_ns)));
    }
    if (!wrappers.empty()) out += "\n" + wrappers;
  }

  const std::vector<TotalN> totals = decompose_totals(record.phases, record.totals);
  for (const PhaseSetting setting : {PhaseSetting::fresh_cached, PhaseSetting::fresh_cold}) {
    // Measured: to the process's exit where the exit was measured (what a one-shot tool's user
    // waits for), with the synchronize after the N-th call beside it.
    std::vector<std::vector<std::string>> rows = {{"case", "candidate", "fixed", "per call", "N",
                                                   "predicted", "measured (to exit)",
                                                   "to the synchronize", "measured / predicted"}};
    std::string missing;
    for (const TotalN& t : totals) {
      if (t.setting != setting) continue;
      std::optional<double> fixed = 0.0;
      for (const TotalTerm& term : t.fixed) {
        if (term.median_ns) *fixed += *term.median_ns;
      }
      if (!t.missing.empty()) fixed.reset();
      for (const TotalAtN& at : t.at) {
        rows.push_back({md(case_of(t.row)), md(t.row.implementation), optional_time(fixed),
                        optional_time(t.per_call.median_ns), std::to_string(at.calls),
                        optional_time(at.predicted_ns), optional_time(at.measured_to_exit_ns),
                        optional_time(at.measured_ns),
                        at.measured_over_predicted
                            ? format_significant(*at.measured_over_predicted, 2) + "x"
                            : std::string(kNotMeasured)});
      }
      const auto titles = [](const std::vector<Phase>& phases) {
        std::string text;
        for (const Phase p : phases)
          text += (text.empty() ? "" : ", ") + std::string(phase_title(p));
        return text;
      };
      if (!t.missing.empty()) {
        missing +=
            item("- ", md(case_of(t.row) + " / " + t.row.implementation, MdPlace::line_start) +
                           ": no total predicted: " + titles(t.missing) + " " + kNotMeasured);
      }
      if (!t.absent.empty()) {
        missing +=
            item("- ", md(case_of(t.row) + " / " + t.row.implementation, MdPlace::line_start) +
                           ": " + kNotMeasured + " (left out of the sum): " + titles(t.absent));
      }
    }
    if (rows.size() == 1) continue;
    std::string table = markdown_table(rows);
    std::string unmeasured;
    if (layout == TableLayout::narrow && widest_line(table) > kNarrowWidth) {
      // Within kNarrowWidth where the content allows: a column no row measured is said once
      // under the table instead of in every row.
      for (std::size_t col = rows.front().size(); col-- > 2;) {
        const bool empty = std::all_of(rows.begin() + 1, rows.end(),
                                       [&](const auto& r) { return r[col] == kNotMeasured; });
        if (!empty) continue;
        unmeasured = rows.front()[col] + (unmeasured.empty() ? "" : ", ") + unmeasured;
        for (auto& r : rows) r.erase(r.begin() + static_cast<std::ptrdiff_t>(col));
      }
      table = markdown_table(rows);
      if (!unmeasured.empty())
        table += "\n" + item("", unmeasured + ": " + kNotMeasured + " in any row");
    }
    out += "\n" + item("", total_n_heading(setting)) + "\n" + table;
    if (!missing.empty()) out += "\n" + missing;
  }

  std::string crossings;
  for (const Crossover& c : crossovers_in_calls(record.totals)) {
    const std::string setting = c.setting ? std::string(to_string(*c.setting)) : std::string();
    crossings += item("- ", md(case_of(c.first), MdPlace::line_start) + " (" + setting +
                                "): " + md(describe(c, "N")));
  }
  if (!crossings.empty()) out += "\nCrossovers in N (measured totals):\n" + crossings;

  const SweepAnalysis sweeps = analyze_sweeps(record);
  for (const std::string& axis : sweeps.axes) {
    std::string lines;
    for (const Growth& g : sweeps.growth) {
      if (g.axis != axis) continue;
      for (const GrowthRegime& r : g.regimes) {
        lines +=
            item("- ", md(row_label(g.row), MdPlace::line_start) + ": " + md(describe(r, axis)));
      }
    }
    for (const Crossover& c : sweeps.crossovers) {
      if (c.axis != axis) continue;
      lines += item("- ", md(case_of(c.first), MdPlace::line_start) + ": " + md(describe(c, axis)));
    }
    if (!lines.empty()) out += "\n" + item("", growth_heading(axis)) + lines;
  }
  if (!sweeps.left_out.empty()) {
    out += "\n";
    for (const std::string& line : sweeps.left_out)
      out += item("- ", md(line, MdPlace::line_start));
  }
  return out;
}

}  // namespace

std::string render_phases(const std::vector<Record>& records, TableLayout layout) {
  std::string out;
  for (const Record& record : records) {
    const std::string part = phases_part(record, layout);
    if (!part.empty()) out += (out.empty() ? "" : "\n") + part;
  }
  return out;
}

}  // namespace gpumeter
