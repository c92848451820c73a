#pragma once
// The exclusive device lock (P1): one run at a time on a device, held for a whole sweep (not
// per sample), taken only after the device was seen idle. Another process on the same GPU
// changes its clocks, bandwidth and L2 contents under a measurement.
//
// The lock is flock(2) on a file, so a holder that dies (even by SIGKILL) releases it with its
// last descriptor: a dead holder never blocks. The holder writes "pid\ncommand line\n" into the
// file, so a waiter that gives up can name it. Never held while waiting for 0% utilization:
// utilization is not read at all.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpumeter {

// The lock file for every device, when set (a path, e.g. /var/lock/gpu0). Unset or empty: a
// file per device under /tmp (default_lock_path).
inline constexpr const char* kGpuLockEnv = "GPU_LOCK";
// Set by `gpumeter lock` for its command: "<pid>:<lock path>" of the holder. A DeviceLock of
// the same path in a descendant of that pid, while the lock file names that pid, is held
// already (inherited) and is neither waited for nor checked again.
inline constexpr const char* kLockHeldEnv = "GPUMETER_LOCK_HELD";
// Set beside kLockHeldEnv: what the holder's idle check found that a record must say (the
// contention it was allowed to go ahead with, or why the device could not be checked), one
// line each. An inherited DeviceLock reports these lines as its deviations().
inline constexpr const char* kLockNoteEnv = "GPUMETER_LOCK_NOTE";

inline constexpr double kDefaultLockTimeoutS = 600;
inline constexpr double kDefaultIdleTimeoutS = 30;
// Free device memory below which the device counts as busy: 2 GiB. An idle H200 has 149.0 GB
// of its 150.1 GB free (bench/results: 1.2 to 1.75 GB used, driver reserve and gpumeter's own
// context), so any floor of a few GiB is far from an idle device's value; below 2 GiB gpumeter's
// own needs do not fit beside the work measured (a context of about 0.5 GB, the ceilings' two
// 512 MiB copy buffers, the L2 flush buffer of twice the L2). Memory that this process (or a
// process whose lock it waits for) holds is added back first: a Python user's own tensors do
// not make the device busy. The floor catches memory held by processes NVML does not list (in
// another container, say); it does not catch a sharer that leaves 2 GiB free: the process
// list does.
inline constexpr long long kDefaultMinFreeBytes = 2LL << 30;

struct DeviceLockOptions {
  // The lock file; "" is default_lock_path(device index, gpu uuid).
  std::string path;
  // Seconds to wait for another holder to release the lock; then DeviceBusy naming it. 0: try
  // once.
  double timeout_s = kDefaultLockTimeoutS;
  // Seconds to wait, outside the lock, for the device to be idle (NVML polled every 0.5 s);
  // then DeviceBusy naming what keeps it busy. 0: check once.
  double idle_timeout_s = kDefaultIdleTimeoutS;
  // Go ahead on a busy device, after one check and without waiting for it to become idle;
  // contention() says what was found and deviations() marks the record.
  bool allow_contended = false;
  long long min_free_bytes = kDefaultMinFreeBytes;
  // Called between polls while waiting (about every 50 ms); may throw to give up (the Python
  // module raises KeyboardInterrupt through it).
  std::function<void()> while_waiting;
};

// GPU_LOCK when set and not empty, else /tmp/gpumeter-gpu-<gpu uuid>.lock, or
// /tmp/gpumeter-gpu-<index>.lock when the uuid is not known (the CUDA index, as
// CUDA_VISIBLE_DEVICES presents devices: only the uuid names the same device for every process).
// /tmp rather than $TMPDIR: every user of the machine must find the same file.
std::string default_lock_path(int device_index, const std::string& gpu_uuid);

// The uuid ("GPU-...") of CUDA device `index` through the driver API loaded at run time
// (cuInit, cuDeviceGet, cuDeviceGetUuid): no CUDA context is created, so `gpumeter lock` and a
// sweep's parent process never appear on the device. "" when there is no driver or no such
// device; `why` (when given) then says why. Never throws.
std::string cuda_device_uuid(int index, std::string* why = nullptr);

// How many CUDA devices the driver lists (cuDeviceGetCount, as CUDA_VISIBLE_DEVICES presents
// them), also without a context; 0 when there is no driver, and `why` (when given) says why.
// Never throws.
int cuda_device_count(std::string* why = nullptr);

// A compute process on the device, as NVML lists it.
struct ComputeProcess {
  unsigned int pid = 0;
  std::optional<long long> used_bytes;  // nullopt when NVML does not know it
};

// What the idle check reads: the device's compute processes and memory. Fields NVML could not
// give stay empty and `unavailable` says why, as read_device_state does.
struct DeviceOccupancy {
  std::optional<std::vector<ComputeProcess>> processes;
  std::optional<long long> free_bytes;
  std::optional<long long> total_bytes;
  std::vector<std::string> unavailable;
  std::string matched_by;  // as DeviceStateReading::matched_by
};

// Reads the occupancy through NVML (GPUMETER_NVML_LIBRARY, else libnvidia-ml.so.1), the device
// chosen as read_device_state chooses it. Never throws.
DeviceOccupancy read_device_occupancy(const std::string& gpu_uuid, int fallback_index);

// Who the lock file names as its holder.
struct LockHolder {
  bool named = false;  // the file held a pid
  int pid = 0;
  std::string command;  // as written by the holder, controls replaced, at most 300 characters
  bool alive = false;   // a process with that pid exists here
};
LockHolder read_lock_holder(const std::string& path);

// One sentence naming the holder of `path`, e.g. "pid 1234 (gpumeter lock -- make bench)".
std::string describe_holder(const LockHolder& holder);

// Holds the lock on one device for as long as it lives.
//
// The constructor (1) checks, outside the lock, that the device is idle: no compute process
// other than this one, those of the lock's current holder (which the lock itself waits for) and
// this process's ancestors (a harness that started it and waits for it: recorded in
// deviations(), not counted), and free memory at or above the floor, polling NVML until the
// idle timeout; (2) takes
// flock(LOCK_EX) on the lock file, polled until the lock timeout; (3) when it had to wait for
// another holder, checks again, since the device may not be idle once that holder is gone
// (e.g. a Python process that keeps its CUDA context between measurements). A device it cannot
// check (no NVML) is locked without the check, and deviations() says so. Throws DeviceBusy when
// the device stays busy (unless allow_contended) or the lock stays held; ConfigError when the
// lock file cannot be opened.
class DeviceLock {
 public:
  DeviceLock(int device_index, const std::string& gpu_uuid, DeviceLockOptions options = {});
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;
  DeviceLock(DeviceLock&&) = delete;
  DeviceLock& operator=(DeviceLock&&) = delete;

  const std::string& path() const { return path_; }
  // The descriptor that holds the lock (close-on-exec), or -1 when the lock is inherited. A
  // sweep's parent gives a copy to each case's process (--isolate): the lock is then held
  // until every one of them has exited, even if the parent is killed first.
  int fd() const { return fd_; }
  // Held by an enclosing `gpumeter lock` (kLockHeldEnv), not by this object.
  bool inherited() const { return inherited_; }
  bool contended() const { return !contention_.empty(); }
  // What kept the device busy when the run went ahead anyway; "" when it was idle.
  const std::string& contention() const { return contention_; }
  // What of the idle check could not be made, and why; "" when all of it was.
  const std::string& not_checked() const { return not_checked_; }
  // Lines for the record's deviations: the contention, ancestors found on the device, a check
  // that could not be made (or the lines the enclosing `gpumeter lock` passed on, when
  // inherited).
  const std::vector<std::string>& deviations() const { return deviations_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool inherited_ = false;
  std::string contention_;
  std::string not_checked_;
  std::vector<std::string> deviations_;
};

}  // namespace gpumeter
