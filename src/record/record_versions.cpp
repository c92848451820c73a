// Schema versions in the reader (record_versions.hpp): which version a record is, the fields each
// later version added, and what an older record becomes once read.
#include "record_versions.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/merge.hpp"
#include "record_verify.hpp"

namespace gpumeter::record_read {

using namespace record_json;

// The record's schema version, once it is known to be a record's of a version this gpumeter reads.
// Identified first: a file of another kind or version gets that message, not a list of fields it
// lacks.
int schema_version_of(const Reader& r, const Doc& doc) {
  const std::string schema = r.text(doc, "", "schema", kName);
  if (schema != kRecordSchemaName) {
    r.fail(fmt::format("not a gpumeter record (schema {}, expected \"{}\")", record_text(schema),
                       kRecordSchemaName));
  }
  const Doc& version_field = r.field(doc, "", "schema_version");
  r.expect(version_field.is_number_integer(), version_field, "schema_version", "an integer");
  const bool supported =
      version_field.is_number_unsigned()
          ? version_field.get<std::uint64_t>() <=
                    static_cast<std::uint64_t>(kRecordSchemaVersion) &&
                version_field.get<std::uint64_t>() >=
                    static_cast<std::uint64_t>(kOldestReadableSchemaVersion)
          : version_field.get<std::int64_t>() <= kRecordSchemaVersion &&
                version_field.get<std::int64_t>() >= kOldestReadableSchemaVersion;
  if (!supported) {
    r.fail(fmt::format("unsupported schema_version {} (this gpumeter reads {} to {})",
                       version_field.dump(), kOldestReadableSchemaVersion, kRecordSchemaVersion));
  }
  return version_field.get<int>();
}

namespace {

// The fields each schema version added (record.hpp says why each was a new version), beyond the
// summary values, which the column list dates (Column::since_schema).
struct AddedField {
  Scope scope;
  std::string_view key;
  int since;
};
constexpr AddedField kAddedFields[] = {
    {Scope::top, "comparisons", 2},
    {Scope::result, "pass_sizes", 2},
    {Scope::result, "timestamp_tick_ns", 2},
    {Scope::config, "launch_cost_ns", 3},
    {Scope::result, "null_test", 3},
    {Scope::result, "memory", 3},
    {Scope::samples, "sm_clock_mhz", 3},
    {Scope::samples, "throttle_reasons", 3},
    {Scope::ceilings, "timing_method", 4},
    {Scope::ceilings, "statistic", 4},
    {Scope::ceilings, "rule", 4},
    {Scope::ceilings, "runs", 4},
    {Scope::result, "timestamp_check", 4},
    {Scope::result, "precision", 5},
    {Scope::top, "phases", 6},
    {Scope::top, "totals", 6},
    {Scope::top, "runtimes", 6},
    {Scope::top, "program", 7},
    {Scope::top, "shard", 7},
    {Scope::result, "board", 8},
    {Scope::top, "merged_programs", 10},
    {Scope::result, "origin", 10},
    {Scope::result, "answer_check", 10},
    {Scope::result, "load_average", 11},
    {Scope::result, "yardstick", 12},
    {Scope::result, "flags", 12},
};

// An older version is read by its own rules, which know nothing of what later versions added:
// such a field in it would be dropped unread (a version 3 row whose null test failed, relabelled
// version 2, read as a good row without its null test and memory). A record holding one is
// refused. Fields no version has are still ignored (adding one does not bump the version).
void refuse_newer_field(const Reader& r, const Doc& object, const std::string& where,
                        std::string_view key, int since, int version) {
  if (version >= since || !object.is_object() || !object.contains(key)) return;
  r.fail(fmt::format(
      "{} is a field of schema version {} in a record of schema_version {}, whose reading "
      "would drop it (a newer record relabelled?)",
      Reader::join(where, key), since, version));
}

}  // namespace

void refuse_newer_fields(const Reader& r, const Doc& object, const std::string& where, Scope scope,
                         int version) {
  for (const AddedField& f : kAddedFields) {
    if (f.scope == scope) refuse_newer_field(r, object, where, f.key, f.since, version);
  }
}

// The summary values later versions added, dated by the column list.
void refuse_newer_summary_values(const Reader& r, const Doc& summary, const std::string& where,
                                 int version) {
  for (const Column& c : result_columns()) {
    if (c.summary_key.empty() || c.since_schema <= version) continue;
    if (c.summary_object.empty()) {
      refuse_newer_field(r, summary, where, c.summary_key, c.since_schema, version);
    } else if (summary.is_object()) {
      const auto holder = summary.find(c.summary_object);
      if (holder == summary.end()) continue;
      if (!holder->is_object()) {
        refuse_newer_field(r, summary, where, c.summary_object, c.since_schema, version);
      }
      refuse_newer_field(r, *holder, Reader::join(where, c.summary_object), c.summary_key,
                         c.since_schema, version);
    }
  }
}

namespace {

// A deviation of `record` that starts with `mark`.
bool has_mark(const Record& record, std::string_view mark) {
  return std::any_of(record.deviations.begin(), record.deviations.end(),
                     [mark](const std::string& text) { return text.rfind(mark, 0) == 0; });
}

}  // namespace

// Before version 10 a record had no field for how its rows were measured; each version's reader
// took it from what that version had. Read only for those versions: from version 10 the fields
// say it, and a deviation is text for people.
//   - A program's rows: every row of a program's record (its schedule), and in a merge of program
//     runs (whose deviation, kMergedProgramsMark, said so) the CUPTI rows without a ledger.
//   - Before version 8 no row had a ledger to prove collection was on: its CUPTI rows without
//     one are rows measured before ledgers. Version 8 said so by a deviation (kBeforeLedgersMark),
//     which gpumeter wrote into such a record read and written back as version 8, the version it
//     is held as. No version 9 record holds such rows (they are written as version 8), so a
//     version 9 record's mark exempts nothing.
void assign_row_origins(Record& record, int version) {
  if (version >= kRowOriginsSince) return;
  record.merged_programs = has_mark(record, kMergedProgramsMark);
  const bool before_ledgers = version < 8 || (version == 8 && has_mark(record, kBeforeLedgersMark));
  bool marked = false;
  for (Result& row : record.results) {
    RowOrigin& origin = row.measurement.origin;
    if (record.config.schedule == "program" ||
        (record.merged_programs && cupti_row_without_ledger(row))) {
      origin = RowOrigin::program_range;
    } else if (before_ledgers && cupti_row_without_ledger(row)) {
      origin = RowOrigin::before_ledgers;
      marked = true;
    }
  }
  // For people, and version 8's words when the record is written back as version 8.
  if (marked && !has_mark(record, kBeforeLedgersMark)) {
    record.deviations.push_back(
        fmt::format("{}read from a schema_version {} record, whose CUPTI rows hold no ledger: "
                    "no canary proves collection was on while they ran",
                    kBeforeLedgersMark, version));
  }
}

}  // namespace gpumeter::record_read
