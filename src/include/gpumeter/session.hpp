#pragma once
// A measuring session: the one place that turns a front end's options into what a measurement
// runs under. It takes the device lock (with its idle check), chooses and makes the backend,
// measures the ceilings, and words every deviation and fallback the record and the user see.
// The benchmark programs, the Python module, gpumeter-example and `gpumeter lock` parse their
// arguments and hand them to it; none of them adds a rule of its own.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/device_lock.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// How the rows are timed.
enum class Timing {
  // CUPTI's device time in a build with the CUDA backend, and then a missing GPU is an error
  // (a program of GPU work measures nothing without one); the host clock in a build without it.
  build_default,
  // CUPTI's device time where a CUDA GPU is usable, the host clock elsewhere (said as a
  // deviation and a fallback).
  automatic,
  cupti,   // CUPTI's device time; an error without a usable GPU
  events,  // CUDA event pairs (a labelled statistic, never compared with CUPTI's)
  // The host clock: on a usable GPU the synchronized wall clock (the device drained before the
  // clock starts and stops), elsewhere the host's steady clock.
  host,
  // The host's steady clock around work that runs on the CPU; no device is opened. No user's
  // word names it (it is not in kTimingNames): the binding's host-clock samples use it.
  host_only,
};

// The timings a user names, in one list: the benchmark programs' --timing, gpumeter-example's
// --timing, Python's timing= and `gpumeter evaluate --timing` read a name here. Each method's
// short name (what scripts already type) and its name (what every message says back) both name
// it; the spellings are kTimingMethodNames'.
struct TimingName {
  std::string_view name;
  Timing timing;
};
inline constexpr TimingName kTimingNames[] = {
    {"auto", Timing::automatic},
    {names_of(TimingMethod::kernel_records).short_name, Timing::cupti},
    {names_of(TimingMethod::device_events).short_name, Timing::events},
    {names_of(TimingMethod::host_clock).short_name, Timing::host},
    {names_of(TimingMethod::kernel_records).name, Timing::cupti},
    {names_of(TimingMethod::device_events).name, Timing::events},
    {names_of(TimingMethod::host_clock).name, Timing::host},
};
// The timing `name` names. Throws ConfigError naming `option` (as the front end spells it:
// "timing") for any other name, the names listed.
Timing parse_timing(std::string_view name, const std::string& option);
// The names, quoted, as a sentence lists them: "'auto', 'cupti', 'events' or 'host'".
std::string timing_names_text();

// How a front end's user writes the options a sentence names, so every message points at the
// option the user can change ("--timing host" on a command line, "timing='host'" in Python).
struct OptionSpelling {
  std::string cupti = "--timing cupti";
  std::string events = "--timing events";
  std::string host = "--timing host";
  std::string no_lock = "--no-lock";
};

enum class LockChoice {
  take,  // the device lock for the session's life, after the idle check (the default)
  skip,  // no lock: the record says nothing kept other runs off the device
  // Held by the process that started this one (a case's process under --isolate holds a copy
  // of its parent's descriptor): nothing is taken and nothing said.
  held_by_parent,
};

struct SessionOptions {
  int device = 0;  // CUDA runtime index
  Timing timing = Timing::build_default;
  bool allow_events_fallback = false;  // CudaBackendOptions::allow_events_fallback
  bool share_cupti = false;            // CudaBackendOptions::share_cupti_with_idle_client
  // Give CUPTI back after every phase and when the session ends, so a profiler started between
  // measurements (PyTorch's) finds it free. For a process that outlives its measurements.
  bool release_cupti = false;
  // One backend per device and way of timing for the life of the process, shared by every
  // session that asks for it: CUPTI allows one subscription per process, and making the
  // backend costs ~150 ms. Off: the session owns its backend.
  bool keep_backend = false;
  // Measure the device's ceilings (the percent-of-peak columns) on a CUDA device.
  bool ceilings = true;
  LockChoice lock = LockChoice::take;
  DeviceLockOptions lock_options;  // its timeouts, allow_contended, while_waiting
  // CudaBackendOptions::tolerated_device_processes: nullopt, those there when the backend is made.
  std::optional<std::vector<long>> tolerated_device_processes;
  OptionSpelling spelling;
};

// Stands in device ids, for tests of --devices on a machine without GPUs: "N" (1 to
// kMaxStandInDevices) gives devices 0 to N-1, each the host CPU timed by the host clock under a
// uuid of its own ("stand-in-K"), each with its own device lock. Honoured under the host clock
// only (Timing::host, host_only): no GPU is opened, and every record measured so says so.
inline constexpr const char* kStandInDevicesEnv = "GPUMETER_STAND_IN_DEVICES";
inline constexpr int kMaxStandInDevices = 64;

// The one lock taker: the device lock on `device` (its uuid read through the driver, no
// context created), with the idle check. `gpumeter lock` and every session take it here.
// Throws DeviceBusy or ConfigError as DeviceLock does.
std::unique_ptr<DeviceLock> take_device_lock(int device, const DeviceLockOptions& options);

class Session {
 public:
  // Checks that this build can time as asked (ConfigError) and takes the lock as asked
  // (DeviceBusy, ConfigError). The backend is made when first asked for, after the lock.
  explicit Session(SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) noexcept;
  Session& operator=(Session&&) = delete;

  // Throws ConfigError, before anything runs, when this build cannot time as asked.
  static void check_timing_is_built(const SessionOptions& options);
  // Why the options cannot be measured on this machine: they need a CUDA device and none is
  // usable; "" when they can. Creates no context (a sweep's parent stays off the device).
  static std::string unusable_device(const SessionOptions& options);
  // The devices of this host a sweep may be spread over (--devices), by index: the stand-ins of
  // kStandInDevicesEnv where it is set, else the CUDA devices the driver lists, their uuids read
  // without a context. Throws ConfigError for stand-ins under another timing, and where a build
  // without the CUDA backend has no stand-ins.
  static std::vector<HostDevice> host_devices(const SessionOptions& options);
  // The one line every tool prints, with exit code 5 (kExitNoDevice), when it was asked for GPU
  // timing (explicitly, or by default for GPU work) and no CUDA GPU is usable: that nothing was
  // measured, why (`why`, unusable_device's words), and the option that times host work on the
  // host clock. docs/cli.md's table of "no usable GPU" says which tool does what.
  static std::string no_usable_gpu(const SessionOptions& options, const std::string& why);
  // What a session of `options` will say when it falls back to the host clock for want of a GPU
  // (the lines fallbacks() gives), known before anything runs, so a tool whose own work is
  // host work can say it on its first line; empty when it will not fall back. Makes nothing.
  static std::vector<std::string> planned_fallbacks(const SessionOptions& options);

  // The backend, chosen and made on first use. Throws DeviceError when the device the choice
  // needs cannot be used, CuptiUnavailable when CUPTI cannot and no fallback is allowed.
  Backend& backend();
  // The ceilings, measured on first use by the backend that times the rows (once per process,
  // device and way of timing) when asked and the backend has a CUDA device; empty otherwise,
  // and when they could not be measured (a deviation says why).
  const Ceilings& ceilings();
  // Ceilings measured elsewhere (a sweep's first case, for every case's process).
  void use_ceilings(Ceilings ceilings);

  // The deviations so far, in order: the lock's, the backend's, the ceilings'.
  const std::vector<std::string>& deviations() const { return deviations_; }
  // Where a measurement fell back from what was asked, as a warning a user reads: the
  // session's, and those `measured` shows (rows timed by device-events in place of kernel-records).
  std::vector<std::string> fallbacks(const Record& measured) const;

  // The lock held, or nullptr (skipped, held by the parent).
  const DeviceLock* lock() const { return lock_.get(); }

 private:
  SessionOptions options_;
  std::unique_ptr<DeviceLock> lock_;
  bool stand_in_ = false;  // the device is one of kStandInDevicesEnv's
  std::unique_ptr<Backend> owned_;
  Backend* backend_ = nullptr;
  bool ceilings_done_ = false;
  Ceilings ceilings_;
  std::vector<std::string> deviations_;
  std::vector<std::string> fallbacks_;
  bool moved_from_ = false;
};

}  // namespace gpumeter
