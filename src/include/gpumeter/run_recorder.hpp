#pragma once
// The record of one run, kept as the run goes: the header once, each case as it finishes, a
// journal on disk that grows by what is new (so a run killed at any moment, SIGKILL included,
// leaves the cases it finished where `gpumeter report` and `merge` read them), and the complete
// record written once at the end. What the recorder built is serialized once and never parsed
// back: the reader is the gate for files, not for what this process holds.
//
// The journal ("gpumeter-<run_id>.partial.jsonl", one JSON object a line, docs/records.md) is
// appended to, never rewritten: a checkpoint costs time in proportion to what it adds, and a
// whole run's journal is about the size of its record. A checkpoint hands what is new to the
// kernel at once (a write: a process that crashes or is killed a moment later loses nothing), and
// syncs it to the disk at most once per interval (the fsync is the cost; a power cut loses at
// most that interval). A sync a checkpoint leaves is done by the recorder's own thread when the
// interval has passed, so a long case does not hold the finished ones back.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpumeter/record.hpp"

namespace gpumeter {

// About once a second: a kill loses at most a second of finished cases, and a sweep of tiny
// cases spends one fsync a second on its journal, not one a case.
inline constexpr std::chrono::milliseconds kCheckpointInterval{1000};

// Every member may be called from any thread (an interruption's handler writes the partial
// record while the sweep's thread may be adding a case); each takes the recorder's lock.
class RunRecorder {
 public:
  // `planned_cases`: how many cases the run means to measure (the partial record says how many
  // of them it holds). Nothing is written before begin().
  RunRecorder(std::filesystem::path dir, std::size_t planned_cases,
              std::chrono::milliseconds interval = kCheckpointInterval);
  // Stops the recorder's thread. A journal not finished stays: it is the run's evidence.
  ~RunRecorder();
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  // Once per run, first: what the run was measured with (run id, argv, host, device, its state,
  // ceilings, configuration, deviations) and no rows. Creates the journal and writes its first
  // line, synced. Throws Error (the header cannot be written, the journal cannot be made).
  void begin(Record header);

  // What the cases were measured with, when only they could read it (a case in a process of its
  // own): replaces the header's project commit, host, device, device state, ceilings and
  // configuration.
  void set_measured_setup(const Record& measured);
  // The run's ceilings from now on: every row is summarized with them (its percentages of peak),
  // those added before as well.
  void set_ceilings(const Ceilings& ceilings);
  // One more deviation, unless the record holds it already.
  void add_deviation(const std::string& deviation);
  // One finished case: its rows (summarized here, with the run's ceilings) and its failures.
  void add(std::vector<Result> results, std::vector<Failure> failures = {});

  // Appends what is new since the last checkpoint to the journal, and syncs it if the last sync
  // is an interval old (or `force`; otherwise the recorder's thread syncs it when the interval is
  // over). Returns whether it synced now. Throws Error when the journal cannot be written.
  bool checkpoint(bool force = false);

  // An interrupted run: the record of the cases finished, with `why` as its partial-record
  // deviation (it starts with kPartialRecordMark), written atomically as
  // partial_record_file_name(run_id), and the journal removed. Returns the path.
  std::filesystem::path write_partial(const std::string& why);

  // The end of the run: the comparisons computed once, the record written atomically under
  // record_file_name(run_id) (never over another), the journal removed. Returns the path; the
  // record written is record(). Throws Error when it cannot be written (the journal stays).
  std::filesystem::path finish();

  // The run's record as it stands (after finish(), exactly what was written). Not for use while
  // another thread may add to it.
  const Record& record() const { return record_; }
  // The record, moved out once finish() has written it (for printing it without a copy).
  Record take_record();
  bool begun() const;
  std::size_t cases() const;
  // Bytes written so far to the journal and the record (what the run costs its disk).
  std::uint64_t bytes_written() const;
  std::filesystem::path journal_path() const;

 private:
  void append_locked(const std::string& line);
  void write_pending_locked();
  void sync_locked();
  void flusher();

  std::filesystem::path dir_;
  std::size_t planned_;
  std::chrono::milliseconds interval_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  Record record_;
  bool begun_ = false;
  bool finished_ = false;
  bool stopping_ = false;
  bool summaries_stale_ = false;  // the ceilings changed after rows were summarized
  std::size_t cases_ = 0;
  int journal_fd_ = -1;
  std::string pending_;    // lines not yet in the journal
  bool unsynced_ = false;  // lines in the journal not yet synced
  std::chrono::steady_clock::time_point last_sync_{};
  std::uint64_t bytes_ = 0;
  std::thread thread_;
};

}  // namespace gpumeter
