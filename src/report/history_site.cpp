// `gpumeter history`'s pages, rendered from a History (history.hpp) into strings; the command
// writes them. Plain HTML, one style sheet and inline SVG: a page reads the same with scripts off,
// and its Content-Security-Policy forbids them, so a record's text can only ever be shown.
#include "gpumeter/history_site.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/difference.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_clock.hpp"
#include "gpumeter/row_status.hpp"
#include "gpumeter/version.hpp"

namespace gpumeter {
namespace {

std::string h(std::string_view text) {
  return html_text(text);
}

// No script of any kind, no plug-in, no form, no base: a page shows, it does not run. Styles from
// the site's own sheet; SVG is inline, drawn by attributes.
constexpr const char* kPolicy =
    "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'none'; object-src 'none'; "
    "base-uri 'none'; form-action 'none'";

constexpr const char* kStyle = R"(/* gpumeter history */
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 78em; padding: 0 1em;
       color: #1d232b; background: #fff; }
h1 { font-size: 1.5em; margin: .3em 0; overflow-wrap: anywhere; }
h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #d6dbe1; }
nav { font-size: .95em; margin-bottom: .8em; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border-bottom: 1px solid #e3e7ec; padding: .25em .55em; text-align: left;
         vertical-align: top; overflow-wrap: break-word; }
td code, td .file { overflow-wrap: anywhere; }
td.commit code { overflow-wrap: normal; white-space: nowrap; }
#points td { font-size: .92em; }
.file { color: #4f5966; }
th { background: #f3f5f7; position: sticky; top: 0; }
td.num { text-align: right; white-space: nowrap; }
tr.slower td.move, li.slower, span.slower { color: #b3261e; font-weight: 600; }
tr.faster td.move, li.faster, span.faster { color: #1e6b35; font-weight: 600; }
tr.break td { border-top: 2px dashed #8a5a00; }
tr.failed td { color: #6b7480; }
tr:target td { background: #fff6d6; }
.note { color: #4f5966; }
.break-note { color: #8a5a00; }
svg.chart, svg.spark { display: block; }
svg.chart { border: 1px solid #e3e7ec; background: #fcfdfe; max-width: 100%; height: auto; }
footer { margin-top: 2.5em; font-size: .85em; color: #6b7480; }
code { font-size: .95em; overflow-wrap: anywhere; }
)";

// The colors of lines, by the order a series meets its boards and methods.
constexpr const char* kLineColors[] = {"#2f5d9e", "#8a5a00", "#6a3d9a", "#0f7b7b", "#a03a6b"};
constexpr const char* kSlowerColor = "#b3261e";
constexpr const char* kFasterColor = "#1e6b35";

// Hashes a row to name its page (FNV-1a, 64 bits).
std::uint64_t fnv(std::string_view text) {
  std::uint64_t v = 1469598103934665603ull;
  for (const char c : text) {
    v ^= static_cast<unsigned char>(c);
    v *= 1099511628211ull;
  }
  return v;
}

std::string hex(std::uint64_t v, int digits) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = kHex[v & 0xf];
  return out;
}

// A commit as pages show it: a hash shortened to 12 digits, anything else as it is.
std::string commit_text(const std::string& commit) {
  const bool hash =
      commit.size() > 12 && commit.find_first_not_of("0123456789abcdef") == std::string::npos;
  return hash ? commit.substr(0, 12) : commit;
}

std::string count(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// A number for SVG coordinates: two decimals, no exponent.
std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", std::isfinite(v) ? v : 0.0);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

bool drawn(const HistoryPoint& p) {
  return p.result != nullptr && !p.null_test_failed;
}

std::string page(const std::string& title, const std::string& body, std::size_t records) {
  std::string out;
  out.reserve(body.size() + 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"";
  out += kPolicy;
  out += "\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"referrer\" content=\"no-referrer\">\n";
  out += "<title>" + h(title) + "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n";
  out += "</head>\n<body>\n";
  out +=
      "<nav><a id=\"nav-index\" href=\"index.html\">All series</a>"
      "<a id=\"nav-regressions\" href=\"regressions.html\">Regressions</a>"
      "<a id=\"nav-json\" href=\"regressions.json\">regressions.json</a></nav>\n";
  out += body;
  out += "<footer>Written by gpumeter history " + h(version()) + " from " +
         count(records, "record", "records") +
         ". Every number is read from the records; nothing was measured to draw it.</footer>\n";
  out += "</body>\n</html>\n";
  return out;
}

// The confidence of device time's intervals, as the records' schemas make it (99% since
// kCalibratedIntervalsSince, 95% before): "99%", or "99% (95% in records before schema 9)" where
// the records hold both.
std::string confidence_words(const History& history) {
  std::set<double, std::greater<>> levels;
  for (const HistoryRecord& r : history.records) {
    if (r.record != nullptr) levels.insert(interval_rules_of(r.record->schema_version).confidence);
  }
  if (levels.empty()) levels.insert(interval_rules_of(kComparisonRulesVersion).confidence);
  const auto percent = [](double c) { return format_significant(100 * c, 2) + "%"; };
  std::string words = percent(*levels.begin());
  if (levels.size() > 1) {
    words += " (";
    bool first = true;
    for (auto it = std::next(levels.begin()); it != levels.end(); ++it) {
      words += (first ? "" : ", ") + percent(*it);
      first = false;
    }
    words += " in records before schema " + std::to_string(kCalibratedIntervalsSince) + ")";
  }
  return words;
}

// How a page's points are compared, with the confidence the records' own schemas give. The
// wall clock's floors are the core's across runs (host_clock.hpp), as compare applies them: a page
// once said 1.5x where a row without a yardstick is judged from 2x.
std::string rule_note(const History& history) {
  return "<p class=\"note\">Each point is one row of one record. A point is compared with the "
         "previous point of its line (the same board and timing method) by the comparison of two "
         "runs, as <code>gpumeter compare</code> makes it: device time by the relative difference "
         "with its " +
         h(confidence_words(history)) +
         " interval, wall clock by the host-clock rule across two runs (a move only where the "
         "passes bound it, from " +
         format_shortest(kAcrossRunsYardstickRatio) +
         "x on for a row read against its yardstick, from " +
         format_shortest(kAcrossRunsResolutionRatio) +
         "x on for a row without one). Points of another board or timing method are never "
         "compared: where a series changes either, its line breaks. A move between two "
         "records of one commit is the machine's or the method's, not the code's, and is not "
         "listed as a regression.</p>\n";
}

// The last part of a path, as a page names a record's file (the whole path is its title).
std::string file_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string time_cell(double ns) {
  return h(time_text(ns));
}

std::string clock_words(const HistoryPoint& p, const Record& record) {
  std::string words;
  if (p.result != nullptr && p.result->summary.clock) {
    const ClockSummary& c = *p.result->summary.clock;
    words = "SM clock median " + format_significant(c.median_mhz, 4) + " MHz (" +
            std::to_string(c.min_mhz) + " to " + std::to_string(c.max_mhz) + "); " +
            std::to_string(c.flagged) + " of " + std::to_string(p.result->summary.n_samples) +
            " samples clock-flagged";
  } else if (p.result != nullptr) {
    words = "no clock readings (" + std::string(to_string(p.method)) + ")";
  }
  const DeviceState& s = record.device_state;
  std::string start;
  if (s.sm_clock_mhz) {
    start = "SM " + std::to_string(*s.sm_clock_mhz) +
            (s.sm_clock_max_mhz ? " of " + std::to_string(*s.sm_clock_max_mhz) : std::string()) +
            " MHz";
  }
  if (s.throttle_reasons) {
    start += (start.empty() ? "" : ", ") + describe_throttle_reasons(*s.throttle_reasons);
  }
  if (s.temperature_c)
    start += (start.empty() ? "" : ", ") + std::to_string(*s.temperature_c) + " C";
  if (!start.empty())
    words += (words.empty() ? "" : "; ") + std::string("at the run's start ") + start;
  return words.empty() ? kNotAvailable : words;
}

// The y axis of a chart: log of time between the lowest 10th and the highest 90th percentile.
struct Scale {
  double lo = 1;
  double hi = 10;
  double top = 0;
  double bottom = 1;
  double y(double ns) const {
    const double v = std::log(std::max(ns, 1.0));
    const double f = (v - std::log(lo)) / (std::log(hi) - std::log(lo));
    return bottom - f * (bottom - top);
  }
};

Scale scale_of(const HistorySeries& s, double top, double bottom) {
  double lo = 0;
  double hi = 0;
  bool any = false;
  for (const HistoryPoint& p : s.points) {
    if (!drawn(p)) continue;
    const Spread& d = p.result->summary.device_busy;
    const double a = std::max(1.0, std::min(d.p10_ns, d.median_ns));
    const double b = std::max(1.0, std::max(d.p90_ns, d.median_ns));
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  if (!any) return {1, 10, top, bottom};
  // A little room above and below; a flat series gets a band of its own.
  if (hi <= lo * 1.02) {
    lo /= 1.1;
    hi *= 1.1;
  } else {
    const double pad = std::pow(hi / lo, 0.06);
    lo /= pad;
    hi *= pad;
  }
  return {lo, hi, top, bottom};
}

// The lines of a series: one per board and timing method, numbered in the order met.
std::map<std::pair<std::string, TimingMethod>, std::size_t> lines_of(const HistorySeries& s) {
  std::map<std::pair<std::string, TimingMethod>, std::size_t> lines;
  for (const HistoryPoint& p : s.points) {
    if (p.result != nullptr) lines.emplace(std::make_pair(p.board.key, p.method), lines.size());
  }
  return lines;
}

const char* line_color(std::size_t line) {
  return kLineColors[line % (sizeof kLineColors / sizeof kLineColors[0])];
}

// Segments of a series to draw as one polyline each: runs of drawn points of one line, cut where
// the line breaks.
std::vector<std::vector<std::size_t>> segments_of(const HistorySeries& s) {
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    if (p.result == nullptr) continue;
    if (out.empty() || !p.line_break.empty()) out.emplace_back();
    if (drawn(p)) out.back().push_back(i);
  }
  return out;
}

std::string sparkline(const History& history, const HistorySeries& s) {
  constexpr double kW = 180;
  constexpr double kH = 30;
  const Scale sc = scale_of(s, 3, kH - 3);
  const double n = static_cast<double>(std::max<std::size_t>(s.points.size(), 1));
  const auto x = [&](std::size_t i) { return 3 + (static_cast<double>(i) + 0.5) * (kW - 6) / n; };
  const auto lines = lines_of(s);
  std::string out = "<svg class=\"spark\" width=\"" + px(kW) + "\" height=\"" + px(kH) +
                    "\" viewBox=\"0 0 " + px(kW) + " " + px(kH) +
                    "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><title>median over " +
                    count(s.points.size(), "point", "points") + "</title>";
  for (const std::vector<std::size_t>& seg : segments_of(s)) {
    if (seg.empty()) continue;
    const HistoryPoint& first = s.points[seg.front()];
    const std::size_t line = lines.at({first.board.key, first.method});
    std::string pts;
    for (const std::size_t i : seg) {
      pts += px(x(i)) + "," + px(sc.y(s.points[i].result->summary.device_busy.median_ns)) + " ";
    }
    if (seg.size() == 1) {
      out += "<circle cx=\"" + px(x(seg.front())) + "\" cy=\"" +
             px(sc.y(first.result->summary.device_busy.median_ns)) + "\" r=\"1.5\" fill=\"" +
             line_color(line) + "\"/>";
    } else {
      out += "<polyline fill=\"none\" stroke-width=\"1.3\" stroke=\"" +
             std::string(line_color(line)) + "\" points=\"" + pts + "\"/>";
    }
  }
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    if (p.movement == Movement::none || !drawn(p)) continue;
    // Moves of the code only: a repeat's (two records of one commit) is on the series' page.
    if (history.records[s.points[*p.previous].record].commit == history.records[p.record].commit) {
      continue;
    }
    out += "<circle cx=\"" + px(x(i)) + "\" cy=\"" +
           px(sc.y(p.result->summary.device_busy.median_ns)) + "\" r=\"2.6\" fill=\"" +
           (p.movement == Movement::slower ? kSlowerColor : kFasterColor) + "\"/>";
  }
  return out + "</svg>";
}

std::string chart(const History& history, const HistorySeries& s) {
  constexpr double kW = 960;
  constexpr double kH = 340;
  constexpr double kLeft = 86;
  constexpr double kRight = 16;
  constexpr double kTop = 16;
  constexpr double kBottom = 70;
  const Scale sc = scale_of(s, kTop, kH - kBottom);
  const double n = static_cast<double>(std::max<std::size_t>(s.points.size(), 1));
  const double plot_w = kW - kLeft - kRight;
  const auto x = [&](std::size_t i) { return kLeft + (static_cast<double>(i) + 0.5) * plot_w / n; };
  const auto lines = lines_of(s);
  std::string out = "<svg class=\"chart\" id=\"chart\" width=\"" + px(kW) + "\" height=\"" +
                    px(kH) + "\" viewBox=\"0 0 " + px(kW) + " " + px(kH) +
                    "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\" "
                    "font-family=\"system-ui, sans-serif\" font-size=\"11\">"
                    "<title>median and 10th to 90th percentile of each point, by commit</title>";
  // The time axis: five ticks, evenly spaced on the log scale.
  for (int k = 0; k <= 4; ++k) {
    const double t = sc.lo * std::pow(sc.hi / sc.lo, k / 4.0);
    const double y = sc.y(t);
    out += "<line x1=\"" + px(kLeft) + "\" x2=\"" + px(kW - kRight) + "\" y1=\"" + px(y) +
           "\" y2=\"" + px(y) + "\" stroke=\"#e3e7ec\"/>";
    out += "<text x=\"" + px(kLeft - 6) + "\" y=\"" + px(y + 4) + "\" text-anchor=\"end\">" +
           h(time_text(t)) + "</text>";
  }
  out += "<line x1=\"" + px(kLeft) + "\" x2=\"" + px(kLeft) + "\" y1=\"" + px(kTop) + "\" y2=\"" +
         px(kH - kBottom) + "\" stroke=\"#8d96a0\"/>";
  // Commits along the bottom: where each begins in this series, at most about 24 labels.
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const std::size_t c = history.records[s.points[i].record].commit;
    if (i == 0 || history.records[s.points[i - 1].record].commit != c) starts.push_back(i);
  }
  const std::size_t every = std::max<std::size_t>(1, (starts.size() + 23) / 24);
  for (std::size_t k = 0; k < starts.size(); k += every) {
    const std::size_t i = starts[k];
    const double cx = x(i);
    const std::string& commit = history.commits[history.records[s.points[i].record].commit].commit;
    out += "<line x1=\"" + px(cx) + "\" x2=\"" + px(cx) + "\" y1=\"" + px(kH - kBottom) +
           "\" y2=\"" + px(kH - kBottom + 4) + "\" stroke=\"#8d96a0\"/>";
    out += "<text transform=\"translate(" + px(cx + 3) + "," + px(kH - kBottom + 8) +
           ") rotate(45)\">" + h(commit_text(commit)) + "</text>";
  }
  // Line breaks: a dashed rule before the point where the line changes.
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    if (p.line_break.empty()) continue;
    const double bx = x(i) - plot_w / n / 2;
    out += "<line class=\"line-break\" x1=\"" + px(bx) + "\" x2=\"" + px(bx) + "\" y1=\"" +
           px(kTop) + "\" y2=\"" + px(kH - kBottom) +
           "\" stroke=\"#8a5a00\" stroke-dasharray=\"4 3\"><title>" + h(p.line_break) +
           "</title></line>";
    out +=
        "<text x=\"" + px(bx + 3) + "\" y=\"" + px(kTop + 10) + "\" fill=\"#8a5a00\">break</text>";
  }
  // Spreads, medians joined within each segment, then the points and their moves.
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    if (!drawn(p)) continue;
    const Spread& d = p.result->summary.device_busy;
    out += "<line x1=\"" + px(x(i)) + "\" x2=\"" + px(x(i)) + "\" y1=\"" + px(sc.y(d.p10_ns)) +
           "\" y2=\"" + px(sc.y(d.p90_ns)) + "\" stroke=\"" +
           line_color(lines.at({p.board.key, p.method})) +
           "\" stroke-opacity=\"0.35\" stroke-width=\"3\"/>";
  }
  for (const std::vector<std::size_t>& seg : segments_of(s)) {
    if (seg.size() < 2) continue;
    const HistoryPoint& first = s.points[seg.front()];
    std::string pts;
    for (const std::size_t i : seg) {
      pts += px(x(i)) + "," + px(sc.y(s.points[i].result->summary.device_busy.median_ns)) + " ";
    }
    out += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" +
           std::string(line_color(lines.at({first.board.key, first.method}))) + "\" points=\"" +
           pts + "\"/>";
  }
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    const std::string id = "p" + std::to_string(i + 1);
    const std::string& commit = history.commits[history.records[p.record].commit].commit;
    if (!drawn(p)) {
      // A row with no time here: a cross on the axis, linked to why.
      const double cx = x(i);
      const double cy = kH - kBottom - 6;
      out += "<a href=\"#" + id + "\"><path d=\"M" + px(cx - 4) + " " + px(cy - 4) + "L" +
             px(cx + 4) + " " + px(cy + 4) + "M" + px(cx - 4) + " " + px(cy + 4) + "L" +
             px(cx + 4) + " " + px(cy - 4) + "\" stroke=\"#6b7480\" stroke-width=\"1.5\"><title>#" +
             std::to_string(i + 1) + " " + h(commit_text(commit)) + ": no time</title></path></a>";
      continue;
    }
    const double cx = x(i);
    const double cy = sc.y(p.result->summary.device_busy.median_ns);
    const std::string tip = "#" + std::to_string(i + 1) + " " + commit_text(commit) + ": median " +
                            time_text(p.result->summary.device_busy.median_ns);
    const char* color = line_color(lines.at({p.board.key, p.method}));
    // A move within one commit (a repeat) is drawn hollow: shown, not a move of the code.
    const bool repeat = p.previous && history.records[s.points[*p.previous].record].commit ==
                                          history.records[p.record].commit;
    const auto fill = [&](const char* c) {
      return repeat ? std::string("fill=\"none\" stroke-width=\"1.5\" stroke=\"") + c + "\""
                    : std::string("fill=\"") + c + "\"";
    };
    std::string mark;
    if (p.movement == Movement::slower) {
      mark = "<path class=\"mark-slower\" d=\"M" + px(cx) + " " + px(cy - 7) + "L" + px(cx + 6) +
             " " + px(cy + 4) + "L" + px(cx - 6) + " " + px(cy + 4) + "Z\" " + fill(kSlowerColor) +
             ">";
    } else if (p.movement == Movement::faster) {
      mark = "<path class=\"mark-faster\" d=\"M" + px(cx) + " " + px(cy + 7) + "L" + px(cx + 6) +
             " " + px(cy - 4) + "L" + px(cx - 6) + " " + px(cy - 4) + "Z\" " + fill(kFasterColor) +
             ">";
    } else {
      mark = "<circle cx=\"" + px(cx) + "\" cy=\"" + px(cy) + "\" r=\"3\" fill=\"" + color + "\">";
    }
    const std::string close = p.movement == Movement::none ? "</circle>" : "</path>";
    out += "<a href=\"#" + id + "\">" + mark + "<title>" + h(tip) + "</title>" + close + "</a>";
  }
  return out + "</svg>\n";
}

std::string row_names(const RowKey& row) {
  return row.implementation.empty() ? "(every implementation)" : row.implementation;
}

std::string move_words(const HistoryPoint& p) {
  return regression_words(*p.comparison);
}

// A move's row of regressions.html and its entry of regressions.json, from the same strings.
struct MoveView {
  std::string row;
  std::string from_commit;
  std::string to_commit;
  std::string from_run;
  std::string to_run;
  std::string change;
  std::string board;
  std::string timing;
  std::string page;
  std::string anchor;
};

MoveView move_view(const History& history, const std::vector<std::string>& pages,
                   const HistoryMove& m) {
  const HistorySeries& s = history.series[m.series];
  const HistoryPoint& p = s.points[m.point];
  const HistoryPoint& before = s.points[*p.previous];
  const HistoryRecord& now = history.records[p.record];
  const HistoryRecord& then = history.records[before.record];
  MoveView v;
  v.row = row_label(s.row);
  v.from_commit = history.commits[then.commit].commit;
  v.to_commit = history.commits[now.commit].commit;
  v.from_run = then.record->run_id;
  v.to_run = now.record->run_id;
  v.change = move_words(p);
  v.board = p.board.label;
  v.timing = std::string(to_string(p.method));
  v.page = pages[m.series];
  v.anchor = "p" + std::to_string(m.point + 1);
  return v;
}

std::string moves_table(const History& history, const std::vector<std::string>& pages,
                        const std::vector<HistoryMove>& moves, const char* kind) {
  if (moves.empty()) return "<p class=\"note\" id=\"no-" + std::string(kind) + "\">None.</p>\n";
  std::string out = "<table id=\"" + std::string(kind) +
                    "\">\n<thead><tr><th>#</th><th>row</th><th>from commit</th><th>to commit</th>"
                    "<th>change</th><th>board</th><th>timing</th><th>runs</th></tr></thead>\n"
                    "<tbody>\n";
  std::size_t k = 0;
  for (const HistoryMove& m : moves) {
    const MoveView v = move_view(history, pages, m);
    const std::string cls =
        history.series[m.series].points[m.point].movement == Movement::slower ? "slower" : "faster";
    ++k;
    out += "<tr class=\"" + cls + "\" id=\"" + std::string(kind) + "-" + std::to_string(k) +
           "\"><td class=\"num\">" + std::to_string(k) + "</td><td class=\"row\"><a href=\"" +
           v.page + "#" + v.anchor + "\">" + h(v.row) + "</a></td><td class=\"from\"><code>" +
           h(v.from_commit) + "</code></td><td class=\"to\"><code>" + h(v.to_commit) +
           "</code></td><td class=\"move\">" + h(v.change) + "</td><td class=\"board\">" +
           h(v.board) + "</td><td class=\"timing\">" + h(v.timing) + "</td><td class=\"runs\">" +
           h(v.from_run) + " &#8594; " + h(v.to_run) + "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

// A move as a GitHub Actions workflow command: `level` "error" for a regression, "notice" for an
// improvement. Escaped by the core's rule for annotations, so a row's name cannot end the line and
// start a command of its own ("dot\n::error title=forged::all benchmarks passed").
std::string github_annotation(const std::string& level, const MoveView& v) {
  return "::" + level +
         " title=" + ci_annotation_text("gpumeter history: " + v.row, CiAnnotationPart::property) +
         "::" +
         ci_annotation_text(v.row + ": " + v.change + " (" + v.from_commit + " to " + v.to_commit +
                            ")");
}

nlohmann::ordered_json move_json(const History& history, const std::vector<std::string>& pages,
                                 const HistoryMove& m, const std::string& level) {
  const HistorySeries& s = history.series[m.series];
  const HistoryPoint& p = s.points[m.point];
  const Comparison& c = *p.comparison;
  const MoveView v = move_view(history, pages, m);
  nlohmann::ordered_json j;
  j["row"] = v.row;
  j["case"] = s.row.case_name;
  j["params"] = s.row.params;
  j["implementation"] = s.row.implementation;
  j["from_commit"] = v.from_commit;
  j["to_commit"] = v.to_commit;
  j["from_run_id"] = v.from_run;
  j["to_run_id"] = v.to_run;
  j["change"] = v.change;
  j["statistic"] = std::string(to_string(c.statistic));
  j["rule"] = to_string(c.rule);
  // The numbers behind the words: new / previous - 1 with its interval (device time), or the
  // medians' ratio new / previous (the host-clock rule, wall clock).
  if (c.difference) {
    j["estimate"] = c.difference->estimate;
    j["low"] = c.difference->low;
    j["high"] = c.difference->high;
  } else {
    j["estimate"] = nullptr;
    j["low"] = nullptr;
    j["high"] = nullptr;
  }
  j["time_ratio"] = c.ratio        ? nlohmann::ordered_json(1 / c.ratio->speedup)
                    : c.difference ? nlohmann::ordered_json(1 + c.difference->estimate)
                                   : nlohmann::ordered_json(nullptr);
  j["board"] = v.board;
  j["timing_method"] = v.timing;
  j["page"] = v.page + "#" + v.anchor;
  j["github_annotation"] = github_annotation(level, v);
  return j;
}

std::string json_text(const nlohmann::ordered_json& j) {
  // Record text is valid UTF-8 (the reader refuses any other); replace, never throw, regardless.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string regressions_json(const History& history, const std::vector<std::string>& pages) {
  nlohmann::ordered_json j;
  j["schema"] = kHistoryJsonSchema;
  j["schema_version"] = kHistoryJsonVersion;
  j["gpumeter_version"] = version();
  j["records"] = history.records.size();
  j["commits"] = nlohmann::ordered_json::array();
  for (const HistoryCommit& c : history.commits) j["commits"].push_back(c.commit);
  j["regressions"] = nlohmann::ordered_json::array();
  for (const HistoryMove& m : history.regressions) {
    j["regressions"].push_back(move_json(history, pages, m, "error"));
  }
  j["improvements"] = nlohmann::ordered_json::array();
  for (const HistoryMove& m : history.improvements) {
    j["improvements"].push_back(move_json(history, pages, m, "notice"));
  }
  j["left_out"] = nlohmann::ordered_json::array();
  for (const LeftOut& l : history.left_out) {
    j["left_out"].push_back({{"source", l.source}, {"reason", l.reason}});
  }
  return json_text(j);
}

std::string left_out_section(const History& history) {
  std::string out = "<h2 id=\"left-out\">Records left out</h2>\n";
  if (history.left_out.empty()) {
    return out + "<p class=\"note\">None: every record found was read and placed.</p>\n";
  }
  out +=
      "<p class=\"note\">A file that did not read as a record (the strict reader refused it) "
      "or a record that could not be placed among commits. Nothing of it is drawn.</p>\n"
      "<table id=\"left-out-table\"><thead><tr><th>file</th><th>why</th></tr></thead><tbody>\n";
  for (const LeftOut& l : history.left_out) {
    out += "<tr><td><code>" + h(l.source) + "</code></td><td>" + h(l.reason) + "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string index_page(const History& history, const std::vector<std::string>& pages) {
  std::string body = "<h1>Performance history</h1>\n";
  std::string span;
  if (!history.commits.empty()) {
    span = ", from <code>" + h(commit_text(history.commits.front().commit)) + "</code> to <code>" +
           h(commit_text(history.commits.back().commit)) + "</code>";
  }
  body += "<p id=\"summary\">" + count(history.records.size(), "record", "records") + " over " +
          count(history.commits.size(), "commit", "commits") + span + "; " +
          count(history.series.size(), "series", "series") + ". <a href=\"regressions.html\">" +
          count(history.regressions.size(), "regression", "regressions") + "</a> and " +
          count(history.improvements.size(), "improvement", "improvements") + " between commits; " +
          count(history.left_out.size(), "file", "files") + " left out.</p>\n";
  body += rule_note(history);
  body +=
      "<h2>Series</h2>\n<table id=\"series\">\n<thead><tr><th>case</th><th>params</th>"
      "<th>implementation</th><th>history</th><th>latest median</th><th>points</th>"
      "<th>moves</th><th>lines</th></tr></thead>\n<tbody>\n";
  for (std::size_t si = 0; si < history.series.size(); ++si) {
    const HistorySeries& s = history.series[si];
    std::size_t slower = 0;
    std::size_t faster = 0;
    std::optional<double> latest;
    std::size_t measured = 0;
    for (const HistoryPoint& p : s.points) {
      const bool across = p.previous && history.records[s.points[*p.previous].record].commit !=
                                            history.records[p.record].commit;
      slower += across && p.movement == Movement::slower ? 1 : 0;
      faster += across && p.movement == Movement::faster ? 1 : 0;
      if (drawn(p)) latest = p.result->summary.device_busy.median_ns;
      measured += drawn(p) ? 1 : 0;
    }
    std::string moves;
    if (slower > 0) moves += "<span class=\"slower\">" + std::to_string(slower) + " slower</span>";
    if (faster > 0) {
      moves += std::string(moves.empty() ? "" : ", ") + "<span class=\"faster\">" +
               std::to_string(faster) + " faster</span>";
    }
    body += "<tr id=\"s" + std::to_string(si + 1) + "\"><td><a class=\"series-link\" href=\"" +
            pages[si] + "\">" + h(s.row.case_name) + "</a></td><td>" +
            h(format_params(s.row.params)) + "</td><td>" + h(row_names(s.row)) + "</td><td>" +
            sparkline(history, s) + "</td><td class=\"num\">" +
            (latest ? time_cell(*latest) : std::string(kNotMeasured)) + "</td><td class=\"num\">" +
            std::to_string(measured) + " of " + std::to_string(s.points.size()) + "</td><td>" +
            (moves.empty() ? "none" : moves) + "</td><td class=\"num\">" +
            std::to_string(lines_of(s).size()) + "</td></tr>\n";
  }
  body += "</tbody></table>\n";
  body +=
      "<h2>Commits</h2>\n<table id=\"commits\"><thead><tr><th>#</th><th>commit</th>"
      "<th>records</th></tr></thead><tbody>\n";
  for (std::size_t c = 0; c < history.commits.size(); ++c) {
    body += "<tr><td class=\"num\">" + std::to_string(c + 1) + "</td><td><code>" +
            h(history.commits[c].commit) + "</code></td><td class=\"num\">" +
            std::to_string(history.commits[c].records) + "</td></tr>\n";
  }
  body += "</tbody></table>\n";
  body += left_out_section(history);
  return page("Performance history", body, history.records.size());
}

std::string series_page(const History& history, std::size_t si) {
  const HistorySeries& s = history.series[si];
  std::string body = "<h1>" + h(row_label(s.row)) + "</h1>\n";
  body += "<p class=\"note\">case <code>" + h(s.row.case_name) + "</code>, params <code>" +
          h(s.row.params.empty() ? "none" : format_params(s.row.params)) +
          "</code>, implementation <code>" + h(row_names(s.row)) + "</code>.</p>\n";
  body += rule_note(history);
  body += chart(history, s);
  body +=
      "<p class=\"note\">Each point: its median (a dot; a red triangle where it is slower than "
      "the previous point of its line, a green one where faster; hollow where both are of one "
      "commit) and a bar from its 10th to its "
      "90th percentile; a cross on the axis where the row has no time. Time on a log "
      "scale. Select a point for its row below.</p>\n";

  // Lines, and where the series breaks.
  const auto lines = lines_of(s);
  body += "<h2>Lines</h2>\n<ul id=\"lines\">\n";
  std::vector<std::pair<std::size_t, std::pair<std::string, TimingMethod>>> ordered;
  for (const auto& [key, index] : lines) ordered.push_back({index, key});
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [index, key] : ordered) {
    std::string label;
    std::size_t n = 0;
    for (const HistoryPoint& p : s.points) {
      if (p.result != nullptr && p.board.key == key.first && p.method == key.second) {
        label = p.board.label;
        ++n;
      }
    }
    body +=
        "<li><svg width=\"14\" height=\"10\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">"
        "<rect width=\"14\" height=\"10\" fill=\"" +
        std::string(line_color(index)) + "\"/></svg> " + h(label) + ", " +
        h(std::string(to_string(key.second))) + " (" +
        h(std::string(to_string(statistic_of(key.second)))) + "): " + count(n, "point", "points") +
        "</li>\n";
  }
  body += "</ul>\n";
  std::string breaks;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    if (p.line_break.empty()) continue;
    breaks += "<li class=\"break-note\"><a href=\"#p" + std::to_string(i + 1) + "\">#" +
              std::to_string(i + 1) + "</a>, commit <code>" +
              h(commit_text(history.commits[history.records[p.record].commit].commit)) +
              "</code>: the line breaks: " + h(p.line_break) +
              ". Points on either side are not compared.</li>\n";
  }
  if (!breaks.empty()) body += "<ul id=\"breaks\">\n" + breaks + "</ul>\n";

  // The moves between commits on this series.
  std::string moves;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    if (p.movement == Movement::none) continue;
    const HistoryPoint& before = s.points[*p.previous];
    const std::size_t from = history.records[before.record].commit;
    const std::size_t to = history.records[p.record].commit;
    const std::string cls(to_string(p.movement));
    moves += "<li class=\"" + cls + "\"><a href=\"#p" + std::to_string(i + 1) + "\">#" +
             std::to_string(i + 1) + "</a>: " + h(move_words(p)) + ", from commit <code>" +
             h(commit_text(history.commits[from].commit)) + "</code> to <code>" +
             h(commit_text(history.commits[to].commit)) + "</code>" +
             (from == to ? " (the same commit: a repeat, not listed as a move of the code)" : "") +
             "</li>\n";
  }
  body += "<h2>Moves</h2>\n";
  body += moves.empty() ? "<p class=\"note\">No comparison found this row faster or slower.</p>\n"
                        : "<ul id=\"moves\">\n" + moves + "</ul>\n";

  // Every point.
  body +=
      "<h2>Points</h2>\n<table id=\"points\">\n<thead><tr><th>#</th><th>commit</th>"
      "<th>run</th><th>median</th><th>10th to 90th percentile</th><th>samples</th>"
      "<th>against</th><th>change</th><th>finding</th><th>board, timing and clocks</th></tr>"
      "</thead>\n<tbody>\n";
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const HistoryPoint& p = s.points[i];
    const HistoryRecord& rec = history.records[p.record];
    const Record& record = *rec.record;
    std::string cls;
    if (p.movement != Movement::none) cls = std::string(to_string(p.movement));
    if (!p.line_break.empty()) cls += cls.empty() ? "break" : " break";
    if (!drawn(p)) cls += cls.empty() ? "failed" : " failed";
    // The run: its id, when, and the file it was read from (its name; the whole path on hover).
    std::string run = "<code>" + h(record.run_id) + "</code><br>" + h(record.created_utc) +
                      (rec.partial ? " (partial record)" : "");
    const std::string file = file_name(rec.source);
    // A record's usual name says nothing its run id does not; any other is shown.
    const bool usual = file == "gpumeter-" + record.run_id + ".json";
    run += "<br><span class=\"file\" title=\"" + h(rec.source) + "\">" +
           (usual ? std::string("(file)") : h(file)) + "</span>";
    for (const std::string& other : p.also_in) {
      run += "<br><span class=\"note\" title=\"" + h(other) +
             "\">the same measurement is also in " + h(file_name(other)) + "</span>";
    }
    body += "<tr id=\"p" + std::to_string(i + 1) + "\"" +
            (cls.empty() ? std::string() : " class=\"" + cls + "\"") + "><td class=\"num\">" +
            std::to_string(i + 1) + "</td><td class=\"commit\"><code>" +
            h(commit_text(history.commits[rec.commit].commit)) + "</code></td><td>" + run + "</td>";
    std::string where;
    if (p.result != nullptr) {
      where = h(p.board.label) + "; " + h(std::string(to_string(p.method))) + "; " +
              h(clock_words(p, record));
    }
    if (!p.line_break.empty()) {
      where +=
          "<br><span class=\"break-note\">the line breaks here: " + h(p.line_break) + "</span>";
    }
    if (p.result == nullptr) {
      body += "<td colspan=\"7\">" + h(describe(*p.failure)) + "</td>";
    } else if (!drawn(p)) {
      body += "<td colspan=\"6\">" + h(null_test_failed_words(*p.result->null_test_outcome)) +
              "</td><td>" + where + "</td>";
    } else {
      const Summary& sm = p.result->summary;
      std::string against = "none (the first point of its line)";
      std::string change;
      std::string finding;
      if (p.previous) {
        against = "<a href=\"#p" + std::to_string(*p.previous + 1) + "\">#" +
                  std::to_string(*p.previous + 1) + "</a>";
        const CompareRowWords w = compare_row_words(*p.comparison);
        change = h(w.change);
        finding = h(w.finding);
      }
      body += "<td class=\"num\">" + time_cell(sm.device_busy.median_ns) +
              "</td><td class=\"num\">" + time_cell(sm.device_busy.p10_ns) + " to " +
              time_cell(sm.device_busy.p90_ns) + "</td><td class=\"num\">" +
              std::to_string(sm.n_samples) + " in " +
              count(p.result->measurement.pass_sizes.size(), "pass", "passes") + "</td><td>" +
              against + "</td><td class=\"num move\">" + change + "</td><td class=\"move\">" +
              finding + "</td><td>" + where + "</td>";
    }
    body += "</tr>\n";
  }
  body += "</tbody></table>\n";
  return page(row_label(s.row) + " - performance history", body, history.records.size());
}

std::string regressions_page(const History& history, const std::vector<std::string>& pages) {
  std::string body = "<h1>Regressions</h1>\n";
  body += "<p id=\"summary\">" + count(history.regressions.size(), "regression", "regressions") +
          " and " + count(history.improvements.size(), "improvement", "improvements") +
          " between commits, over " + count(history.records.size(), "record", "records") +
          ". The same list for CI: <a href=\"regressions.json\">regressions.json</a>.</p>\n";
  body += rule_note(history);
  body += "<h2>Slower</h2>\n" + moves_table(history, pages, history.regressions, "regressions");
  body += "<h2>Faster</h2>\n" + moves_table(history, pages, history.improvements, "improvements");
  body += left_out_section(history);
  return page("Regressions - performance history", body, history.records.size());
}

// A page name from a row: its names' letters and digits, lower case, runs of anything else as one
// '-', at most 60 of them.
std::string slug(const RowKey& row) {
  std::string text = row.case_name;
  for (const auto& [k, v] : row.params) text += "-" + k + "-" + v;
  text += "-" + row.implementation;
  std::string out;
  for (const char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    const bool upper = c >= 'A' && c <= 'Z';
    if (keep || upper) {
      out += upper ? static_cast<char>(c - 'A' + 'a') : c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
    if (out.size() >= 60) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "row" : out;
}

}  // namespace

std::vector<std::string> series_page_names(const History& history) {
  std::vector<std::string> names;
  std::set<std::string> used;
  for (const HistorySeries& s : history.series) {
    // The whole row, unambiguously (its label quotes what would read two ways).
    const std::string base = "series-" + slug(s.row) + "-" +
                             hex(fnv(row_label(s.row) + "\n" + s.row.implementation), 12);
    std::string name = base + ".html";
    for (int k = 2; !used.insert(name).second; ++k) name = base + "-" + std::to_string(k) + ".html";
    names.push_back(name);
  }
  return names;
}

std::vector<SiteFile> render_history_site(const History& history) {
  const std::vector<std::string> pages = series_page_names(history);
  std::vector<SiteFile> files;
  files.push_back({"style.css", kStyle});
  files.push_back({"index.html", index_page(history, pages)});
  files.push_back({"regressions.html", regressions_page(history, pages)});
  files.push_back({"regressions.json", regressions_json(history, pages)});
  for (std::size_t i = 0; i < history.series.size(); ++i) {
    files.push_back({pages[i], series_page(history, i)});
  }
  return files;
}

}  // namespace gpumeter
