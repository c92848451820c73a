// --isolate (isolate.hpp).
#include "isolate.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <string_view>

#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/option_table.hpp"
#include "gpumeter/row_status.hpp"
#include "spawn.hpp"
#include "temporary_file.hpp"

namespace gpumeter::program {
namespace {

namespace fs = std::filesystem;

// Closes a descriptor on every path out.
struct Descriptor {
  int fd = -1;
  explicit Descriptor(int f) : fd(f) {}
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
};

// All of a file read from its start, at most `limit` bytes (nullopt when longer).
std::optional<std::string> read_descriptor(int fd, std::size_t limit) {
  std::string text;
  char buffer[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (text.size() + static_cast<std::size_t>(n) > limit) return std::nullopt;
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  return text;
}

// The last line a case's process wrote to its log (its stdout and stderr).
std::string last_line(int log_fd) {
  struct stat st {};
  if (::fstat(log_fd, &st) != 0) return "";
  constexpr off_t kTail = 64 * 1024;
  const off_t from = st.st_size > kTail ? st.st_size - kTail : 0;
  std::string text(static_cast<std::size_t>(st.st_size - from), '\0');
  const ssize_t n = ::pread(log_fd, text.data(), text.size(), from);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  std::istringstream in(text);
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Where a case's process finds what its parent gives it (above 0 to 2, which it keeps).
constexpr int kChildRecordFd = 3;
constexpr int kChildLockFd = 4;

constexpr const char* kCrashed = kCrashedFailure;
constexpr const char* kTimeout = kTimeoutFailure;

}  // namespace

ChildResult run_child(const std::vector<std::string>& args, const fs::path& dir, int lock_fd,
                      double timeout_s, const std::function<void(pid_t)>& track) {
  const Descriptor record(anonymous_file(dir));
  const Descriptor log(anonymous_file(dir));
  if (record.fd < 0 || log.fd < 0) {
    throw Error(std::string("cannot prepare a process for the case: ") + std::strerror(errno));
  }
  SpawnRequest request;
  request.argv = args;
  request.program = "/proc/self/exe";  // this very program, wherever it was found
  request.descriptors = {
      {log.fd, STDOUT_FILENO}, {log.fd, STDERR_FILENO}, {record.fd, kChildRecordFd}};
  if (lock_fd >= 0) request.descriptors.emplace_back(lock_fd, kChildLockFd);
  // Ctrl-C reaches the whole process group: the parent handles it, and kills this process
  // itself once it has written what was measured.
  request.ignored_signals = {SIGINT, SIGHUP};
  // Killed when the thread that started it ends, which is the sweep's, for the whole sweep.
  request.die_with_parent = true;
  const Spawned spawned = spawn(request);
  if (spawned.pid < 0) {
    throw Error(std::string("cannot start a process for the case: ") +
                std::strerror(spawned.error));
  }
  track(spawned.pid);
  struct Forget {  // the process is reaped below on every path
    const std::function<void(pid_t)>& track;
    ~Forget() { track(0); }
  } forget{track};

  ChildResult out;
  const ChildExit exit = wait_for_child(spawned.pid, timeout_s);
  if (exit.timed_out) {
    out.failure_error = kTimeout;
    out.failure_message = "the case ran longer than --timeout " + format_significant(timeout_s, 3) +
                          " s and its process was killed; nothing of it was measured";
    return out;
  }
  if (!exit.signaled && exit.code <= kExitFailed) {
    try {
      const std::optional<std::string> text = read_descriptor(record.fd, kMaxRecordBytes);
      if (!text) throw InvalidRecord("the case's record", "larger than a record may be");
      out.record = parse_record(*text, "the case's record");
      return out;
    } catch (const InvalidRecord& e) {
      // A child that failed before it could write (a DeviceError choosing its backend) said why
      // in its log.
      out.failure_error = kCrashed;
      const std::string said = last_line(log.fd);
      out.failure_message = std::string("the case's process left no readable record: ") + e.what() +
                            (said.empty() ? "" : "; it last said: " + said);
      return out;
    }
  }
  out.failure_error = kCrashed;
  const std::string said = last_line(log.fd);
  if (exit.signaled) {
    out.failure_message = "the case's process was killed by signal " + std::to_string(exit.signal) +
                          " (" + strsignal(exit.signal) + ")";
  } else {
    out.failure_message = "the case's process exited with code " + std::to_string(exit.code);
  }
  if (!said.empty()) out.failure_message += "; it last said: " + said;
  return out;
}

bool has_ceilings(const Ceilings& c) {
  return c.flops_per_s || c.bytes_per_s;
}

// The arguments a child gets: the parent's, less what only the parent does, plus its case.
std::vector<std::string> child_args(const std::vector<std::string>& argv, std::size_t k,
                                    bool with_lock, const Ceilings& ceilings) {
  std::vector<std::string> out{argv.front()};
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const bool kept = !parent_only(option_role(a));
    if (kept) out.push_back(a);
    if (option_takes_value(a) && i + 1 < argv.size()) {
      ++i;  // its value is the next argument, never read as an option of its own
      if (kept) out.push_back(argv[i]);
    }
  }
  out.push_back("--gpumeter-child=" + std::to_string(k));
  out.push_back("--gpumeter-child-record-fd=" + std::to_string(kChildRecordFd));
  if (with_lock) out.push_back("--gpumeter-child-lock-fd=" + std::to_string(kChildLockFd));
  // The ceilings the first case measured, with their runs (a few KB of JSON): every case's
  // record then holds the same ceilings, and its percentages are of them.
  if (has_ceilings(ceilings))
    out.push_back("--gpumeter-child-ceilings=" + ceilings_to_json(ceilings));
  return out;
}

// A case's process keeps the descriptors its parent gave it to itself: a program the case's
// own code starts does not get them (and so cannot hold the device lock past the case).
void keep_child_descriptors(const Options& o) {
  for (const int fd : {o.child_record_fd, o.child_lock_fd}) {
    if (fd >= 0 && ::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
      throw ConfigError("internal: descriptor " + std::to_string(fd) + " was not given");
    }
  }
}

void write_child_record(int fd, const std::string& text) {
  for (std::string_view left = text; !left.empty();) {
    const ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(std::string("cannot hand the case's record over: ") + std::strerror(errno));
    left.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace gpumeter::program
