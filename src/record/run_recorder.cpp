#include "gpumeter/run_recorder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "record_json.hpp"
#include "temporary_file.hpp"

namespace gpumeter {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

}  // namespace

namespace record_json {

std::string refused_record(const std::vector<Comparison>& comparisons, const std::string& journal) {
  const std::string problem = unstatable_comparison(comparisons);
  if (problem.empty()) return {};
  // The journal keeps every row measured; it is named so they are not lost with the record.
  return "refusing to write a record that would not read back: " + problem +
         "; the rows measured are kept in the journal " + journal;
}

}  // namespace record_json

RunRecorder::RunRecorder(fs::path dir, std::size_t planned_cases,
                         std::chrono::milliseconds interval)
    : dir_(std::move(dir)), planned_(planned_cases), interval_(interval) {}

RunRecorder::~RunRecorder() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    try {
      if (!finished_) {
        write_pending_locked();
        if (unsynced_) sync_locked();
      }
    } catch (const std::exception&) {
      // Nothing to tell anyone from a destructor: the journal holds what it could.
    }
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (journal_fd_ >= 0) ::close(journal_fd_);
}

fs::path RunRecorder::journal_path() const {
  return dir_ / journal_file_name(record_.run_id);
}

void RunRecorder::begin(Record header) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (begun_) throw Error("internal: a run's recorder was begun twice");
  header.results.clear();
  header.failures.clear();
  header.comparisons.clear();
  record_ = std::move(header);
  std::string first = record_json::journal_header_line(record_, planned_);
  const fs::path path = journal_path();
  // The journal's name is the run's own (run-unique): O_EXCL, it is never another's.
  journal_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (journal_fd_ < 0) {
    throw Error("cannot create the run's journal " + path.string() + ": " +
                std::generic_category().message(errno));
  }
  // Held while the run lives: a reader can tell a live run's journal from a dead one's.
  (void)::flock(journal_fd_, LOCK_EX | LOCK_NB);
  begun_ = true;
  pending_ = std::move(first);
  write_pending_locked();
  sync_locked();
  thread_ = std::thread([this] { flusher(); });
}

void RunRecorder::append_locked(const std::string& line) {
  if (!begun_ || finished_) throw Error("internal: a run's recorder used outside begin..finish");
  pending_ += line;
}

void RunRecorder::set_measured_setup(const Record& measured) {
  std::lock_guard<std::mutex> lock(mutex_);
  copy_measured_setup(measured, record_);
  summaries_stale_ = summaries_stale_ || !record_.results.empty();
  append_locked(record_json::journal_setup_line(record_));
}

void RunRecorder::set_ceilings(const Ceilings& ceilings) {
  std::lock_guard<std::mutex> lock(mutex_);
  record_.ceilings = ceilings;
  summaries_stale_ = summaries_stale_ || !record_.results.empty();
  append_locked(record_json::journal_ceilings_line(ceilings));
}

void RunRecorder::add_deviation(const std::string& deviation) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& d : record_.deviations) {
    if (d == deviation) return;
  }
  append_locked(record_json::journal_deviation_line(deviation));
  record_.deviations.push_back(deviation);
}

void RunRecorder::add(std::vector<Result> results, std::vector<Failure> failures) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Each row summarized once, here, with the ceilings its journal line is read with.
  for (Result& r : results) summarize_result(r, record_.ceilings);
  // B10: a row that names no board ran on this run's device.
  const Board own = board_of(record_.device, record_.device_state);
  for (Result& r : results) {
    if (!r.board.known()) r.board = own;
  }
  append_locked(record_json::journal_case_line(results, record_.results.size(), failures, own));
  for (Result& r : results) record_.results.push_back(std::move(r));
  for (Failure& f : failures) record_.failures.push_back(std::move(f));
  ++cases_;
}

bool RunRecorder::checkpoint(bool force) {
  bool synced = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!begun_ || finished_) return false;
    write_pending_locked();
    if (unsynced_ && (force || Clock::now() - last_sync_ >= interval_)) {
      sync_locked();
      synced = true;
    }
  }
  if (!synced) wake_.notify_all();  // the recorder's thread syncs it when the interval is over
  return synced;
}

void RunRecorder::write_pending_locked() {
  std::string_view left = pending_;
  while (!left.empty()) {
    const ssize_t n = ::write(journal_fd_, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error("cannot write the run's journal " + journal_path().string() + ": " +
                  std::generic_category().message(errno));
    }
    left.remove_prefix(static_cast<std::size_t>(n));
  }
  unsynced_ = unsynced_ || !pending_.empty();
  bytes_ += pending_.size();
  pending_.clear();
}

void RunRecorder::sync_locked() {
  // The data, not the file's times: what a power cut must not lose (a process that dies loses
  // nothing written: the kernel holds it).
  if (::fdatasync(journal_fd_) != 0) {
    throw Error("cannot write the run's journal " + journal_path().string() + ": " +
                std::generic_category().message(errno));
  }
  unsynced_ = false;
  last_sync_ = Clock::now();
}

void RunRecorder::flusher() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (!unsynced_ || finished_) {
      wake_.wait(lock);
      continue;
    }
    const auto due = last_sync_ + interval_;
    if (Clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;
    }
    try {
      sync_locked();
    } catch (const std::exception&) {
      // The sweep's next forced checkpoint meets the same error and says it.
      unsynced_ = false;
    }
  }
}

fs::path RunRecorder::write_partial(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  Record partial = record_;
  // Summaries are made as rows arrive; again only when the ceilings changed after some did.
  if (summaries_stale_) {
    gpumeter::finish(partial);
  } else {
    finish_record(partial);
  }
  partial.deviations.push_back(why);
  const fs::path target = dir_ / partial_record_file_name(record_.run_id);
  const std::string text = serialize(partial);
  write_file_atomically(target, text, true);
  bytes_ += text.size();
  finished_ = true;
  std::error_code ec;
  fs::remove(journal_path(), ec);
  return target;
}

fs::path RunRecorder::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!begun_ || finished_) throw Error("internal: a run's recorder finished outside begin");
  // Only when the ceilings changed after rows were added (a sweep of isolated cases).
  if (summaries_stale_) {
    gpumeter::finish(record_);
  } else {
    finish_record(record_);
  }
  summaries_stale_ = false;
  // What the reader would refuse is refused here, before anything is written (the reader's own
  // check, not a read-back of the text).
  if (const std::string refused =
          record_json::refused_record(record_.comparisons, journal_path().string());
      !refused.empty()) {
    throw Error(refused);
  }
  const fs::path target = dir_ / record_file_name(record_.run_id);
  const std::string text = serialize(record_);
  write_file_atomically(target, text, false);
  bytes_ += text.size();
  finished_ = true;
  pending_.clear();
  std::error_code ec;
  fs::remove(journal_path(), ec);
  return target;
}

Record RunRecorder::take_record() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!finished_) throw Error("internal: a run's record taken before it was written");
  return std::move(record_);
}

bool RunRecorder::begun() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return begun_;
}

std::size_t RunRecorder::cases() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cases_;
}

std::uint64_t RunRecorder::bytes_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace gpumeter
