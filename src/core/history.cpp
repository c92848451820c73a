#include "gpumeter/history.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "gpumeter/detail/board.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {
namespace {

// The same measurement in two records (a shard's row copied into the merge of its sweep): the same
// row, pass boundaries and samples. Read twice, it would be a second point that agrees with itself.
bool same_measurement(const Result& a, const Result& b) {
  const Measurement& x = a.measurement;
  const Measurement& y = b.measurement;
  if (x.method != y.method || x.pass_sizes != y.pass_sizes ||
      x.samples.size() != y.samples.size()) {
    return false;
  }
  for (std::size_t i = 0; i < x.samples.size(); ++i) {
    if (x.samples[i].device_busy_ns != y.samples[i].device_busy_ns ||
        x.samples[i].latency_ns != y.samples[i].latency_ns) {
      return false;
    }
  }
  return true;
}

// A cheap key to find candidates for same_measurement without comparing every pair.
std::uint64_t fingerprint(const Result& r) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  const auto mix = [&h](std::uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  mix(static_cast<std::uint64_t>(r.measurement.method));
  for (const Sample& s : r.measurement.samples) {
    mix(static_cast<std::uint64_t>(s.device_busy_ns));
    mix(static_cast<std::uint64_t>(s.latency_ns));
  }
  return h;
}

std::string line_break_words(const HistoryPoint& before, const HistoryPoint& now) {
  std::string words;
  if (!(before.board == now.board)) {
    words = "board changed from " + before.board.label + " to " + now.board.label;
  }
  if (before.method != now.method) {
    if (!words.empty()) words += "; ";
    words += "timing method changed from " + std::string(to_string(before.method)) + " to " +
             std::string(to_string(now.method));
  }
  return words;
}

// Days from 1970-01-01 to year-month-day (proleptic Gregorian; Howard Hinnant's days_from_civil).
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

// Why a record's creation time cannot order it, or "".
std::string created_problem(const Record& r, const std::optional<UtcInstant>& now) {
  const std::optional<UtcInstant> created = rfc3339_instant(r.created_utc);
  if (!created) {
    return "its creation time " + quoted_text(r.created_utc, 64) +
           " is not an RFC 3339 time (2026-12-03T10:00:00Z), so its place among records is not "
           "known";
  }
  if (now && *now < *created) {
    return "its creation time " + quoted_text(r.created_utc, 64) +
           " is after this build, so its place among records is not known";
  }
  return "";
}

}  // namespace

std::optional<UtcInstant> rfc3339_instant(std::string_view t) {
  const auto digits = [&](std::size_t at, std::size_t n, int& out) {
    if (at + n > t.size()) return false;
    out = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      out = out * 10 + (t[i] - '0');
    }
    return true;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(0, 4, year) || t.size() < 20 || t[4] != '-' || !digits(5, 2, month) || t[7] != '-' ||
      !digits(8, 2, day) || (t[10] != 'T' && t[10] != 't') || !digits(11, 2, hour) ||
      t[13] != ':' || !digits(14, 2, minute) || t[16] != ':' || !digits(17, 2, second)) {
    return std::nullopt;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1] + (month == 2 && leap ? 1 : 0) ||
      hour > 23 || minute > 59 || second > 60) {  // 60: a leap second
    return std::nullopt;
  }
  std::size_t at = 19;
  long nanos = 0;
  if (t[at] == '.') {
    std::size_t n = 0;
    for (++at; at < t.size() && t[at] >= '0' && t[at] <= '9'; ++at, ++n) {
      if (n < 9) nanos = nanos * 10 + (t[at] - '0');
    }
    if (n == 0) return std::nullopt;
    for (; n < 9; ++n) nanos *= 10;
  }
  long long offset = 0;
  if (at < t.size() && (t[at] == 'Z' || t[at] == 'z')) {
    ++at;
  } else if (at < t.size() && (t[at] == '+' || t[at] == '-')) {
    int oh = 0, om = 0;
    if (!digits(at + 1, 2, oh) || at + 3 >= t.size() || t[at + 3] != ':' ||
        !digits(at + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = (t[at] == '+' ? 1 : -1) * (oh * 3600LL + om * 60LL);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != t.size()) return std::nullopt;
  const long long seconds =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
      hour * 3600LL + minute * 60LL + second - offset;
  return UtcInstant{seconds, nanos};
}

HistoryBoard history_board_of(const Record& record, const Result& result) {
  const std::string host = record.host.hostname.empty() ? "an unnamed host" : record.host.hostname;
  const Board& row = result.board;
  if (row.known() && !same_board(row, board_of(record.device, record.device_state))) {
    if (!row.uuid.empty()) return {"uuid " + row.uuid, board_label(row)};
    return {row.name + " on " + host, row.name + " on " + host};
  }
  const DeviceIdentity& d = record.device;
  if (!d.uuid.empty()) return {"uuid " + d.uuid, device_label(d, true)};
  // Without a uuid, one host's device of one kind, index and name: another host's is another
  // board even where the name is the same (two machines' CPUs, two GPUs of one model).
  return {d.kind + ":" + std::to_string(d.index) + " " + d.name + " on " + host,
          device_label(d) + " on " + host};
}

History build_history(const std::vector<HistoryInput>& inputs, const HistoryOptions& options) {
  History h;

  // Which records can be placed, and each one's commit.
  std::map<std::string, std::size_t> order_of;
  for (std::size_t i = 0; i < options.commit_order.size(); ++i) {
    order_of.emplace(options.commit_order[i], i);  // a commit listed twice keeps its first place
  }
  std::map<std::string, std::string> run_ids;  // run id -> the source it came from
  std::vector<const HistoryInput*> placed;
  const std::optional<UtcInstant> now =
      options.now_utc.empty() ? std::nullopt : rfc3339_instant(options.now_utc);
  // Each record's creation time, as a moment (records of one commit are ordered by it, and
  // commits too without an order given).
  std::map<const Record*, UtcInstant> created_at;
  for (const HistoryInput& in : inputs) {
    const Record& r = *in.record;
    if (const std::string problem = created_problem(r, now); !problem.empty()) {
      h.left_out.push_back({in.source, problem});
      continue;
    }
    created_at[&r] = *rfc3339_instant(r.created_utc);
    if (r.project_commit.empty()) {
      h.left_out.push_back({in.source,
                            "the record names no project commit, so it has no place among commits "
                            "(a benchmark run records its checkout's commit; set "
                            "GPUMETER_PROJECT_COMMIT where it runs outside one)"});
      continue;
    }
    if (!order_of.empty() && order_of.count(r.project_commit) == 0) {
      h.left_out.push_back(
          {in.source, "its commit " + r.project_commit + " is not in " +
                          (options.commit_order_from.empty() ? std::string("the commit order given")
                                                             : options.commit_order_from)});
      continue;
    }
    if (const auto [it, fresh] = run_ids.emplace(r.run_id, in.source); !fresh) {
      h.left_out.push_back({in.source, "the same record (run id " + r.run_id + ") as " +
                                           it->second + ", read once"});
      continue;
    }
    placed.push_back(&in);
  }

  // Commits in order: as given, else by their first record's creation time (read as a moment:
  // text sorts "+01:00" and fractions wrongly), the commit's name breaking a tie.
  std::map<std::string, UtcInstant> first_created;
  for (const HistoryInput* in : placed) {
    const Record& r = *in->record;
    const UtcInstant& created = created_at.at(&r);
    const auto [it, fresh] = first_created.emplace(r.project_commit, created);
    if (!fresh && created < it->second) it->second = created;
  }
  std::vector<std::string> commits;
  for (const auto& [commit, created] : first_created) commits.push_back(commit);
  const auto rank = [&](const std::string& c) {
    const UtcInstant& t = first_created[c];
    return order_of.empty()
               ? std::tuple<std::size_t, long long, long, std::string>{0, t.seconds, t.nanos, c}
               : std::tuple<std::size_t, long long, long, std::string>{order_of[c], 0, 0, c};
  };
  std::sort(commits.begin(), commits.end(),
            [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  std::map<std::string, std::size_t> commit_index;
  for (const std::string& c : commits) {
    commit_index.emplace(c, h.commits.size());
    h.commits.push_back({c, 0});
  }

  // Records in order: commit, then creation time, then run id (unique by now).
  std::sort(placed.begin(), placed.end(), [&](const HistoryInput* a, const HistoryInput* b) {
    const Record& x = *a->record;
    const Record& y = *b->record;
    const UtcInstant& tx = created_at.at(&x);
    const UtcInstant& ty = created_at.at(&y);
    return std::tie(commit_index[x.project_commit], tx.seconds, tx.nanos, x.run_id) <
           std::tie(commit_index[y.project_commit], ty.seconds, ty.nanos, y.run_id);
  });
  for (const HistoryInput* in : placed) {
    const std::size_t c = commit_index[in->record->project_commit];
    ++h.commits[c].records;
    h.records.push_back({in->record, in->source, c, !partial_record_note(*in->record).empty()});
  }

  // Every row that has a series: each measured row, and each failed one.
  std::map<RowKey, std::size_t> series_of;
  const auto series_for = [&](const RowKey& row) { series_of.emplace(row, 0); };
  for (const HistoryRecord& rec : h.records) {
    for (const Result& r : rec.record->results) series_for(r.row);
  }
  for (const HistoryRecord& rec : h.records) {
    for (const Failure& f : rec.record->failures) {
      if (!f.row.implementation.empty()) {
        series_for(f.row);
        continue;
      }
      // A case that failed as a whole fails every implementation of it that has a series; where
      // none has, the case itself gets one.
      const bool any = std::any_of(series_of.begin(), series_of.end(), [&](const auto& entry) {
        const RowKey& row = entry.first;
        return row.case_name == f.row.case_name && row.params == f.row.params &&
               !row.implementation.empty();
      });
      if (!any) series_for(f.row);
    }
  }
  // Every series up to kMaxHistorySeries has a page; the ones after are left out, counted and
  // the first named, in one entry (a list of 100,000 would be the site's size again).
  std::size_t dropped = 0;
  std::string first_dropped;
  for (auto it = series_of.begin(); it != series_of.end();) {
    if (h.series.size() < kMaxHistorySeries) {
      it->second = h.series.size();
      h.series.push_back({it->first, {}});
      ++it;
      continue;
    }
    if (dropped++ < 5) first_dropped += (first_dropped.empty() ? "" : ", ") + row_label(it->first);
    it = series_of.erase(it);
  }
  if (dropped > 0) {
    h.left_out.push_back(
        {std::to_string(dropped) + " series",
         "a site draws at most " + std::to_string(kMaxHistorySeries) +
             " series (rows), in row order, so these have no page: " + first_dropped +
             (dropped > 5 ? ", ..." : "") + " (build a site per group of records to see them)"});
  }

  // Points, in record order; a measurement or failure already seen in another record of the same
  // commit is counted once, the other record named on it.
  std::map<std::tuple<std::size_t, std::size_t, std::uint64_t>, std::vector<std::size_t>> seen;
  std::map<std::tuple<std::size_t, std::size_t, std::string, std::string>, std::size_t>
      seen_failures;
  for (std::size_t ri = 0; ri < h.records.size(); ++ri) {
    const HistoryRecord& rec = h.records[ri];
    const Record& record = *rec.record;
    for (const Result& r : record.results) {
      const auto found = series_of.find(r.row);
      if (found == series_of.end()) continue;  // beyond kMaxHistorySeries
      const std::size_t si = found->second;
      HistorySeries& s = h.series[si];
      auto& same = seen[{rec.commit, si, fingerprint(r)}];
      const auto earlier = std::find_if(same.begin(), same.end(), [&](std::size_t p) {
        return same_measurement(*s.points[p].result, r);
      });
      if (earlier != same.end()) {
        s.points[*earlier].also_in.push_back(rec.source);
        continue;
      }
      same.push_back(s.points.size());
      HistoryPoint p;
      p.record = ri;
      p.result = &r;
      p.null_test_failed = r.null_test_failed();
      p.board = history_board_of(record, r);
      p.method = r.measurement.method;
      s.points.push_back(std::move(p));
    }
    for (const Failure& f : record.failures) {
      std::vector<std::size_t> targets;
      if (!f.row.implementation.empty() || series_of.count(f.row) != 0) {
        if (const auto found = series_of.find(f.row); found != series_of.end())
          targets.push_back(found->second);
      } else {
        for (const auto& [row, index] : series_of) {
          if (row.case_name == f.row.case_name && row.params == f.row.params) {
            targets.push_back(index);
          }
        }
      }
      for (const std::size_t si : targets) {
        HistorySeries& s = h.series[si];
        const auto [it, fresh] =
            seen_failures.emplace(std::tuple{rec.commit, si, f.error, f.message}, s.points.size());
        if (!fresh) {
          s.points[it->second].also_in.push_back(rec.source);
          continue;
        }
        HistoryPoint p;
        p.record = ri;
        p.failure = &f;
        p.board = {"", ""};
        p.method = TimingMethod::kernel_records;
        s.points.push_back(std::move(p));
      }
    }
  }

  // Lines and comparisons: each measured point against the latest earlier one of its board and
  // timing method that can be a baseline.
  for (std::size_t si = 0; si < h.series.size(); ++si) {
    HistorySeries& s = h.series[si];
    std::map<std::pair<std::string, TimingMethod>, std::size_t> baseline;
    std::optional<std::size_t> last_measured;
    for (std::size_t pi = 0; pi < s.points.size(); ++pi) {
      HistoryPoint& p = s.points[pi];
      if (p.result == nullptr) continue;
      if (last_measured) p.line_break = line_break_words(s.points[*last_measured], p);
      last_measured = pi;
      const auto key = std::make_pair(p.board.key, p.method);
      if (const auto it = baseline.find(key); it != baseline.end()) {
        const HistoryPoint& before = s.points[it->second];
        p.previous = it->second;
        p.comparison = compare_across_runs(*before.result, *p.result);
        p.movement = movement_of(*p.comparison);
        const bool across_commits = h.records[before.record].commit != h.records[p.record].commit;
        if (across_commits && p.movement == Movement::slower) h.regressions.push_back({si, pi});
        if (across_commits && p.movement == Movement::faster) h.improvements.push_back({si, pi});
      }
      if (!p.null_test_failed) baseline[key] = pi;
    }
  }
  // In record order, so the list reads as the history ran.
  const auto by_record = [&](const HistoryMove& a, const HistoryMove& b) {
    return std::tie(h.series[a.series].points[a.point].record, a.series) <
           std::tie(h.series[b.series].points[b.point].record, b.series);
  };
  std::stable_sort(h.regressions.begin(), h.regressions.end(), by_record);
  std::stable_sort(h.improvements.begin(), h.improvements.end(), by_record);
  return h;
}

}  // namespace gpumeter
