#pragma once
// What the record's writer (record_writer.cpp) and its reader (record_reader.cpp and its parts)
// share: the JSON types and the limits of what a record may hold. Internal to gpumeter_record.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter::record_json {

// Written with its fields in the schema's order, for people reading the file.
using Json = nlohmann::ordered_json;
// Read into objects kept by key: a member is found and inserted in log time, so reading stays
// linear in the text whatever the number of keys (the ordered objects search their members one by
// one: a record of 400,000 extra keys took 109 s).
using Doc = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Limits of what a record may hold. A record is evidence read back by people and tools; each
// limit is far beyond any real record and keeps a forged one from exhausting the reader.

// Nesting: a record is 5 levels deep; nothing legitimate comes near this.
constexpr int kMaxDepth = 32;
// Values (numbers, strings, arrays, objects): the parsed document costs about 50 bytes of memory
// per value whatever its text, so a record of one-digit numbers within kMaxRecordBytes would
// take 6 GB. A real record runs 4 to 6 bytes of text per value (36.5 million in a sweep record
// of 204 MB), so this admits any real record up to the size limit and bounds the parse to about
// 3 GB.
constexpr std::size_t kMaxValues = std::size_t{64} << 20;
// A clock in MHz, of the device state or a row's board (which an older record's rows take from
// the device state): a million MHz is beyond any chip, and no clock reads below zero.
constexpr int kMaxClockMhz = 1'000'000;
// A duration: 10^15 ns is 11.6 days, beyond any call gpumeter would time.
constexpr double kMaxNanos = 1e15;
// Declared work per call and measured ceilings: 10^24 (a yotta-op per call) is beyond any GPU.
constexpr double kMaxWork = 1e24;
// Kernels per iteration, retries, iterations per phase.
constexpr std::int64_t kMaxCount = 1'000'000'000;
// Two stored numbers that a record derives (summaries, rates, comparisons, ceilings) agree when
// they differ by at most this fraction of the larger: a stored time passes through ms and back
// (two roundings, a few parts in 10^16), so this leaves four orders of magnitude of room and
// still sees an edit in the 12th significant digit, whatever the value's size (a bound that was
// absolute below 1 let a TFLOP/s of 0.5 change by 2e-9 of itself).
constexpr double kDerivedTolerance = 1e-12;

// The kinds of string a record holds and the most bytes of each (record.hpp says why).
struct TextKind {
  std::size_t most;
  std::string_view what;
};
constexpr TextKind kName{kMaxNameBytes, "a name"};
constexpr TextKind kText{kMaxTextBytes, "a text"};
constexpr TextKind kArgument{kMaxArgumentBytes, "a command-line argument"};

inline double ms_of(double ns) {
  return ns / 1e6;
}
inline double ns_of(double ms) {
  return ms * 1e6;
}

// Writer pieces the run's journal (run_recorder.hpp) writes line by line, each as the record holds
// it. Every one throws Error for what a record cannot hold (record_io.hpp, serialize).
Json header_json(const Record& record);  // every field but results, failures and comparisons
// `own`: the board of a row that names none (its record's device's); `version`: the record's
// schema version, whose fields are written; `with_flags`: false for a journal's line, whose rows'
// flags are decided when the record is finished (or the journal read).
Json result_json(const Result& result, std::size_t index, const Board& own,
                 int version = kRecordSchemaVersion, bool with_flags = true);
Json failure_json(const Failure& failure);
Json ceilings_json(const Ceilings& ceilings);
Json comparison_json(const Comparison& comparison);
Json text_json(const std::string& text);  // a deviation

// The problem with the first comparison whose difference no number can state, or "" (both the
// reader and a run's recorder refuse such a record).
std::string unstatable_comparison(const std::vector<Comparison>& comparisons);

// Why a run's recorder refuses to write its record (RunRecorder::finish): a comparison
// unstatable_comparison finds, its case named, and the journal that keeps the rows measured
// (`journal`), so they are not lost with the record; "" where the record can be written.
std::string refused_record(const std::vector<Comparison>& comparisons, const std::string& journal);

// Record text quoted in a message: control characters escaped, at most 80 characters.
std::string record_text(std::string_view text);

// A run's journal (run_recorder.hpp), one JSON object a line, each line one key:
//   {"journal":"gpumeter-run-journal","journal_version":1,"cases":T,"record":HEADER}  (first)
//   {"setup":HEADER}       what the cases were measured with, learnt after the first line
//   {"deviation":TEXT}     one more deviation of the run
//   {"ceilings":CEILINGS}  the run's ceilings from here on (later rows' summaries are of them)
//   {"case":{"results":[RESULT...],"failures":[FAILURE...]}}  one finished case
// HEADER is a record without results, failures and comparisons; the rest as a record holds them.
// A new kind of line, or a change to one, is a new journal_version.
inline constexpr std::string_view kJournalName = "gpumeter-run-journal";
inline constexpr int kJournalVersion = 1;
// How every journal starts, byte for byte: what tells a journal from a record.
inline constexpr std::string_view kJournalStart = "{\"journal\":";

std::string journal_header_line(const Record& header, std::size_t planned_cases);
std::string journal_setup_line(const Record& measured);
std::string journal_deviation_line(const std::string& deviation);
std::string journal_ceilings_line(const Ceilings& ceilings);
// `first_index` is the index of the case's first result in the run (it names them in errors).
std::string journal_case_line(const std::vector<Result>& results, std::size_t first_index,
                              const std::vector<Failure>& failures, const Board& own);

// The record a journal holds, marked partial (journal_reader.cpp). InvalidRecord names `path`.
Record parse_journal(std::string_view text, const std::string& path);

// The words a record holds for a timing method and a statistic: the record format's, as the
// first backends wrote them (the vendor tools' words for some), kept so that every record ever
// written reads the same. Users read the core's names (kTimingMethodNames); only the writer and
// the reader spell these (record_words.cpp), the reader taking each as an alias of its method.
// The software versions a record's device_state holds, each a field of its own, null where not
// read (the first backend's, in its order): a DeviceState names its versions, the record keeps
// these keys, and a version the format has no field for is refused on writing.
inline constexpr std::string_view kSoftwareVersionFields[] = {
    "cuda_driver_version", "cuda_runtime_version", "cupti_version"};
bool is_software_version_field(std::string_view name);

std::string_view record_word(TimingMethod method);
std::string_view record_word(Statistic statistic);
std::optional<TimingMethod> method_of_record_word(std::string_view word);
std::optional<Statistic> statistic_of_record_word(std::string_view word);

}  // namespace gpumeter::record_json
