#pragma once
// Files a run writes in its output directory before they are complete (P10): a record on its
// way to its name, a partial record replacing the last one, a case's record and log under
// --isolate. None may survive a kill as litter. A named one is locked (flock) by its writer
// for as long as the writer holds it open, and every later run (a benchmark program's start,
// every record written into the directory) removes the ones whose lock is free: their writer is
// gone. Files that are only handed from process to process have no name at all.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpumeter {

// Every named temporary starts so: hidden, and known to the clean-up of later runs.
inline constexpr std::string_view kTemporaryPrefix = ".gpumeter-tmp-";

// A new file in `dir`, named kTemporaryPrefix + `purpose` + a random suffix, open for reading
// and writing and locked by this object until it is published or destroyed. Throws Error
// naming the directory when it cannot be made.
class TemporaryFile {
 public:
  TemporaryFile(const std::filesystem::path& dir, std::string_view purpose);
  ~TemporaryFile();  // removes the file unless it was published
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  TemporaryFile(TemporaryFile&&) = delete;
  TemporaryFile& operator=(TemporaryFile&&) = delete;

  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }

  // Writes all of `text`, then fsyncs. Throws Error naming `what` (the file's final name).
  void write_synced(std::string_view text, const std::string& what);
  // Gives the file the name `target`: `replace` renames over an existing file atomically;
  // otherwise the name must be free (a link that fails rather than overwrite; records are never
  // overwritten). Throws Error naming `target`.
  void publish(const std::filesystem::path& target, bool replace);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  bool published_ = false;
};

// The one way gpumeter writes a finished file (a record, a partial record, a merged record):
// a temporary in the target's directory, written and fsynced, then given its name (a rename over
// an existing file when `overwrite`; otherwise a link that fails if the name exists, or
// renameat2(RENAME_NOREPLACE) where the file system has no links), and the directory fsynced so
// the name is durable too. Throws Error naming `target`.
void write_file_atomically(const std::filesystem::path& target, std::string_view text,
                           bool overwrite);

// An open file in `dir` that has no name (O_TMPFILE; where the file system has none, a
// temporary removed as soon as it is open): nothing of it is left in `dir` by a kill at any
// moment. O_CLOEXEC; the caller closes it. Throws Error naming the directory.
int anonymous_file(const std::filesystem::path& dir);

// Makes `dir` ready for the records of a run before anything is measured: creates it, removes
// the temporaries of earlier runs there (remove_stale_temporaries), and writes and removes a
// temporary file. Throws Error saying why it cannot ("cannot create it (...)", "cannot create a
// temporary file in DIR: ...").
void prepare_output_directory(const std::filesystem::path& dir);

// Removes the temporaries in `dir` whose writer is gone (their lock is free). Names an earlier
// gpumeter used are left alone: their writers took no lock, so a live one cannot be told from a
// dead one. Never throws; returns how many it removed.
std::size_t remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace gpumeter
