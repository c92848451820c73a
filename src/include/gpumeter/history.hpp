#pragma once
// Records over commits: every row's points in commit and time order, each compared with the
// previous point of its line (the same board and timing method) by the comparison of two runs
// (record_comparison.hpp), and the moves that comparison calls between two commits. Pure: the
// records are read, and the pages written, by the caller (gpumeter history).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// The machine a point ran on. Two points are compared only on one board: a time moves with the
// board as much as with the code.
struct HistoryBoard {
  std::string key;    // what points are compared within
  std::string label;  // how a page names it

  friend bool operator==(const HistoryBoard& a, const HistoryBoard& b) { return a.key == b.key; }
};

// The board of one row: its own (a record merged from runs on several boards keeps each row's),
// which is its record's device unless it names another. A board with a uuid is that uuid; one
// without is its kind, index and name on the named host (two hosts' CPUs, or two GPUs without a
// uuid, are not one board).
HistoryBoard history_board_of(const Record& record, const Result& result);

// A record read, and the file it came from (named on the pages).
struct HistoryInput {
  const Record* record = nullptr;
  std::string source;
};

struct HistoryOptions {
  // The project's commits, oldest first (`git rev-list --reverse HEAD`). Empty: commits in the
  // order of their first record's creation time. Given: a record of a commit not in it is left out.
  std::vector<std::string> commit_order;
  // Where commit_order came from, for the reason a record outside it is left out ("" reads
  // "the commit order given").
  std::string commit_order_from;
  // The time of this build (RFC 3339, UTC): a record created after it is left out. Empty: not
  // checked (the core reads no clock; the command gives its own).
  std::string now_utc;
};

// The most series a site draws a page for: each series is a page, so a record of 100,000 rows
// would be as many pages. 5,000 is far beyond the rows a project tracks; the series beyond it (by
// row, in order) are left out and listed.
inline constexpr std::size_t kMaxHistorySeries = 5000;

// A moment read from RFC 3339 text: seconds since 1970-01-01T00:00:00Z, and nanoseconds.
struct UtcInstant {
  long long seconds = 0;
  long nanos = 0;
  friend bool operator<(const UtcInstant& a, const UtcInstant& b) {
    return a.seconds < b.seconds || (a.seconds == b.seconds && a.nanos < b.nanos);
  }
};

// `text` as RFC 3339 ("2026-12-03T10:00:00Z", "2026-12-03T11:00:00.5+01:00"): a real date and
// time of day with a zone, or nullopt. A record's created_utc is free text to the reader; a
// history orders commits by it, so only a time that can be read as one is believed.
std::optional<UtcInstant> rfc3339_instant(std::string_view text);

// A record or file not placed among the points, and why.
struct LeftOut {
  std::string source;
  std::string reason;
};

struct HistoryCommit {
  std::string commit;
  std::size_t records = 0;
};

// A record placed in the history, in order: by commit, then creation time, then run id.
struct HistoryRecord {
  const Record* record = nullptr;
  std::string source;
  std::size_t commit = 0;  // index into History::commits
  bool partial = false;    // the run stopped before its end: rows it lacks may not have run
};

// One row in one record: a measurement, or the record's failure for it.
struct HistoryPoint {
  std::size_t record = 0;            // index into History::records
  const Result* result = nullptr;    // nullptr: the row did not produce a time in this record
  const Failure* failure = nullptr;  // set when result is nullptr
  // The row's null test failed: its time may not be its work's, so it is shown as such, never
  // drawn, and no baseline for the points after it.
  bool null_test_failed = false;
  HistoryBoard board;
  TimingMethod method = TimingMethod::kernel_records;
  // The point of its line it was compared with (an index into its series' points), and how.
  std::optional<std::size_t> previous;
  std::optional<Comparison> comparison;
  Movement movement = Movement::none;
  // The line (board, timing method) is not that of the series' previous measured point: the line
  // breaks here, and this says how ("board changed from A to B").
  std::string line_break;
  // Other records holding the very same measurement (a shard and the merge of its sweep): their
  // sources. The point is counted once.
  std::vector<std::string> also_in;
};

// Every point of one row (case, params, implementation), in record order.
struct HistorySeries {
  RowKey row;
  std::vector<HistoryPoint> points;
};

// A point whose comparison with the previous point of its line, of another commit, found a move.
struct HistoryMove {
  std::size_t series = 0;
  std::size_t point = 0;
};

struct History {
  std::vector<HistoryCommit> commits;     // in order
  std::vector<HistoryRecord> records;     // in order
  std::vector<HistorySeries> series;      // by row
  std::vector<LeftOut> left_out;          // in the order given
  std::vector<HistoryMove> regressions;   // slower, in record order
  std::vector<HistoryMove> improvements;  // faster, in record order
};

// Places every record: a record without a project commit, of a commit outside commit_order, given
// twice (one run id), or whose created_utc is not an RFC 3339 time at or before options.now_utc
// (the order of its commit and of its points would rest on it) is left out, saying why. Series
// beyond kMaxHistorySeries are left out, listed in one entry. Within each series a measured point
// is compared with the latest earlier measured point of its board and timing method whose null test
// did not fail (a time that may not be its work's is no baseline), by compare_across_runs. A move
// between two points of one commit is a repeat's, not the code's, and is not listed as a regression
// or an improvement (the page still shows it). The inputs' records must outlive the history.
History build_history(const std::vector<HistoryInput>& inputs, const HistoryOptions& options = {});

}  // namespace gpumeter
