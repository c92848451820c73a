// The exclusive device lock (P1): an idle check through NVML outside the lock, then flock(2).
#include "gpumeter/device_lock.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/process_ids.hpp"
#include "procfs.hpp"

namespace gpumeter {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kIdlePoll = std::chrono::milliseconds(500);  // NVML, while waiting for idle
constexpr auto kLockPoll = std::chrono::milliseconds(50);   // flock, while another holds it
// Text from another process or a library goes into messages, the lock file and the record, cut
// so that each stays readable and bounded whatever the source holds:
// - a command line: the program and its first arguments, which tell one run from another; a
//   message may name several processes, each with its command;
using detail::kMaxCommandChars;
// - why something could not be read (NVML's reasons, about 80 characters a value, or a loader's
//   error naming the path it tried): room for several;
constexpr std::size_t kMaxCauseChars = 600;
// - a line an enclosing `gpumeter lock` passed on (kLockNoteEnv): its contention line names
//   every other process on the device with its command, and the environment is any process's
//   text.
constexpr std::size_t kMaxNoteLineChars = 2000;
// What is read of a file before the text is cut: more than any of the lengths above.
constexpr std::size_t kMaxReadBytes = 8192;
// /proc/locks lists every lock on the machine, a line each (about 60 bytes).
constexpr std::size_t kMaxProcLocksBytes = 1 << 20;
constexpr const char* kContendedPrefix = "contended: ";

using detail::command_of;
using detail::process_exists;

bool descends_from(long pid, long ancestor) {
  if (ancestor <= 0) return false;
  const std::vector<long> line = detail::lineage(pid);
  return std::find(line.begin(), line.end(), ancestor) != line.end();
}

std::string gib(long long bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return text;
}

std::string seconds(double s) {
  return format_significant(s, 2) + " s";
}

// The device as every report names it, with its uuid where known: "device cuda:0 (GPU-...)".
std::string device_named(int index, const std::string& uuid) {
  DeviceIdentity device;
  // A stand-in device id (tests of --devices, session.hpp) is the host CPU's.
  device.kind = uuid.rfind("stand-in-", 0) == 0 ? "host" : "cuda";
  device.index = index;
  device.uuid = uuid;
  return "device " + gpumeter::device_label(device, true);
}
// The pid /proc/locks names as holding a flock on `path`'s file, or 0.
long flock_holder_from_proc(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  std::istringstream locks(detail::read_bounded("/proc/locks", kMaxProcLocksBytes));
  std::string line;
  while (std::getline(locks, line)) {
    // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->" after "1:".
    std::istringstream f(line);
    std::string id, type, advisory, mode, where;
    long pid = 0;
    if (!(f >> id >> type) || type != "FLOCK") continue;
    if (!(f >> advisory >> mode >> pid >> where)) continue;
    unsigned int major_id = 0;
    unsigned int minor_id = 0;
    unsigned long inode = 0;
    if (std::sscanf(where.c_str(), "%x:%x:%lu", &major_id, &minor_id, &inode) != 3) continue;
    if (inode == st.st_ino && major_id == major(st.st_dev) && minor_id == minor(st.st_dev)) {
      return pid;
    }
  }
  return 0;
}

// The processes this one descends from (its parent, and up to init, which is left out).
std::set<long> ancestor_pids() {
  const std::vector<long> line = detail::lineage(static_cast<long>(::getppid()));
  return {line.begin(), line.end()};
}

// The pid to treat as the lock's current holder: the one the file names while it lives, else
// the one /proc/locks names; 0 when neither.
long current_holder(const std::string& path) {
  const LockHolder h = read_lock_holder(path);
  if (h.named && h.alive) return h.pid;
  return flock_holder_from_proc(path);
}

// What one NVML reading says about the device.
struct Verdict {
  bool checked = false;   // at least one of processes and memory was read
  std::string unchecked;  // what could not be read, and why
  std::string busy;       // what keeps it busy; "" when idle (or not checked)
  std::set<long> queue;   // processes excluded as the lock holder's
  std::string ancestors;  // this process's ancestors with a context: recorded, not contention
};

struct Exclusions {
  std::set<long> own;
  std::set<long> ancestors;   // a harness that started this process and waits for it
  long holder = 0;            // phase 1: the current holder, whose processes the lock waits for
  std::set<long> exiting_ok;  // after the wait: holders' processes seen before, if now gone
};

Verdict check_device(int index, const std::string& uuid, const DeviceLockOptions& o,
                     const Exclusions& ex) {
  Verdict v;
  const DeviceOccupancy occ = read_device_occupancy(uuid, index);
  std::string unread;
  for (const std::string& why : occ.unavailable) unread += (unread.empty() ? "" : "; ") + why;
  v.unchecked = one_line(unread, kMaxCauseChars);
  v.checked = occ.processes.has_value() || occ.free_bytes.has_value();
  if (!v.checked) return v;

  std::vector<std::string> others;
  std::vector<std::string> ancestors;
  long long returned = 0;  // memory of excluded processes, added back to the free memory
  auto describe = [](long pid, const ComputeProcess& p) {
    std::string what = "pid " + std::to_string(pid) + " (";
    const std::string cmd = process_exists(pid) ? command_of(std::to_string(pid)) : "";
    what += cmd.empty() ? std::string("not visible from here: another PID namespace?") : cmd;
    what += ", " + (p.used_bytes ? gib(*p.used_bytes) : std::string("memory not known")) + ")";
    return what;
  };
  if (occ.processes) {
    for (const ComputeProcess& p : *occ.processes) {
      const long pid = static_cast<long>(p.pid);
      if (ex.ancestors.count(pid) != 0) {
        ancestors.push_back(describe(pid, p));
        if (p.used_bytes) returned += *p.used_bytes;
        continue;
      }
      bool excluded = ex.own.count(pid) != 0;
      if (!excluded && ex.holder > 0 && descends_from(pid, ex.holder)) {
        excluded = true;
        v.queue.insert(pid);
      }
      if (!excluded && ex.exiting_ok.count(pid) != 0 && !process_exists(pid)) excluded = true;
      if (excluded) {
        if (p.used_bytes) returned += *p.used_bytes;
        continue;
      }
      others.push_back(describe(pid, p));
    }
  }
  for (std::size_t i = 0; i < ancestors.size(); ++i) {
    v.ancestors += (i > 0 ? ", " : "") + ancestors[i];
  }
  std::string busy;
  if (!others.empty()) {
    busy = std::to_string(others.size()) + " other compute process(es) on it: ";
    for (std::size_t i = 0; i < others.size(); ++i) busy += (i > 0 ? ", " : "") + others[i];
  }
  if (occ.free_bytes) {
    const long long usable = *occ.free_bytes + returned;
    if (usable < o.min_free_bytes) {
      if (!busy.empty()) busy += "; ";
      busy += "free memory " + gib(*occ.free_bytes);
      if (occ.total_bytes) busy += " of " + gib(*occ.total_bytes);
      if (returned > 0)
        busy += " (" + gib(usable) + " counting what this run and the processes it waits for hold)";
      busy += ", below the " + gib(o.min_free_bytes) + " floor";
    }
  }
  v.busy = busy;
  return v;
}

// Sleeps `d` in short slices, calling the caller's hook between them.
void wait_for(Clock::duration d, const DeviceLockOptions& o) {
  const auto until = Clock::now() + d;
  while (Clock::now() < until) {
    if (o.while_waiting) o.while_waiting();
    std::this_thread::sleep_for(std::min<Clock::duration>(kLockPoll, until - Clock::now()));
  }
}

// Polls until the device is idle or the idle timeout; one reading when contention is allowed.
Verdict wait_until_idle(int index, const std::string& uuid, const DeviceLockOptions& o,
                        Exclusions& ex, bool track_holder, const std::string& path) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(o.idle_timeout_s));
  for (;;) {
    if (track_holder) ex.holder = current_holder(path);
    Verdict v = check_device(index, uuid, o, ex);
    ex.exiting_ok.insert(v.queue.begin(), v.queue.end());
    if (!v.checked || v.busy.empty() || o.allow_contended) return v;
    if (Clock::now() + kIdlePoll > deadline) return v;
    wait_for(kIdlePoll, o);
  }
}

std::string busy_message(int index, const std::string& uuid, const DeviceLockOptions& o,
                         const std::string& busy, bool after_lock) {
  std::string m = device_named(index, uuid) + " is in use: " + busy;
  if (o.idle_timeout_s > 0) m += "; still so after " + seconds(o.idle_timeout_s);
  if (after_lock) m += " (checked again once the previous lock holder was done)";
  m += ". Wait until it is idle, or go ahead anyway with --allow-contended (allow_contended=True "
       "in Python), and the record is marked as contended";
  return m;
}

// Opens (creating when missing) the lock file. O_NOFOLLOW under /tmp, where another user could
// plant a link; O_EXCL creation, so a file another user made is opened, never replaced.
int open_lock_file(const std::string& path, bool default_path) {
  const int nofollow = default_path ? O_NOFOLLOW : 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | nofollow);
    if (fd >= 0) return fd;
    if (errno == EACCES || errno == EROFS) {
      // Another user's file that this one may not write: flock needs only a descriptor, and
      // the holder's name is then not written.
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | nofollow);
      if (fd >= 0) return fd;
    } else if (errno == ENOENT) {
      // Written by its owner only (0644 less the umask): another user's run opens it read-only
      // above, which is all flock needs, and cannot write into it what this user's runs would
      // print as its holder. Not 0600: a user who cannot open it could not take the lock.
      fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | nofollow, 0644);
      if (fd >= 0) return fd;
      if (errno == EEXIST) continue;  // another process made it first: open theirs
    }
    break;
  }
  const int e = errno;
  throw ConfigError("cannot open the device lock file " + path + ": " + std::strerror(e) +
                    "; set " + kGpuLockEnv + " to a file that can be created or opened there");
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {};
  struct stat sb {};
  if (a == b) return true;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The lock is held for this process already when an ancestor (`gpumeter lock`) says it holds
// the same file and the file still names that ancestor.
bool held_by_ancestor(const std::string& path) {
  const char* held = std::getenv(kLockHeldEnv);
  if (held == nullptr) return false;
  const std::string text(held);
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  char* end = nullptr;
  const long pid = std::strtol(text.c_str(), &end, 10);
  if (end != text.c_str() + colon || pid <= 1) return false;
  if (!same_file(text.substr(colon + 1), path)) return false;
  const LockHolder h = read_lock_holder(path);
  if (!h.named || h.pid != pid) return false;
  return descends_from(static_cast<long>(::getppid()), pid);
}

}  // namespace

std::string default_lock_path(int device_index, const std::string& gpu_uuid) {
  if (const char* env = std::getenv(kGpuLockEnv); env != nullptr && *env != '\0') return env;
  std::string name;
  for (const char c : gpu_uuid) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    name += safe ? c : '_';
  }
  if (name.empty()) name = std::to_string(device_index);
  return "/tmp/gpumeter-gpu-" + name + ".lock";
}

std::string cuda_device_uuid(int index, std::string* why) {
  auto fail = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return std::string();
  };
  // The driver's own library, as the runtime loads it; kept mapped (the runtime uses it too).
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (lib == nullptr) {
    const char* e = ::dlerror();
    return fail(one_line(e != nullptr ? e : "libcuda.so.1: not loadable", kMaxCauseChars));
  }
  using InitFn = int(unsigned int);
  using DeviceGetFn = int(int*, int);
  using UuidFn = int(unsigned char*, int);  // CUuuid is 16 bytes; CUdevice an int
  auto* init = reinterpret_cast<InitFn*>(::dlsym(lib, "cuInit"));
  auto* get = reinterpret_cast<DeviceGetFn*>(::dlsym(lib, "cuDeviceGet"));
  // cuda.h maps cuDeviceGetUuid to _v2 (the uuid the runtime's cudaDeviceProp holds).
  auto* uuid_fn = reinterpret_cast<UuidFn*>(::dlsym(lib, "cuDeviceGetUuid_v2"));
  if (uuid_fn == nullptr) uuid_fn = reinterpret_cast<UuidFn*>(::dlsym(lib, "cuDeviceGetUuid"));
  ::dlclose(lib);
  if (init == nullptr || get == nullptr || uuid_fn == nullptr) {
    return fail("libcuda.so.1 does not export cuInit, cuDeviceGet and cuDeviceGetUuid");
  }
  if (const int rc = init(0); rc != 0) return fail("cuInit returned " + std::to_string(rc));
  int device = 0;
  if (const int rc = get(&device, index); rc != 0) {
    return fail("cuDeviceGet(" + std::to_string(index) + ") returned " + std::to_string(rc));
  }
  unsigned char u[16] = {};
  if (const int rc = uuid_fn(u, device); rc != 0) {
    return fail("cuDeviceGetUuid returned " + std::to_string(rc));
  }
  return format_gpu_uuid(u);
}

int cuda_device_count(std::string* why) {
  auto fail = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return 0;
  };
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (lib == nullptr) {
    const char* e = ::dlerror();
    return fail(one_line(e != nullptr ? e : "libcuda.so.1: not loadable", kMaxCauseChars));
  }
  using InitFn = int(unsigned int);
  using CountFn = int(int*);
  auto* init = reinterpret_cast<InitFn*>(::dlsym(lib, "cuInit"));
  auto* count = reinterpret_cast<CountFn*>(::dlsym(lib, "cuDeviceGetCount"));
  ::dlclose(lib);
  if (init == nullptr || count == nullptr) {
    return fail("libcuda.so.1 does not export cuInit and cuDeviceGetCount");
  }
  if (const int rc = init(0); rc != 0) return fail("cuInit returned " + std::to_string(rc));
  int n = 0;
  if (const int rc = count(&n); rc != 0) {
    return fail("cuDeviceGetCount returned " + std::to_string(rc));
  }
  return n;
}

LockHolder read_lock_holder(const std::string& path) {
  LockHolder h;
  const std::string text = detail::read_bounded(path, kMaxReadBytes);
  const auto eol = text.find('\n');
  const std::string first = text.substr(0, eol);
  if (first.empty() || first.size() > 12 ||
      first.find_first_not_of("0123456789") != std::string::npos) {
    return h;
  }
  h.named = true;
  h.pid = std::atoi(first.c_str());
  if (eol != std::string::npos) {
    const std::string rest = text.substr(eol + 1);
    h.command = one_line(rest.substr(0, rest.find('\n')), kMaxCommandChars);
  }
  h.alive = process_exists(h.pid);
  return h;
}

std::string describe_holder(const LockHolder& holder) {
  if (!holder.named) return "a process that did not write its name into the file";
  std::string text =
      "pid " + std::to_string(holder.pid) + " (" +
      (holder.command.empty() ? std::string("command not written") : holder.command) + ")";
  if (!holder.alive) text += ", which no longer exists here";
  return text;
}

DeviceLock::DeviceLock(int device_index, const std::string& gpu_uuid, DeviceLockOptions o) {
  const char* env_path = std::getenv(kGpuLockEnv);
  const bool default_path = o.path.empty() && (env_path == nullptr || *env_path == '\0');
  path_ = o.path.empty() ? default_lock_path(device_index, gpu_uuid) : o.path;
  if (held_by_ancestor(path_)) {
    inherited_ = true;
    const char* note = std::getenv(kLockNoteEnv);
    std::istringstream lines(note != nullptr ? note : "");
    for (std::string line; std::getline(lines, line);) {
      line = one_line(line, kMaxNoteLineChars);
      if (line.empty()) continue;
      deviations_.push_back(line);
      (line.rfind(kContendedPrefix, 0) == 0 ? contention_ : not_checked_) = line;
    }
    return;
  }

  // (1) The idle check, outside the lock. The current holder's processes do not count: the
  // lock waits for them.
  Exclusions ex;
  ex.own = own_pids();
  ex.ancestors = ancestor_pids();
  Verdict v = wait_until_idle(device_index, gpu_uuid, o, ex, true, path_);
  if (!v.checked) {
    not_checked_ = v.unchecked.empty() ? "NVML gave nothing" : v.unchecked;
  } else if (!v.busy.empty()) {
    if (!o.allow_contended)
      throw DeviceBusy(busy_message(device_index, gpu_uuid, o, v.busy, false));
    contention_ = v.busy;
  }
  if (v.checked && !v.unchecked.empty()) not_checked_ = "incomplete: " + v.unchecked;

  // (2) The lock, polled so a timeout and the caller's hook both work.
  struct Fd {
    int fd;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  } file{open_lock_file(path_, default_path)};
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(o.timeout_s));
  const auto start = Clock::now();
  bool waited = false;
  for (;;) {
    if (::flock(file.fd, LOCK_EX | LOCK_NB) == 0) break;
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      const int e = errno;
      throw ConfigError("cannot lock the device lock file " + path_ + ": " + std::strerror(e));
    }
    waited = true;
    if (Clock::now() >= deadline) {
      LockHolder h = read_lock_holder(path_);
      std::string who = describe_holder(h);
      if (!h.named || !h.alive) {
        if (const long pid = flock_holder_from_proc(path_); pid > 0) {
          const std::string cmd = command_of(std::to_string(pid));
          who += "; /proc/locks names pid " + std::to_string(pid) + " (" +
                 (cmd.empty() ? std::string("command not readable") : cmd) + ")";
        } else if (h.named) {
          who +=
              " (a process in another PID namespace holds it, or one that inherited the "
              "holder's descriptor)";
        }
      }
      const double waited_s = std::chrono::duration<double>(Clock::now() - start).count();
      throw DeviceBusy(device_named(device_index, gpu_uuid) + " is locked by another run: " +
                       path_ + " is held by " + who + "; gave up after " + seconds(waited_s) +
                       " (the lock timeout). Wait for that run to end, or raise the timeout");
    }
    // Who holds it now: its processes are the lock's to wait for, not contention.
    if (const long holder = current_holder(path_); holder > 0) {
      ex.exiting_ok.insert(holder);
    }
    wait_for(kLockPoll, o);
  }

  // (3) After waiting for another holder: the device may not be idle once it is done (a
  // process that keeps its context, or one whose context NVML still lists while it exits).
  if (waited && v.checked && contention_.empty()) {
    ex.holder = 0;
    v = wait_until_idle(device_index, gpu_uuid, o, ex, false, path_);
    if (v.checked && !v.busy.empty()) {
      if (!o.allow_contended) {
        throw DeviceBusy(busy_message(device_index, gpu_uuid, o, v.busy, true));
      }
      contention_ = v.busy;
    }
  }
  if (!contention_.empty()) {
    deviations_.push_back(std::string(kContendedPrefix) +
                          "the device was in use when its lock was taken, and the run went "
                          "ahead because contention was allowed: " +
                          contention_);
  }
  if (!v.ancestors.empty()) {
    // Usually a harness (pytest, a script) that started this run and waits for it: its
    // context is idle while it waits, but it is on the device, so the record says so.
    deviations_.push_back(
        "device lock: processes this run descends from hold a context on the device and were "
        "not counted as contention: " +
        v.ancestors);
  }
  if (!not_checked_.empty()) {
    deviations_.push_back(v.checked ? "device lock: the idle check was " + not_checked_
                                    : "device lock taken without the idle check: " + not_checked_);
  }

  // Name the holder for anyone who waits: "pid\ncommand line\n".
  const std::string self = command_of("self");
  const std::string text = std::to_string(::getpid()) + "\n" +
                           (self.empty() ? std::string("(command line not readable)") : self) +
                           "\n";
  if (::ftruncate(file.fd, 0) == 0) {
    (void)!::pwrite(file.fd, text.data(), text.size(), 0);
  }
  fd_ = file.fd;
  file.fd = -1;
}

DeviceLock::~DeviceLock() {
  if (fd_ < 0) return;
  // Cleared while still held, so the file never names a holder that is gone.
  (void)!::ftruncate(fd_, 0);
  ::close(fd_);
}

}  // namespace gpumeter
