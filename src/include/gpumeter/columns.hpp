#pragma once
// The columns of a result, described once. The record's JSON summary, the markdown
// table and the CSV table are all produced from this list, and a record reader checks each
// stored summary value against the one its samples give through it; a new column is added here
// and nowhere else.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gpumeter/record.hpp"

namespace gpumeter {

enum class ColumnKind {
  text,    // identity and provenance: case, implementation, method...
  time,    // a duration: ns inside, ms in the record, us (or ms) in tables
  count,   // an integer: samples, kernels, retries
  real,    // a rate or a percentage
  memory,  // bytes inside, MiB in tables
  clock,   // an SM clock in MHz, printed as read (a median may end in .5); shown beside a row
           // whose null test failed, like its memory
  flag,    // yes or no: 1 or 0 inside, true or false in the record and CSV
};

// Where a column's cell goes in the markdown table, which is for people and shows less.
enum class MarkdownPlacement {
  cell,              // a cell of its own, under `title`
  bracket_previous,  // appended to the previous cell: "12.3 [12.0, 12.7]"
  hidden,            // CSV and JSON only
  // A flag: when set, its title in parentheses after the previous cell, "103% (above the
  // measured ceiling)"; nothing when not set.
  annotate_previous,
};

struct Column {
  std::string_view id;     // the CSV header, unit suffix included ("device_busy_median_us")
  std::string_view title;  // the markdown header, without unit
  ColumnKind kind;
  MarkdownPlacement markdown;
  // For summary values: the object and key under a result's "summary" in the record
  // ("device_busy_ms", "median"; object "" for a direct key). Empty key: not stored there.
  std::string_view summary_object;
  std::string_view summary_key;
  bool nullable;  // the record may hold null for it (an optional value)
  // Exactly one of these: a summary value, or a text of the row, or another number of the row.
  std::optional<double> (*summary)(const Summary& summary);
  std::string (*text)(const Record& record, const Result& result);
  // The record schema version that added the column: an older record lacks its summary value.
  int since_schema = 1;
  std::optional<double> (*value)(const Result& result) = nullptr;
  // A value whose rule changed: records before `rule_since_schema` stored it by `older_rule`,
  // which their reader checks it against, so they still read (the table then shows the value
  // by today's rule, from the same samples).
  int rule_since_schema = 1;
  std::optional<double> (*older_rule)(const Result& result) = nullptr;
  // Measured only by a method that sees the kernels a call ran (sees_kernels): the gap and the
  // uncounted copy. The record holds 0 for the other methods; tables show "not measured".
  bool needs_kernels = false;
};

// Every column of a result row, in table order.
std::span<const Column> result_columns();

// A numeric column's value (nullopt: no value, "not measured"); a text column's text.
std::optional<double> number_of(const Column& column, const Result& result);
// The value a table shows: number_of(), except nullopt where the row's method cannot measure
// the column (needs_kernels). The record is written and checked with number_of().
std::optional<double> shown_number_of(const Column& column, const Result& result);
std::string text_of(const Column& column, const Record& record, const Result& result);

}  // namespace gpumeter
