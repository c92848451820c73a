#pragma once
// The record model: the only source of tables (docs/rules.md, "evidence records"). Serialization
// lives in record_io.hpp; this header is plain data.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/board.hpp"
#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/device.hpp"
#include "gpumeter/detail/measurement.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/program.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/row_flags.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/tolerance.hpp"

namespace gpumeter {

// Bumped on any change a reader of an older version could misread. Version 2 keeps each
// result's pass sizes and timestamp step, and the comparisons with the rule that applied;
// version 3 adds each result's null test, memory and per-sample clock state, and the run's
// instrumentation cost per launch (a version 2 reader would show a row whose null test failed
// as a good one). Version 4 adds each result's timestamp-unit check (a version 3 reader would
// show a row converted from another client's clock as an ordinary one), flags a sample's clock by
// the rule of clock_state.hpp (below 95% of the row's highest clock, or a thermal or hardware
// slowdown; no longer the routine power cap) and adds each row's clock range and samples per
// throttle reason to its summary (a version 3 reader would refuse the new counts as altered),
// and times the ceilings like the rows, keeping how (method, statistic, rule, each run's
// samples), and marks each percent of a ceiling above 100 (a version 3 reader would show 103%
// bare). Older records still read: what they lack reads "not recorded", a version 3 count is
// checked by version 3's rule, and version 1 comparisons are recomputed, and refused where passes
// are needed. An older record holding a field a later version added is refused: read by its
// version's rules, the field would be dropped unread. Version 5 adds each result's `precision`
// (a measurement run to a target precision: target, cap, width reached, passes, why it stopped),
// which a version 4 reader would drop, showing a capped run as an ordinary one. Version 6 adds the
// run's phases, measured totals of N calls and each candidate's runtime (phases.hpp), which a
// version 5 reader would drop, showing a candidate's warm call as all it costs. Version 7 adds the
// program a run timed by its NVTX ranges (program.hpp: its command, processes, every range's
// instance counts, the kernels launched outside every range), which a version 6 reader would drop,
// showing a program's ranges as isolated calls and hiding the kernels no range held. Within
// version 7 (none published with it before), the optional `shard` section of a sweep's shard:
// which shard, and the dealing of every case. Version 8 adds each row's board (board.hpp: its
// device's uuid and name, the clocks read when its run began), which a version 7 reader would
// drop, taking a merge of runs on two boards of one kind for rows of one board; and the work of
// the harness's roles in each ledger (inputs, reset, check) and each comparison's means per call
// and inputs, which the rules of kComparisonRulesVersion 8 judge. Version 9 adds no field: its
// intervals are at 99% with a smaller allowance for the timestamp step (comparison.hpp's
// interval_rules_of), so a version 8 record's comparisons are recomputed by version 8's rules.
// Version 10 states per row how it was measured (`origin`: gpumeter's own measurement, a program's
// NVTX range, or a row first measured before ledgers), and per record whether it merged program
// runs (`merged_programs`): which rows need a ledger follows from these and the version, checked
// against the rest of the record, where a version 9 reader took it from a phrase among the
// deviations, which anyone can write. It adds each result's `answer_check`, the tolerances its
// answers were checked with, which a version 9 reader would drop. It changes no comparison rule:
// its comparisons are judged by version 9's. Version 11 judges a host-clock comparison by the
// passes (host_clock.hpp: a claim only where the interval of the passes excludes no difference,
// the medians differ by 1.5x and the means agree), and adds each result's `load_average`, the
// host's load when it was measured, which a version 10 reader would drop; a comparison whose
// passes bound no interval is recorded unresolved, where version 10 refused the record. A version
// 9 or 10 record is held and written back as version 10, its comparisons by its own rules.
// Within version 11 (none published with it before), two host-clock rows that both read at or
// under the clock's floor (host_clock.hpp, kHostCallOverheadFloorNs) are never said to differ.
// Version 12 adds each result's `yardstick` (host_clock.hpp): the work a front end timed in passes
// interleaved with the row's and its level in each pass, by which a comparison with a row of
// another run reads each side against the load of its own minutes; a version 11 reader would drop
// it, judging such rows by the floor of rows never interleaved. It changes no rule of the
// comparisons a record holds (those are of one run): version 11's are its. Version 12 also adds
// each result's `flags` (row_flags.hpp: clock, retries, copies, drops, call overhead), decided
// once where the record is finished and checked on reading; a record before version 12 has its
// rows' flags decided when it is read.
inline constexpr int kRecordSchemaVersion = 12;
// The version from which each result states its yardstick (null: none).
inline constexpr int kYardstickSince = 12;
// The version from which each result states its flags.
inline constexpr int kRowFlagsSince = 12;
// The version from which each result states the host's load average when it was measured.
inline constexpr int kLoadAverageSince = 11;
// The version from which each row states its origin and each record whether it merged programs.
inline constexpr int kRowOriginsSince = 10;
// A version that changes a comparison rule raises kComparisonRulesVersion to itself (11); one that
// changes none (10) leaves it, and its records are judged by the latest rules before it.
static_assert(kComparisonRulesVersion <= kRecordSchemaVersion,
              "comparison.hpp's rules are those of a record schema this gpumeter writes");
inline constexpr int kOldestReadableSchemaVersion = 1;
inline constexpr const char* kRecordSchemaName = "gpumeter.record";

// The most bytes one string of a record may hold, by what the string is. A record is read by people
// and rendered into tables; one string far beyond its kind's use (a case name of megabytes,
// repeated in every table of a report) is a forged record, refused on reading. The writer refuses a
// row's name (case, implementation, param) over its limit, as the runner does before measuring, and
// cuts any other string to its limit, saying so, so a run never writes a record it cannot read.
//
// A name: what identifies a row or is printed on every row of a table (case, implementation,
// each param's name and value, the device's kind and name, run_id, an error's name). Real names
// run under 50 bytes; a table row of names longer than this cannot be read anyway, and the
// limit bounds a report to a small multiple of its record.
inline constexpr std::size_t kMaxNameBytes = 256;
// Any other text written once (messages, reasons, deviations, the host's and driver's
// descriptions): real ones run under 1 KiB; 64 KiB holds a long exception message with its
// context and stays a page of reading.
inline constexpr std::size_t kMaxTextBytes = std::size_t{64} << 10;
// One command-line argument (argv): Linux refuses a longer one (MAX_ARG_STRLEN, 32 pages), so no
// real record holds one. The largest of the three: no string of a record, a field this reader
// does not know included, may be longer.
inline constexpr std::size_t kMaxArgumentBytes = std::size_t{128} << 10;

struct HostIdentity {
  std::string hostname;
  std::string cpu_model;
  std::optional<int> logical_cores;
  std::string os;
};

struct RunConfig {
  Budget budget = kMeasureBudget;
  bool l2_flush = true;
  // What the flush did ("write", "write+read"), from the backend; "" when unknown or none.
  std::string l2_flush_mode;
  // "ABCCBA" (a lone implementation runs A A); records of version 1 may say "single".
  std::string schedule = "ABCCBA";
  // What the timing backend's instrumentation adds to each launch on the launching thread,
  // measured when the backend started (plain launches against launches inside a phase), so a
  // call's latency and gap can be read against it; nullopt when not measured.
  std::optional<Nanos> launch_cost_ns;
};

// Memory of one case, each figure in its own domain; nullopt where the counter could not be read
// (never a zero in its place).
struct MemoryUse {
  // NVML: this process's device memory when the timing backend started (the context floor:
  // the CUDA context and gpumeter's own buffers, before any case), and after the case was
  // measured, its buffers still held. NVML counts in its own granularity (1 or 2 MiB).
  std::optional<long long> gpu_context_floor_bytes;
  std::optional<long long> gpu_after_case_bytes;
  // VmHWM: the process's peak resident host memory while the case ran (reset before it where
  // the kernel allows, else since the process started).
  std::optional<long long> host_peak_rss_bytes;
  // The case ran in a process of its own (--isolate): every figure is the case's alone.
  bool own_process = false;
  // The peak was reset before the case (false: it covers the process since it started).
  bool host_peak_reset = false;

  // After the case less the floor: what the case's workload holds on the device.
  std::optional<long long> gpu_workload_bytes() const {
    if (!gpu_context_floor_bytes || !gpu_after_case_bytes) return std::nullopt;
    return *gpu_after_case_bytes - *gpu_context_floor_bytes;
  }
};

struct Result {
  RowKey row;
  // Whether copies counted as device time: the case's flag, so a reader knows what busy holds.
  bool count_copies = false;
  Measurement measurement;
  Summary summary;
  Workload workload;
  MemoryUse memory;  // the case's; the same for each of its implementations
  // The board it ran on; unnamed until its record's assembler fills it (fill_boards).
  Board board;
  // The tolerances gpumeter's check held its answers to (its case's); nullopt where it made none.
  std::optional<AnswerCheck> answer_check;

  // Decided once, where the result is finished (summarize_result, finish_record), and checked
  // by the reader like every derived value: front ends read these and decide neither.
  // The null test's outcome, from measurement.null_test's samples; nullopt without them.
  std::optional<NullTestOutcome> null_test_outcome;
  // The row's flags, against its record's highest clock (row_flags.hpp).
  RowFlags flags;

  // The null test failed: its times may not be its work's, so they are not shown.
  bool null_test_failed() const { return null_test_outcome && null_test_outcome->failed(); }
};

// A case (or one implementation of it) that produced no number, and why: the error's type
// and message. Its cells read "not measured"; the rest of the run keeps its numbers.
struct Failure {
  RowKey row;           // implementation "" when the case failed as a whole
  std::string error;    // "OffThreadLaunch", "VerificationFailed", ...
  std::string message;  // what happened and what to do
  // The error itself, with its fields (the iteration, the kernel, the step...), in the process
  // that caught it, so a front end can raise it again as it was thrown. Never written to a file:
  // a failure read from a record has none.
  std::exception_ptr thrown = nullptr;
};

struct Record {
  int schema_version = kRecordSchemaVersion;
  std::string run_id;       // unique per run; also in the file name
  std::string created_utc;  // ISO 8601
  std::string gpumeter_version;
  std::vector<std::string> argv;
  std::string project_commit;  // the measured project's commit, "" when unknown
  HostIdentity host;
  DeviceIdentity device;
  DeviceState device_state;
  Ceilings ceilings;
  RunConfig config;
  std::vector<std::string> deviations;  // departures from the protocol, never hidden
  std::vector<Result> results;
  std::vector<Failure> failures;
  // compare_results(results), stored with the rule each applied; never edited by hand.
  std::vector<Comparison> comparisons;
  // The phases a user waits for, measured totals of N calls, and the runtime each candidate
  // launched through (phases.hpp); empty for a run of warm calls only.
  std::vector<PhaseReading> phases;
  std::vector<MeasuredTotal> totals;
  std::vector<CandidateRuntime> runtimes;
  // Set for a program timed by its NVTX ranges (`gpumeter run`); nullopt for every other run.
  std::optional<ProgramRun> program;
  // Set for one shard of a sweep (--shard K/N, or the scheduler's array index): which shard, and
  // the dealing of every case of the sweep; nullopt for a whole sweep (a merge of every shard
  // included).
  std::optional<ShardPlan> shard;
  // A merge that joined program runs (merge.hpp): their rows are here, their program sections are
  // in the records merged. Only such a record, or a program's own, may hold rows of program ranges.
  bool merged_programs = false;
};

// A record read from a schema version before 8 whose CUPTI rows hold no ledger (no canary was
// recorded then) says so, once read, in a deviation that starts with this mark, so every report
// shows why they have none. The rows themselves say it (RowOrigin::before_ledgers); the mark is
// also how a record of version 8, the version such a record is written back as, says it (version
// 8 had no field for it), and only there is it read.
inline constexpr std::string_view kBeforeLedgersMark = "rows measured before ledgers: ";

// A record written while its run was still going (after each case, so that a crash keeps what
// was measured) says so in a deviation that starts with this mark; the complete record replaces
// it. Whoever reads two records against each other (`gpumeter compare`) must know that the rows
// one lacks may simply not have run yet.
inline constexpr std::string_view kPartialRecordMark = "partial record: ";

inline std::string partial_record_deviation(std::size_t done, std::size_t total) {
  return std::string(kPartialRecordMark) + "the run had finished " + std::to_string(done) + " of " +
         std::to_string(total) +
         " cases when this was written, and did not finish (a complete record replaces this "
         "file when it does)";
}

// The deviation that marks `record` as partial, or "" for a complete record.
inline std::string partial_record_note(const Record& record) {
  for (const std::string& d : record.deviations) {
    if (d.rfind(kPartialRecordMark, 0) == 0) return d;
  }
  return {};
}

// Copies what the rows of `from` were measured with (the project's commit, host, device and its
// state, ceilings, configuration) into `to`: the header of a record assembled from others.
inline void copy_measured_setup(const Record& from, Record& to) {
  to.project_commit = from.project_commit;
  to.host = from.host;
  to.device = from.device;
  to.device_state = from.device_state;
  to.ceilings = from.ceilings;
  to.config = from.config;
}

// A row that names no board of its own ran on its record's device. Whoever assembles a record
// from a run (the recorder, the runner, the writer) or joins records (merge) fills them so.
inline void fill_boards(Record& record) {
  const Board own = board_of(record.device, record.device_state);
  for (Result& r : record.results) {
    if (!r.board.known()) r.board = own;
  }
}

// What a record derives from its raw parts, in one place: every path that makes a record (a run,
// a sweep's case process, the recorder, a merge, a program run) or reads one (the reader derives
// a copy and checks what is stored against it) calls these, and reporters only read what they
// set, so a number shown anywhere is the one these rules give.
//
// A result's summary from its samples, timing method, retries and declared workload, its
// percentages of `ceilings` (its record's), and its null test's outcome.
void summarize_result(Result& result, const Ceilings& ceilings);
// What the record derives from its rows once they are all in, from summaries that are current:
// each row's flags (against the highest clock of the record's rows), and the comparisons, by the
// comparison rules of `schema_version` (a record read from a file is judged by the rules of its
// own version).
void finish_record(Record& record, int schema_version = kComparisonRulesVersion);
// Every result summarized against the record's ceilings, then finish_record.
void finish(Record& record, int schema_version = kComparisonRulesVersion);

// Appends the deviations of `from` that `to` does not hold yet, in their order.
inline void add_deviations_once(const Record& from, Record& to) {
  for (const std::string& d : from.deviations) {
    if (std::find(to.deviations.begin(), to.deviations.end(), d) == to.deviations.end()) {
      to.deviations.push_back(d);
    }
  }
}

}  // namespace gpumeter
