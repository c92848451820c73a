#pragma once
// The CUDA backends, for users of CUDA: CUPTI activity records (the real one) and CUDA events (a
// labelled fallback the user must allow). Nothing here pulls in CUDA or CUPTI headers, so code that
// only chooses a backend builds without them.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/device.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// The CUPTI external-correlation kind gpumeter pushes its iteration ids under. PyTorch's profiler
// uses CUSTOM0 and CUSTOM1, so the default stays out of its way; a call that itself pushes ids of
// the default kind picks another one here.
enum class CorrelationKind { custom0, custom1, custom2 };
std::string_view to_string(CorrelationKind kind);  // "CUSTOM0", "CUSTOM1", "CUSTOM2"

// Size of each activity buffer handed to CUPTI. CUPTI fills these on the launching thread, so a
// large buffer lands inside timed calls and lengthens them; the default is the smallest that holds
// a whole measurement phase of a one-kernel call (its kernel, API, correlation and preparation
// records) in one buffer per thread (docs/measured-figures.md, "CUPTI activity buffers"). A phase
// that still loses records is repeated with 4x larger buffers (kBufferGrowthPerAttempt).
inline constexpr std::size_t kDefaultActivityBufferBytes = 256 * 1024;

// Setting this environment variable to 1 allows the CUDA-events fallback.
inline constexpr const char* kAllowEventsFallbackEnv = "GPUMETER_ALLOW_EVENTS_FALLBACK";
// Setting this environment variable to 1 measures even where CUPTI's dropped-record counter could
// not be proven live; each such row is recorded with that deviation.
inline constexpr const char* kAllowUnprovenDropCounterEnv = "GPUMETER_ALLOW_UNPROVEN_DROP_COUNTER";
// Path of the libcupti to load instead of the default search (soname, then the toolkit's).
inline constexpr const char* kCuptiLibraryEnv = "GPUMETER_CUPTI_LIBRARY";

struct CudaBackendOptions {
  int device = 0;  // CUDA runtime index, as CUDA_VISIBLE_DEVICES presents them
  // Time with CUDA events when CUPTI cannot be used. Also allowed by
  // GPUMETER_ALLOW_EVENTS_FALLBACK=1. Off by default: such rows never compare with CUPTI rows.
  bool allow_events_fallback = false;
  // Measure with CUPTI even when its dropped-record counter could not be proven live, so a lost
  // record could go unseen. Off by default: then CUPTI counts as unavailable. Also allowed by
  // GPUMETER_ALLOW_UNPROVEN_DROP_COUNTER=1.
  bool allow_unproven_drop_counter = false;
  // When another CUPTI client of this process (PyTorch's profiler) holds the subscription but
  // the caller knows it is not collecting now, measure without a subscription of gpumeter's
  // own. Off by default: gpumeter cannot see whether that client collects, so the caller must
  // know (the Python module asks PyTorch whether its profiler is running).
  bool share_cupti_with_idle_client = false;
  // Give CUPTI's subscription back after every measurement phase; the next phase claims it
  // again (and names any client that took it meanwhile). Then a profiler started between
  // measurements (PyTorch's) finds CUPTI free and records the GPU. Off by default in C++, where
  // a program rarely runs another CUPTI client; on in the Python module.
  bool release_cupti_after_each_phase = false;
  // Before each phase, register with CUPTI the clock it converts GPU timestamps into: its own
  // default (CLOCK_REALTIME in ns). Another client may have registered a clock in other units
  // (PyTorch's profiler registers the CPU's TSC), which would stretch every reading. Off: the clock
  // in place is left alone, and a phase whose probes find it is not nanoseconds is converted by the
  // scale the probes measure (or fails with TimestampUnitMismatch). Either way every phase checks
  // its unit against the device's own clock.
  bool register_timestamp_clock = true;
  // Other processes may use the device (a contended run): a kernel's late start is then no
  // evidence of hidden work in this process.
  bool device_shared = false;
  // Against work in another process: the other processes on the device that a measured phase
  // tolerates (pids as NVML lists them): by default those there when the backend is made (the
  // device lock's idle check judged them); given, these, read before any code under test ran
  // (gpumeter evaluate reads them before it starts a candidate, whose helpers then count whenever
  // they came).
  std::optional<std::vector<long>> tolerated_device_processes;
  bool l2_flush = true;  // off only to study warm-cache behaviour, and recorded as such
  // How the flush leaves L2. write: a device-side memset of twice the L2, which leaves L2
  // full of dirty lines the measured call must write back as it evicts them. write_read: the
  // memset, then a read of the same buffer, which leaves clean lines. See kDefaultL2Flush.
  enum class L2Flush { write, write_read };
  L2Flush l2_flush_mode = L2Flush::write_read;
  CorrelationKind correlation_kind = CorrelationKind::custom2;
  // Bytes per CUPTI activity buffer on the first attempt of a phase; a retry after lost records
  // uses 4^attempt times this. A multiple of 8 (CUPTI's record alignment), >= 8. Tests force a
  // buffer smaller than one kernel record to make a phase lose records on purpose.
  std::size_t activity_buffer_bytes = kDefaultActivityBufferBytes;
};

// Whether a CUDA device can be used, and why not (tests skip with the reason).
struct CudaAvailability {
  int device_count = 0;
  bool usable = false;  // the driver answers and `device` exists
  std::string reason;   // why not usable; empty when usable
};
CudaAvailability cuda_availability(int device = 0);

// The CUPTI backend on options.device (method cupti). When CUPTI cannot be used (no library,
// another profiler attached), returns the CUDA-events backend if the fallback is allowed, with
// reason() naming the cause; otherwise throws CuptiUnavailable naming the cause and the way
// out. Throws DeviceError when the device cannot be used (no driver, no such index, a sticky
// error earlier in this process), and ConfigError on bad options.
std::unique_ptr<Backend> make_cuda_backend(const CudaBackendOptions& options = {});

// The CUDA-events backend (method device-events), chosen explicitly: one event pair per
// iteration on the legacy default stream, so device_busy == latency and n_kernels is unknown.
// `reason` is recorded with every row it times.
std::unique_ptr<Backend> make_cuda_events_backend(const CudaBackendOptions& options,
                                                  std::string reason);

// The synchronized wall clock around each call (method host-clock, statistic
// synchronized_wall_clock): the device drained before the clock starts and before it stops, so
// the reading is what the call costs its caller end to end. Rows never compare with device-time
// rows. Throws DeviceError when the device cannot be used.
std::unique_ptr<Backend> make_cuda_wall_backend(const CudaBackendOptions& options);

// The device as every record names it. Throws DeviceError.
DeviceIdentity cuda_device_identity(int device);

// Against a slowed reference: the CUDA settings of this process on `device` that code in it can
// change and that change how other work there runs (the device's scheduling flags, its limits, its
// cache preference), by name, as read now: `gpumeter evaluate` reads them before and after a
// candidate ran. The persisting-L2 set-aside is not among them: gpumeter puts it back to 0 before
// every call. Empty when the device cannot be read. Never throws.
std::vector<std::pair<std::string, long long>> read_cuda_settings(int device);

// CUPTI as this process found it, for the environment record. Loads and subscribes on first use
// (once per process); never throws.
struct CuptiStatus {
  bool usable = false;
  std::optional<int> version;  // cuptiGetVersion, when the library loaded
  std::string library;         // the file that was loaded, or "" when none
  std::string cause;           // why not usable; empty when usable
  // Whether the dropped-record counter has been shown to count (nullopt: not tried yet).
  std::optional<bool> drop_counter_live;
};
CuptiStatus cupti_status();

// Gives this process's CUPTI subscription back until the next measurement claims it again
// (naming, as on first use, any client that took it meanwhile). For a program that runs another
// CUPTI client between measurements, such as PyTorch's profiler started after a measurement,
// which would otherwise find CUPTI taken and record no GPU activity. Never throws.
void release_cupti_subscription() noexcept;

// Whether gpumeter, claiming CUPTI again, may go on without a subscription of its own when
// another client holds one that it is not using now: on the caller's word, given before each
// call by a front end that can tell (the Python module: PyTorch keeps its profiler's
// subscription after the profiler has ended). Otherwise that client is named and nothing is
// measured. A no-op before CUPTI is first used (the backend's options decide then).
void set_cupti_sharing(bool share_with_idle_client) noexcept;

// The device's measured ceilings for the roofline columns, timed by `backend`, the backend that
// times the rows they divide: each piece of ceiling work is measured by measure() (the rows'
// attribution, L2 flush, default budget and statistic), and each ceiling is the fastest sample of
// the best of its runs (kCeilingRule). Copy bandwidth (bytes read plus bytes written): a
// device-to-device cudaMemcpyAsync of 512 MiB and a float4 grid-stride copy kernel on the same
// buffers; a matrix rate: a bf16 cuBLAS GEMM of size 8192 on random data (fp32 accumulation).
// Measured once per process, device and way of timing, and cached. Throws ConfigError for a backend
// of no CUDA device, and whatever measure() throws (DeviceError, CuptiUnavailable, RecordsLost...):
// then there is no ceiling.
Ceilings measure_ceilings(Backend& backend);

}  // namespace gpumeter
