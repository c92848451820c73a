#pragma once
// Records on disk: one versioned JSON schema, read strictly, written atomically under a run-unique
// name, never overwritten. Tables and comparisons read records only.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/record.hpp"

namespace gpumeter {

// The largest record read: a sweep of ten thousand results of 200 samples each is about 80 MB.
inline constexpr std::size_t kMaxRecordBytes = std::size_t{256} << 20;

// Pretty JSON of schema kRecordSchemaName, version kRecordSchemaVersion. Durations are
// integers of ns; only the summary (and the budget, estimate) carry ms, with the unit in the
// field name. Throws Error for a record that cannot be written faithfully (another schema
// version, a non-finite number, a summary whose method differs from its measurement's, a row's
// name over kMaxNameBytes). Any other string over its kind's limit (record.hpp) is cut to it,
// marked, so the record reads back.
std::string serialize(const Record& record);

// Strict, bounded, and linear in the text's length (docs/rules.md, "a record is evidence: strict
// reader"): an unknown schema name or version, a missing field, a wrong type, a key twice in one
// object, nesting deeper than a record has, a number out of its field's range, a string over its
// kind's limit (record.hpp), a NUL byte or anything but whitespace after the record, text over
// kMaxRecordBytes, a field of a later schema version in an older record, or an inconsistent result
// throws InvalidRecord(path, problem). Every derived value (summaries, rates, percentages,
// comparisons) is recomputed from the raw samples and declared workload; one that differs from what
// is stored, or that is not a finite number (a percentage of a near-zero ceiling, a difference no
// number can state), refuses the record, and the recomputed values are the ones returned. Fields no
// version has are ignored (adding one does not bump the version). `path` only names the source in
// messages.
// A run's journal (run_recorder.hpp: what a run killed before its end leaves) is read as
// strictly, line by line, into the record of the cases it holds, marked partial (a deviation
// starting with kPartialRecordMark); only a last line cut short by the kill is left out, and said.
Record parse_record(std::string_view text, const std::string& path);

// The ceilings alone, as a record holds them (one line of JSON), and read back as strictly as
// a record's: how a sweep hands the ceilings it measured to the processes of its isolated
// cases. ceilings_from_json throws InvalidRecord naming `source`.
std::string ceilings_to_json(const Ceilings& ceilings);
Ceilings ceilings_from_json(std::string_view text, const std::string& source);

// Reads and parses one regular file of at most kMaxRecordBytes (opened without blocking, so a
// FIFO is refused rather than waited on); InvalidRecord names the file and the problem, also
// when the file cannot be opened or read.
Record read_record(const std::filesystem::path& file);

// Reads every file before returning, so a caller prints nothing unless all are valid.
// Throws InvalidRecord on the first bad one, and on a record given twice (the same run_id).
std::vector<Record> read_records(const std::vector<std::filesystem::path>& files);

// "gpumeter-<run_id>.json"; the partial record an interrupted run leaves,
// "gpumeter-<run_id>.partial.json"; and a run's journal, "gpumeter-<run_id>.partial.jsonl".
// Each throws Error for a run_id that is empty or holds a character
// other than [A-Za-z0-9._-] (it becomes part of a path).
std::string record_file_name(const std::string& run_id);
std::string partial_record_file_name(const std::string& run_id);
std::string journal_file_name(const std::string& run_id);

// Writes dir/record_file_name(run_id) atomically: a temporary file in the same directory, fsync,
// then a link that fails if the name exists; nothing is ever overwritten. The directory is created
// if needed. Refuses (Error) a record that would not read back, and a name that already exists.
// Returns the path written; with `text_written`, the bytes written too (gpumeter evaluate's report
// carries their digest, so a record changed after it was written is seen).
std::filesystem::path write_record(const Record& record, const std::filesystem::path& dir,
                                   std::string* text_written = nullptr);
// The same, to the name `file` asked for (gpumeter merge -o): never over an existing file.
std::filesystem::path write_record_to(const Record& record, const std::filesystem::path& file,
                                      std::string* text_written = nullptr);

// Unique per run: "20261129T112650Z-<pid>-<8 random hex>" (UTC time, process id, 32 bits
// from the OS's random source), so two runs in the same second do not collide.
std::string new_run_id();

}  // namespace gpumeter
