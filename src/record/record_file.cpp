// Records as files: reading one (bounded, without blocking), writing one atomically under a
// run-unique name, the names themselves, and the run id.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "record_json.hpp"
#include "temporary_file.hpp"

namespace gpumeter {
namespace {

using record_json::record_text;

}  // namespace

Record read_record(const std::filesystem::path& file) {
  const std::string name = file.string();
  // Non-blocking: opening a FIFO with no writer must not wait; it is refused below anyway.
  const int raw = ::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (raw < 0)
    throw InvalidRecord(name,
                        fmt::format("cannot open ({})", std::generic_category().message(errno)));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{raw};
  struct stat st {};
  if (::fstat(raw, &st) != 0) {
    throw InvalidRecord(name,
                        fmt::format("cannot read ({})", std::generic_category().message(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw InvalidRecord(name,
                        "not a regular file (a record is a file; a device, FIFO or "
                        "directory is not read)");
  }
  if (static_cast<unsigned long long>(st.st_size) > kMaxRecordBytes) {
    throw InvalidRecord(name, fmt::format("{} bytes, larger than the {} bytes a record may be",
                                          st.st_size, kMaxRecordBytes));
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(raw, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InvalidRecord(name,
                          fmt::format("cannot read ({})", std::generic_category().message(errno)));
    }
    if (n == 0) break;
    // The file may grow while it is read: the limit holds for what is read, not what was seen.
    if (text.size() + static_cast<std::size_t>(n) > kMaxRecordBytes) {
      throw InvalidRecord(
          name, fmt::format("larger than {} bytes, the most a record may be", kMaxRecordBytes));
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return parse_record(text, name);
}

std::vector<Record> read_records(const std::vector<std::filesystem::path>& files) {
  std::vector<Record> records;
  records.reserve(files.size());
  std::map<std::string, std::string> seen;  // run_id -> the file it came from
  for (const auto& file : files) {
    records.push_back(read_record(file));
    const auto [it, fresh] = seen.emplace(records.back().run_id, file.string());
    if (!fresh) {
      throw InvalidRecord(file.string(),
                          fmt::format("the same record (run_id {}) as {}; give each record once",
                                      record_text(records.back().run_id), it->second));
    }
  }
  return records;
}

namespace {

// Checked, because it becomes part of a path.
const std::string& checked_run_id(const std::string& run_id) {
  const bool usable =
      !run_id.empty() && run_id.front() != '.' &&
      run_id.find_first_not_of(
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
  if (!usable) {
    throw Error(
        fmt::format("run_id \"{}\" cannot name a record file (use [A-Za-z0-9._-])", run_id));
  }
  return run_id;
}

}  // namespace

std::string record_file_name(const std::string& run_id) {
  return "gpumeter-" + checked_run_id(run_id) + ".json";
}

std::string partial_record_file_name(const std::string& run_id) {
  return "gpumeter-" + checked_run_id(run_id) + ".partial.json";
}

std::string journal_file_name(const std::string& run_id) {
  return "gpumeter-" + checked_run_id(run_id) + ".partial.jsonl";
}

std::filesystem::path write_record_to(const Record& record, const std::filesystem::path& file,
                                      std::string* text_written) {
  const std::filesystem::path& target = file;
  const std::filesystem::path dir =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const std::string text = serialize(record);
  // A record this gpumeter cannot read back is evidence nobody can use: refuse it now.
  try {
    static_cast<void>(parse_record(text, target.string()));
  } catch (const InvalidRecord& e) {
    throw Error(fmt::format("refusing to write a record that would not read back: {}", e.what()));
  }

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error(fmt::format("cannot create record directory {}: {}", dir.string(), ec.message()));
  }

  // Same directory, so the final link stays on one file system and is atomic; a writer killed
  // before it leaves a temporary the next record written here removes.
  remove_stale_temporaries(dir);
  write_file_atomically(target, text, false);
  if (text_written != nullptr) *text_written = text;
  return target;
}

std::filesystem::path write_record(const Record& record, const std::filesystem::path& dir,
                                   std::string* text_written) {
  return write_record_to(record, dir / record_file_name(record.run_id), text_written);
}

std::string new_run_id() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::random_device random;  // the OS's random source (getrandom) in libstdc++
  const auto bits = static_cast<std::uint32_t>(random());
  return fmt::format("{}-{}-{:08x}", stamp, static_cast<long>(::getpid()), bits);
}
}  // namespace gpumeter
