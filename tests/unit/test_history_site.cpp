// The history's site (render_history_site) on synthetic records: record text is shown, never
// obeyed; every page forbids scripts; the regression list and its JSON say the same; page names
// hold no record text; the same history gives the same bytes.
#include "gpumeter/history_site.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/host_clock.hpp"
#include "history_records.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using testing::history_record;
using testing::history_row;

const std::string kHostile =
    "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>&amp;\x1b[31m";

std::map<std::string, std::string> site_of(const History& h) {
  std::map<std::string, std::string> files;
  for (const SiteFile& f : render_history_site(h)) {
    EXPECT_TRUE(files.emplace(f.name, f.content).second) << f.name;
  }
  return files;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct Fixture {
  std::vector<Record> records;
  History history;
};

// Three commits of a hostile-named row and a plain one; the hostile row 10% slower at the third.
Fixture hostile_history() {
  Fixture f;
  Result a1 = history_row(kHostile, 10000, {}, 1, 0.002, kHostile);
  a1.row.params = {{kHostile, kHostile}};
  Result a2 = history_row(kHostile, 10000, {}, 2, 0.002, kHostile);
  a2.row.params = a1.row.params;
  Result a3 = history_row(kHostile, 11000, {}, 3, 0.002, kHostile);
  a3.row.params = a1.row.params;
  f.records = {
      history_record("r1", kHostile, "2026-12-01T00:00:00Z",
                     {a1, history_row("plain", 5000, {}, 1)}, kHostile),
      history_record("r2", "bbb", "2026-12-02T00:00:00Z", {a2, history_row("plain", 5000, {}, 2)},
                     kHostile),
      history_record("r3", "ccc", "2026-12-03T00:00:00Z", {a3, history_row("plain", 5000, {}, 3)},
                     kHostile, {{{kHostile, {}, kHostile}, kHostile, kHostile}}),
  };
  for (Record& r : f.records) r.device.name = kHostile;
  std::vector<HistoryInput> in;
  for (const Record& r : f.records) in.push_back({&r, "dir/" + kHostile + r.run_id});
  f.history = build_history(in);
  f.history.left_out.push_back({kHostile, kHostile});
  return f;
}

TEST(HtmlText, MarkupAndControlsAreShownNotObeyed) {
  EXPECT_EQ(html_text("<b>\"x\" & 'y'</b>"), "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;");
  EXPECT_EQ(html_text("a\nb\x1b"), "a\\x0ab\\x1b");
  EXPECT_EQ(html_text("plain_name-1.0 µs"), "plain_name-1.0 µs");
  EXPECT_EQ(html_text("&lt;"), "&amp;lt;");  // an entity in a record is text, shown as written
}

TEST(HistorySite, RecordTextOpensNoTagAttributeOrScript) {
  const Fixture f = hostile_history();
  ASSERT_EQ(f.history.regressions.size(), 1u);
  for (const auto& [name, content] : site_of(f.history)) {
    if (name == "regressions.json" || name == "style.css") continue;
    const std::string text = lower(content);
    EXPECT_EQ(text.find("<script"), std::string::npos) << name;
    EXPECT_EQ(text.find("<img"), std::string::npos) << name;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << name;
    // The hostile text is there, escaped, wherever a page names it.
    EXPECT_NE(content.find(html_text(kHostile)), std::string::npos) << name;
  }
}

TEST(HistorySite, EveryPageForbidsScriptsAndLinksOnlyWithinTheSite) {
  const Fixture f = hostile_history();
  const auto files = site_of(f.history);
  for (const auto& [name, content] : files) {
    if (name.size() < 5 || name.substr(name.size() - 5) != ".html") continue;
    EXPECT_NE(content.find("Content-Security-Policy\" content=\"default-src 'none'"),
              std::string::npos)
        << name;
    EXPECT_NE(content.find("script-src 'none'"), std::string::npos) << name;
    // Every link is to a file of the site, or an anchor.
    for (std::size_t at = content.find("href=\""); at != std::string::npos;
         at = content.find("href=\"", at + 1)) {
      const std::size_t end = content.find('"', at + 6);
      std::string target = content.substr(at + 6, end - at - 6);
      target = target.substr(0, target.find('#'));
      if (target.empty()) continue;
      EXPECT_EQ(files.count(target), 1u) << name << " links to " << target;
    }
  }
}

TEST(HistorySite, TheRegressionListAndItsJsonSayTheSame) {
  const Fixture f = hostile_history();
  const auto files = site_of(f.history);
  const nlohmann::json j = nlohmann::json::parse(files.at("regressions.json"));
  EXPECT_EQ(j["schema"], kHistoryJsonSchema);
  EXPECT_EQ(j["schema_version"], kHistoryJsonVersion);
  ASSERT_EQ(j["regressions"].size(), 1u);
  const nlohmann::json& r = j["regressions"][0];
  EXPECT_EQ(r["case"], kHostile);
  EXPECT_EQ(r["implementation"], kHostile);
  EXPECT_EQ(r["from_commit"], "bbb");
  EXPECT_EQ(r["to_commit"], "ccc");
  EXPECT_EQ(r["from_run_id"], "r2");
  EXPECT_EQ(r["to_run_id"], "r3");
  EXPECT_NEAR(r["estimate"].get<double>(), 0.10, 0.005);
  EXPECT_GT(r["low"].get<double>(), 0);
  EXPECT_NEAR(r["time_ratio"].get<double>(), 1.10, 0.005);
  const std::string html = files.at("regressions.html");
  // The row's change and commits, as the page shows them.
  EXPECT_NE(html.find("<td class=\"move\">" + html_text(r["change"].get<std::string>()) + "</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"to\"><code>ccc</code></td>"), std::string::npos);
  const std::string page = r["page"].get<std::string>();
  EXPECT_EQ(files.count(page.substr(0, page.find('#'))), 1u);
  EXPECT_NE(html.find("href=\"" + page + "\""), std::string::npos);
  EXPECT_EQ(j["left_out"].size(), 1u);
  EXPECT_EQ(j["left_out"][0]["reason"], kHostile);
}

// The docs' CI recipe printed row names through jq -r, so a case named with a newline and a
// workflow command printed a command of its own. The JSON carries the move as an annotation,
// escaped by the core's rule: one line, and no command but its own.
TEST(HistorySite, EachMoveCarriesItsCiAnnotationEscaped) {
  const std::string forged = "dot\n::error title=forged::all benchmarks passed";
  std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z",
                     {history_row("unrolled4", 10000, {}, 1, 0.002, forged)}),
      history_record("r2", "bbb", "2026-12-02T00:00:00Z",
                     {history_row("unrolled4", 20000, {}, 2, 0.002, forged)}),
      history_record("r3", "ccc", "2026-12-03T00:00:00Z",
                     {history_row("unrolled4", 10000, {}, 3, 0.002, forged)}),
  };
  std::vector<HistoryInput> in;
  for (const Record& r : records) in.push_back({&r, r.run_id});
  const nlohmann::json j = nlohmann::json::parse(site_of(build_history(in)).at("regressions.json"));
  ASSERT_EQ(j["regressions"].size(), 1u);
  ASSERT_EQ(j["improvements"].size(), 1u);
  const std::string error = j["regressions"][0]["github_annotation"];
  const std::string notice = j["improvements"][0]["github_annotation"];
  // One line each: the runner obeys a command only at a line's start, so the forged words stay
  // words inside this annotation's own message.
  for (const std::string& a : {error, notice}) {
    EXPECT_EQ(a.find_first_of("\r\n"), std::string::npos) << a;
  }
  EXPECT_EQ(
      error.rfind("::error title=gpumeter history%3A dot\\x0a%3A%3Aerror title=forged%3A%3Aall "
                  "benchmarks passed / unrolled4 (n=1024)::dot\\x0a::error title=forged::all "
                  "benchmarks passed / unrolled4 (n=1024): 2.00x slower",
                  0),
      0u)
      << error;
  EXPECT_EQ(notice.rfind("::notice title=", 0), 0u) << notice;
  EXPECT_EQ(ci_annotation_text("100% a,b:c", CiAnnotationPart::property), "100%25 a%2Cb%3Ac");
  EXPECT_EQ(ci_annotation_text("100% a,b:c\r\n"), "100%25 a,b:c\\x0d\\x0a");
}

TEST(HistorySite, PageNamesHoldNoRecordTextAndNeverCollide) {
  Fixture f;
  // Rows whose names differ only in what a page name cannot hold.
  f.records = {history_record("r1", "aaa", "2026-12-01T00:00:00Z",
                              {history_row("a<b", 1000, {}, 1), history_row("a>b", 1000, {}, 1),
                               history_row("A b", 1000, {}, 1), history_row(kHostile, 1000, {}, 1),
                               history_row("../../etc/passwd", 1000, {}, 1)})};
  f.history = build_history({{&f.records[0], "r1.json"}});
  const std::vector<std::string> names = series_page_names(f.history);
  ASSERT_EQ(names.size(), 5u);
  for (const std::string& n : names) {
    EXPECT_EQ(n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-."), std::string::npos)
        << n;
    EXPECT_EQ(n.rfind("series-", 0), 0u) << n;
    EXPECT_EQ(n.find(".."), std::string::npos) << n;
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
}

// Issue 51: every page said "95% interval" where records since schema 9 use 99%.
TEST(HistorySite, ThePagesSayTheConfidenceOfTheRecordsSchemas) {
  Fixture f = hostile_history();
  const auto rule_of = [](const std::map<std::string, std::string>& files) {
    const std::string& index = files.at("index.html");
    const std::size_t at = index.find("relative difference with its ");
    EXPECT_NE(at, std::string::npos) << index;
    return index.substr(at, index.find(" interval,", at) - at);
  };
  EXPECT_EQ(rule_of(site_of(f.history)), "relative difference with its 99%");
  for (const char* name : {"index.html", "regressions.html"}) {
    EXPECT_EQ(site_of(f.history).at(name).find("95%"), std::string::npos) << name;
  }
  f.records[0].schema_version = kCalibratedIntervalsSince - 1;
  std::vector<HistoryInput> in;
  for (const Record& r : f.records) in.push_back({&r, r.run_id});
  EXPECT_EQ(rule_of(site_of(build_history(in))),
            "relative difference with its 99% (95% in records before schema 9)");
}

// The wall clock's floors as the comparisons across runs apply them (host_clock.hpp): 1.5x with a
// yardstick, 2x without one; the page once said 1.5x for both.
TEST(HistorySite, ThePagesSayTheWallClocksFloorsAcrossRuns) {
  // A copy: the site is a temporary, gone at the end of this line.
  const std::string index = site_of(hostile_history().history).at("index.html");
  EXPECT_NE(index.find("from " + format_shortest(kAcrossRunsYardstickRatio) +
                       "x on for a row read against its yardstick, from " +
                       format_shortest(kAcrossRunsResolutionRatio) + "x on for a row without one"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("from 2x on for a row without one"), std::string::npos) << index;
}

TEST(HistorySite, TheSameHistoryGivesTheSameBytes) {
  const Fixture a = hostile_history();
  const Fixture b = hostile_history();
  EXPECT_EQ(site_of(a.history), site_of(b.history));
}

TEST(HistorySite, ALineBreakIsSaidOnThePage) {
  Fixture f;
  f.records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 10000, {}, 1)},
                     "GPU-A"),
      history_record("r2", "bbb", "2026-12-02T00:00:00Z", {history_row("a", 20000, {}, 2)},
                     "GPU-B"),
  };
  f.history = build_history({{&f.records[0], "r1.json"}, {&f.records[1], "r2.json"}});
  const auto files = site_of(f.history);
  const std::string& page = files.at(series_page_names(f.history)[0]);
  EXPECT_NE(page.find("the line breaks: board changed from NVIDIA H200 (cuda:0, GPU-A) to NVIDIA "
                      "H200 (cuda:0, GPU-B). Points on either side are not compared."),
            std::string::npos);
  EXPECT_NE(page.find("class=\"line-break\""), std::string::npos);
  EXPECT_NE(files.at("index.html").find("0 regressions"), std::string::npos);
}

TEST(HistorySite, EachPointSaysItsBoardAndClocks) {
  Fixture f;
  Result r = history_row("a", 10000, {}, 1);
  r.summary.clock = ClockSummary{80, 1800, 1965, 1980, 3, 3, 0, 0, 0, 0, 0};
  Result host = history_row("h", 10000, TimingMethod::host_clock, 1);
  f.records = {history_record("r1", "aaa", "2026-12-01T00:00:00Z", {r, host}, "GPU-A")};
  f.records[0].device_state.sm_clock_mhz = 1755;
  f.records[0].device_state.sm_clock_max_mhz = 1980;
  f.records[0].device_state.throttle_reasons = 0x4;
  f.records[0].device_state.temperature_c = 61;
  f.history = build_history({{&f.records[0], "r1.json"}});
  const auto files = site_of(f.history);
  const std::vector<std::string> names = series_page_names(f.history);
  const std::string& gpu = files.at(names[0]);
  EXPECT_NE(
      gpu.find("NVIDIA H200 (cuda:0, GPU-A); kernel-records; SM clock median 1965 MHz (1800 to "
               "1980); 3 of 80 samples clock-flagged; at the run&#39;s start SM 1755 of 1980 "
               "MHz, " +
               html_text(describe_throttle_reasons(0x4)) + ", 61 C"),
      std::string::npos)
      << gpu;
  const std::string& wall = files.at(names[1]);
  EXPECT_NE(wall.find("host-clock; no clock readings (host-clock)"), std::string::npos);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
