// The reader of a run's journal (run_recorder.hpp; its lines: record_json.hpp): the record of the
// cases it holds, marked partial, each line read as strictly as a record.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/record.hpp"
#include "record_decode.hpp"
#include "record_parse.hpp"
#include "record_reader.hpp"
#include "record_verify.hpp"
#include "record_versions.hpp"

namespace gpumeter {
namespace record_read {

using namespace record_json;

namespace {

// A header line's record: a record without results, failures or comparisons, read as strictly as
// one (the same reader, given the three empty lists).
Record read_header(const Reader& r, const Doc& header, const std::string& where, int& version) {
  r.expect(header.is_object(), header, where, "an object");
  for (const char* key : {"results", "failures", "comparisons", "phases", "totals", "runtimes"}) {
    if (header.contains(key)) r.fail(fmt::format("{}: a journal's header holds no {}", where, key));
  }
  Doc whole = header;
  whole["results"] = Doc::array();
  whole["failures"] = Doc::array();
  whole["comparisons"] = Doc::array();
  // A journal holds the rows of a run of warm calls: the phases of version 6 are never in one.
  const auto v = header.find("schema_version");
  if (v != header.end() && v->is_number_integer() && v->get<long long>() >= 6) {
    for (const char* key : {"phases", "totals", "runtimes"}) whole[key] = Doc::array();
  }
  Record record = read_document(r, whole, nullptr, true);
  version = header.at("schema_version").get<int>();  // read_document checked it
  return record;
}

}  // namespace
}  // namespace record_read

// The cases a killed or running run's journal holds, as the record it would have written,
// marked partial. Every complete line is read as strictly as a record; only a last line cut
// short (no newline: the process died while writing it) is left out, and the record says so.
Record record_json::parse_journal(std::string_view text, const std::string& path) {
  using namespace record_read;
  std::vector<std::string_view> lines;
  std::string_view torn;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      torn = text.substr(at);
      break;
    }
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  const Reader r(path);
  if (lines.empty()) r.fail("a run's journal without its first line (killed as it began)");
  const auto line_doc = [&](std::size_t i) {
    if (lines[i].empty()) r.fail(fmt::format("journal line {} is empty", i + 1));
    return parse_strict(lines[i], fmt::format("{} (journal line {})", path, i + 1));
  };

  const Doc first = line_doc(0);
  r.expect(first.is_object(), first, "journal line 1", "an object");
  if (r.text(first, "journal line 1", "journal", kName) != kJournalName) {
    r.fail(
        fmt::format("journal line 1: not a gpumeter run journal (expected \"{}\")", kJournalName));
  }
  const int journal_version = r.integer<int>(first, "journal line 1", "journal_version", 0, 1000);
  if (journal_version != kJournalVersion) {
    r.fail(fmt::format("unsupported journal_version {} (this gpumeter reads {})", journal_version,
                       kJournalVersion));
  }
  const auto planned = r.integer<std::size_t>(first, "journal line 1", "cases", 0, kMaxCount);
  if (first.size() != 4) r.fail("journal line 1 holds fields other than its four");
  int version = 0;
  Record record =
      read_header(r, r.object(first, "journal line 1", "record"), "journal line 1.record", version);

  std::size_t cases = 0;
  std::vector<std::string> row_where;  // where each row was read, for a row twice
  bool results_stale = false;          // read under ceilings that a later line replaced
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string where = fmt::format("journal line {}", i + 1);
    const Doc line = line_doc(i);
    r.expect(line.is_object() && line.size() == 1, line, where, "an object of one field");
    const auto only = line.begin();  // held, so the value below refers into `line`
    const std::string kind = only.key();
    const Doc& value = only.value();
    if (kind == "setup") {
      int setup_version = 0;
      const Record setup = read_header(r, value, where + ".setup", setup_version);
      if (setup_version != version) r.fail(where + ": a setup of another schema_version");
      copy_measured_setup(setup, record);
      results_stale = true;
    } else if (kind == "deviation") {
      record.deviations.push_back(r.text_value(value, where + ".deviation", kText));
    } else if (kind == "ceilings") {
      r.expect(value.is_object(), value, where + ".ceilings", "an object");
      record.ceilings = read_ceilings(r, value, version);
      results_stale = true;
    } else if (kind == "case") {
      const std::string cw = where + ".case";
      r.expect(value.is_object() && value.size() == 2, value, cw, "an object of two fields");
      const Doc& results = r.array(value, cw, "results");
      for (std::size_t k = 0; k < results.size(); ++k) {
        // Its summary is checked against the ceilings in force when it was written.
        row_where.push_back(fmt::format("{}.results[{}]", cw, k));
        record.results.push_back(
            read_result(r, results[k], row_where.back(), record.ceilings, version, false));
      }
      const Doc& failures = r.array(value, cw, "failures");
      for (std::size_t k = 0; k < failures.size(); ++k) {
        record.failures.push_back(
            read_failure(r, failures[k], fmt::format("{}.failures[{}]", cw, k)));
      }
      ++cases;
    } else {
      r.fail(fmt::format("{}: unknown kind of line {}", where, record_text(kind)));
    }
  }
  if (cases > planned) {
    r.fail(fmt::format("the journal holds {} cases, more than the {} its run planned", cases,
                       planned));
  }
  check_rows_unique(r, record.results, row_where);
  check_results_not_failed(r, record);
  // Every row's percentages of the run's last ceilings, as the complete record's would be.
  if (results_stale) {
    for (Result& res : record.results) summarize_result(res, record.ceilings);
  }
  if (version < 8) fill_boards(record);
  assign_row_origins(record, version);
  // A shard's run plans its own cases: a journal that planned another number is of no run of it.
  if (record.shard && planned != own_cases(*record.shard)) {
    r.fail(
        fmt::format("journal line 1: the run planned {} cases, but its {} holds {} (altered "
                    "journal?)",
                    planned, shard_label(record.shard->shard.index, record.shard->shard.count),
                    own_cases(*record.shard)));
  }
  check_shard_rows(r, record, false);  // a journal is partial
  // Its rows as strictly as a record's: the journal read is a record, written and read again
  // (a row whose counts its header's budget cannot give was accepted here and refused there).
  check_rows_measurable(r, record);
  check_row_origins(r, record, version);
  if (version >= 5) check_precision(r, record.results, version);
  finish_record(record, version);
  check_statable(r, record.comparisons);
  std::string note = std::string(kPartialRecordMark) + "read from the run's journal, which holds " +
                     std::to_string(cases) + " of " + std::to_string(planned) +
                     " cases: the run was killed, or was still running, when it was read";
  if (!torn.empty()) {
    note += fmt::format(" (its last line, {} bytes cut short as the process ended, is left out)",
                        torn.size());
  }
  record.deviations.push_back(std::move(note));
  return record;
}

}  // namespace gpumeter
