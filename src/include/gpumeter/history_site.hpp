#pragma once
// A history (history.hpp) as a static site: one folder of HTML, CSS and SVG that opens from disk
// with no server, no network and no script, and the list of regressions as JSON for CI
// (docs/history.md). Every string from a record is made inert by html_text (escape.hpp), and each
// page forbids scripts outright (its Content-Security-Policy), so nothing a record holds runs.
#include <string>
#include <vector>

#include "gpumeter/history.hpp"

namespace gpumeter {

// One file of the site: its name within the site's folder, and its bytes.
struct SiteFile {
  std::string name;
  std::string content;
};

// The site's files, the same bytes for the same history (no date, no path of this machine):
//   index.html            every series with a sparkline, the commits, the records left out;
//   series-<name>.html    one per series: its chart, lines and breaks, moves, and every point;
//   regressions.html      the moves between commits, slower then faster;
//   regressions.json      the same, schema kHistoryJsonSchema;
//   style.css.
std::vector<SiteFile> render_history_site(const History& history);

inline constexpr const char* kHistoryJsonSchema = "gpumeter.history.regressions";
inline constexpr int kHistoryJsonVersion = 1;

// The page of each series of `history`, in its order ("series-sum-n-1000-loop-1a2b3c4d5e6f.html"):
// from its row's names, letters and digits only, and a hash of the whole row, so no record text
// reaches a path and a page keeps its name from one night's site to the next. Unique.
std::vector<std::string> series_page_names(const History& history);

}  // namespace gpumeter
