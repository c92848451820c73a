// The record's reader: strict, bounded and linear in the text (record_io.hpp, parse_record), with
// the cross-checks that recompute every derived value from the raw samples. Here: a document read
// as a record, section by section, its rows read as they are parsed. Its parts: the bounded parse
// (record_parse), typed field access (record_fields), each section decoded (record_decode), the
// cross-checks (record_verify), schema versions (record_versions), and the reader of a run's
// journal (journal_reader), which gives the record of the cases it holds, marked partial.
#include "record_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "record_decode.hpp"
#include "record_parse.hpp"
#include "record_verify.hpp"
#include "record_versions.hpp"

namespace gpumeter {
namespace record_read {

using namespace record_json;

Record read_document(const Reader& r, const Doc& doc, std::vector<Result>* streamed,
                     bool journal_header) {
  if (!doc.is_object()) r.fail(fmt::format("top level is {}, not a JSON object", doc.type_name()));

  const int version = schema_version_of(r, doc);
  refuse_newer_fields(r, doc, "", Scope::top, version);

  Record record;
  // What it becomes once read: the current version, or, for a record of the older interval
  // rules, the last version of those rules (whose fields are the current ones), so that its
  // comparisons and precision outcomes stay what its rules gave and it writes back as read.
  record.schema_version = records_rules_version(version);
  record.run_id = r.text(doc, "", "run_id", kName);
  record.created_utc = r.text(doc, "", "created_utc", kName);
  record.gpumeter_version = r.text(doc, "", "gpumeter_version", kName);
  const Doc& argv = r.array(doc, "", "argv");
  for (std::size_t i = 0; i < argv.size(); ++i) {
    record.argv.push_back(r.text_value(argv[i], fmt::format("argv[{}]", i), kArgument));
  }
  record.project_commit = r.text_or_empty(doc, "", "project_commit", kName);

  record.host = read_host(r, doc);
  record.device = read_device(r, doc);
  record.device_state = read_device_state(r, doc);

  record.ceilings = read_ceilings(r, r.object(doc, "", "ceilings"), version);

  record.config = read_config(r, doc, version);
  check_config(r, record.config);

  const Doc& deviations = r.array(doc, "", "deviations");
  for (std::size_t i = 0; i < deviations.size(); ++i) {
    record.deviations.push_back(
        r.text_value(deviations[i], fmt::format("deviations[{}]", i), kText));
  }
  if (version >= kRowOriginsSince) record.merged_programs = r.boolean(doc, "", "merged_programs");

  const Doc& results = r.array(doc, "", "results");
  record.results.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (streamed != nullptr && i < streamed->size() && results[i].is_null()) {
      record.results.push_back(std::move((*streamed)[i]));
      continue;
    }
    record.results.push_back(
        read_result(r, results[i], fmt::format("results[{}]", i), record.ceilings, version));
  }
  // Before version 8 a record named one device, which ran every row of it.
  if (version < 8) fill_boards(record);
  assign_row_origins(record, version);

  // Added within version 1: records written before it have no failures field.
  if (version >= 2 || doc.contains("failures")) {
    const Doc& failures = r.array(doc, "", "failures");
    for (std::size_t i = 0; i < failures.size(); ++i) {
      record.failures.push_back(read_failure(r, failures[i], fmt::format("failures[{}]", i)));
    }
  }

  {
    std::vector<std::string> where;
    where.reserve(record.results.size());
    for (std::size_t i = 0; i < record.results.size(); ++i) {
      where.push_back(fmt::format("results[{}]", i));
    }
    check_rows_unique(r, record.results, where);
  }
  check_results_not_failed(r, record);
  if (version >= 5) check_precision(r, record.results, version);
  // By the comparison rules of the record's version: a stored comparison is the one its rules gave.
  // The rows' flags are decided here too (a record before version 12 has none stored); from
  // version 12 the stored ones must be those.
  std::vector<RowFlags> stored_flags;
  for (const Result& row : record.results) stored_flags.push_back(row.flags);
  finish_record(record, version);
  if (version >= kRowFlagsSince) check_row_flags(r, record.results, stored_flags);
  check_statable(r, record.comparisons);
  if (version >= 2) check_comparisons(r, doc, record.comparisons, version);
  if (version >= 6) {
    record.phases = read_phases(r, doc);
    record.totals = read_totals(r, doc);
    record.runtimes = read_runtimes(r, doc);
    check_phase_rows(r, record);
  }
  if (version >= 7) record.program = read_program(r, doc, record.results);
  if (version >= 7) record.shard = read_shard(r, doc);
  if (!journal_header) check_shard_rows(r, record, partial_record_note(record).empty());
  // The program section and the program's schedule come together (run.cpp writes both): rows
  // without the section are ranges nothing accounts for, unless the record is a merge of program
  // runs, whose sections are in the records merged; and a program was run as it is, its L2 never
  // flushed (each row's reason says so).
  if (record.program.has_value() != (record.config.schedule == "program") &&
      !(record.merged_programs && !record.program)) {
    r.fail(record.program ? "config.schedule: a program's record whose schedule is not \"program\" "
                            "(altered record?)"
                          : "program: missing from a record of schedule \"program\" (its "
                            "ranges, runs and processes; altered record?)");
  }
  if (record.config.schedule == "program" && record.config.l2_flush) {
    r.fail(
        "config.l2_flush: on, in the record of a program run as it is, whose L2 gpumeter "
        "never flushes (altered record?)");
  }
  // A program's record is its one run's: a merge holds no program section.
  if (record.program && record.merged_programs) {
    r.fail(
        "merged_programs: true in the record of one program run, which holds its own program "
        "section (altered record?)");
  }
  check_rows_measurable(r, record);
  check_row_origins(r, record, version);
  return record;
}

namespace {

// Each row of a record's `results`, read into its Result as soon as its element closes and the
// element dropped from the document: the rows are most of a record, and their document (a map node
// and a key per member, 16 bytes and more per number) took 8 times the file's size (100,000 rows,
// 141 MB of text: 1.15 GB). It reads a row only once the schema, a readable schema_version and the
// ceilings it is checked against have been parsed (a record's writer puts them first); otherwise
// the rows stay in the document and read_document reads them, as strictly either way.
class ResultsAsParsed final : public ResultTaker {
 public:
  explicit ResultsAsParsed(const Reader& r) : r_(r) {}

  // `root` is the document so far (its `results` open), `element` the row just closed. True when
  // the row was read (and may be dropped).
  bool take(const Doc& root, const Doc& element) override {
    if (gave_up_) return false;
    if (!ready_ && !prepare(root)) {
      gave_up_ = true;
      return false;
    }
    if (rows_.size() != seen_++) return false;  // an element kept before: keep them all
    try {
      rows_.push_back(
          read_result(r_, element, fmt::format("results[{}]", rows_.size()), *ceilings_, version_));
    } catch (const InvalidRecord&) {
      // Kept, and refused where read_document reaches it: after the fields it reads first, so a
      // record with several faults is named by the same one either way.
      gave_up_ = true;
      return false;
    }
    return true;
  }

  std::vector<Result>& rows() { return rows_; }

 private:
  bool prepare(const Doc& root) {
    const auto schema = root.find("schema");
    const auto version = root.find("schema_version");
    const auto ceilings = root.find("ceilings");
    if (schema == root.end() || version == root.end() || ceilings == root.end()) return false;
    if (!schema->is_string() || schema->get_ref<const std::string&>() != kRecordSchemaName ||
        !version->is_number_integer() || !ceilings->is_object()) {
      return false;
    }
    const auto v = version->get<std::int64_t>();
    if (v < kOldestReadableSchemaVersion || v > kRecordSchemaVersion) return false;
    version_ = static_cast<int>(v);
    try {
      ceilings_ = read_ceilings(r_, *ceilings, version_);
    } catch (const InvalidRecord&) {
      return false;  // read_document names it
    }
    ready_ = true;
    return true;
  }

  const Reader& r_;
  bool ready_ = false;
  bool gave_up_ = false;
  int version_ = 0;
  std::optional<Ceilings> ceilings_;
  std::size_t seen_ = 0;
  std::vector<Result> rows_;
};

}  // namespace
}  // namespace record_read

Ceilings ceilings_from_json(std::string_view text, const std::string& source) {
  using namespace record_read;
  if (text.size() > kMaxRecordBytes) {
    throw InvalidRecord(source, fmt::format("larger than {} bytes", kMaxRecordBytes));
  }
  const Reader r(source);
  const Doc j = parse_strict(text, source);
  if (!j.is_object()) r.fail(fmt::format("ceilings: expected an object, found {}", j.type_name()));
  return read_ceilings(r, j, kRecordSchemaVersion);
}

Record parse_record(std::string_view text, const std::string& path) {
  using namespace record_read;
  if (text.size() > kMaxRecordBytes) {
    throw InvalidRecord(
        path, fmt::format("larger than {} bytes, the most a record may be", kMaxRecordBytes));
  }
  // A run's journal starts so, and no record does (a record's first field is its schema).
  if (text.substr(0, kJournalStart.size()) == kJournalStart) return parse_journal(text, path);
  const Reader r(path);
  ResultsAsParsed rows(r);
  const Doc doc = parse_strict(text, path, &rows);
  return read_document(r, doc, &rows.rows());
}

}  // namespace gpumeter
