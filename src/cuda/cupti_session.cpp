#include "cupti_session.hpp"

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "cupti_records.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/ranges.hpp"

namespace gpumeter::cuda {
namespace {

// CUPTI's record alignment (ACTIVITY_RECORD_ALIGNMENT in its samples).
constexpr std::size_t kBufferAlignment = 8;
// Smaller than any record (the API record, the smallest that the probe's work makes, is 40
// bytes), so every record the drop-counter probe causes is dropped.
constexpr std::size_t kProbeBufferBytes = 8;
constexpr int kProbeLaunches = 8;
// Returned buffers kept for reuse; more than the threads that launch in a phase need.
constexpr std::size_t kMaxPooledBuffers = 16;
// Zeroed buffers ready at the start of a phase, made on the measuring thread before any timed
// call: the launching thread's first request (and a second thread's) then takes one.
constexpr std::size_t kPrefilledBuffers = 2;

// Kernels on the concurrent kind only: CUPTI_ACTIVITY_KIND_KERNEL serializes every kernel.
// RUNTIME and DRIVER are needed for the external-correlation records, which CUPTI emits per
// traced API call (measured on the H200: per-API switches alone produced none once CUDA was
// running).
constexpr CUpti_ActivityKind kPhaseKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,  // peer-to-peer copies: a different record, never in MEMCPY
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
};

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// C callbacks: CUPTI knows nothing of objects; route to the process's session.
void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  CuptiSession* session = CudaProcess::instance().session_for_callbacks();
  if (session == nullptr) {  // not reachable once kinds are on; decline rather than guess
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
    return;
  }
  session->on_buffer_requested(buffer, size, max_records);
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t size,
                               std::size_t valid) {
  CuptiSession* session = CudaProcess::instance().session_for_callbacks();
  if (session == nullptr) {
    std::free(buffer);
    return;
  }
  session->on_buffer_completed(buffer, size, valid);
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// The clock CUPTI converts GPU timestamps into, registered before every phase (T14). It is
// CUPTI's own default on Linux (CLOCK_REALTIME in ns), so a client that relies on the default
// sees no change, while a clock another client registered (PyTorch's profiler registers the
// CPU's TSC, which read 2.1 ticks per ns on the H200) no longer stretches gpumeter's readings.
// PyTorch's profiler registers its own again whenever it starts (measured on the H200, torch
// 2.11: its readings after gpumeter's registration were right).
std::uint64_t CUPTIAPI gpumeter_timestamp() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

Nanos to_nanos(std::uint64_t t) {
  return static_cast<Nanos>(t);
}

// Zeroed and aligned: CUPTI is told not to zero buffers itself. calloc's alignment
// (max_align_t) covers CUPTI's 8 bytes.
std::uint8_t* allocate_zeroed(std::size_t bytes) {
  static_assert(alignof(std::max_align_t) % kBufferAlignment == 0);
  return static_cast<std::uint8_t*>(std::calloc(1, bytes));
}

}  // namespace

// The APIs whose records we keep: those that put work on the device (T2). Only a launch
// carries the correlation id its kernel, copy or fill is attributed by; every other API
// record would only add launch overhead.
bool is_launch_type_api(std::string_view name) {
  // gpumeter's own preparation: kept so anything it puts on the device is labelled PREPARE.
  if (contains(name, "CtxResetPersistingL2Cache")) return true;
  return cupti_records::launches_device_work(name);
}

bool is_collection_checked_kernel_launch(std::string_view name) {
  // cudaLaunchCooperativeKernelMultiDevice (and cu...) is a kernel launch by the core's rule, which
  // gpumeter run uses to say a call that left no kernel record at all should have left one. This
  // check fails a whole phase as CollectionStopped, so it counts only launches whose kernels are
  // known to come back under the call's own correlation id in this phase: a multi-device launch
  // puts its kernels on the other devices of its list too, the API is deprecated, and no
  // measurement has shown what CUPTI records for it, so it is left out rather than risk a false
  // failure.
  return is_launch_type_api(name) && is_kernel_launch_api(name) && !contains(name, "MultiDevice");
}

namespace {

// is_collection_checked_kernel_launch by callback id, looked up by name once per id.
bool launches_a_kernel(const CuptiApi& api, bool runtime, CUpti_CallbackId cbid) {
  static std::mutex mutex;
  static std::map<std::pair<bool, CUpti_CallbackId>, bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(runtime, cbid);
  if (const auto found = known.find(key); found != known.end()) return found->second;
  const char* name = nullptr;
  const CUpti_CallbackDomain domain =
      runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  const bool yes = api.GetCallbackName != nullptr &&
                   api.GetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr &&
                   is_collection_checked_kernel_launch(name);
  known.emplace(key, yes);
  return yes;
}

}  // namespace

namespace {

ActivityKind activity_kind(cupti_records::DeviceKind kind) {
  switch (kind) {
    case cupti_records::DeviceKind::kernel:
      return ActivityKind::kernel;
    case cupti_records::DeviceKind::memcpy:
      return ActivityKind::memcpy;
    case cupti_records::DeviceKind::memset:
      return ActivityKind::memset;
  }
  return ActivityKind::kernel;
}

// One buffer's decoded records into the phase's (cupti_records.hpp: an untimed record comes as
// lost, which fails the phase closed, T6).
struct PhaseSink {
  const CuptiApi& api;
  PhaseRecords& into;

  void device(cupti_records::DeviceRecord&& d) {
    Activity a;
    a.kind = activity_kind(d.kind);
    a.start_ns = to_nanos(d.start_ns);
    a.end_ns = to_nanos(d.end_ns);
    a.correlation_id = d.correlation_id;
    a.device = d.device;
    a.stream = d.stream;
    a.graph_node = d.graph_node;
    a.name = std::move(d.name);
    into.activities.push_back(std::move(a));
    // A peer copy has no runtime id and needs none: the driver call that issued it is
    // launch-type (a Memcpy), so it is labelled itself.
    if (d.runtime_correlation_id != 0 && d.runtime_correlation_id != d.correlation_id) {
      into.copy_runtime_ids.emplace_back(into.activities.size() - 1, d.runtime_correlation_id);
    }
  }
  void lost() { ++into.known_lost; }
  void external(std::uint64_t correlation_id, std::uint64_t external_id) {
    into.external_id_of[correlation_id] = external_id;
  }
  // Collected so CUPTI emits the correlations above; a failed launch is kept, since a wrapper
  // may have swallowed the error the work's absence would otherwise hide.
  void api_call(const cupti_records::ApiRecord& call) {
    if (call.return_value != 0) {
      into.failed_apis.push_back(
          FailedApi{call.correlation_id, call.runtime, call.cbid, call.return_value});
    } else if (launches_a_kernel(api, call.runtime, call.cbid)) {
      into.kernel_launches.push_back(
          KernelLaunch{call.correlation_id, call.runtime, to_nanos(call.end_ns)});
    }
  }
};

}  // namespace

void parse_activity_buffer(const CuptiApi& api, std::uint8_t* buffer, std::size_t valid,
                           CUpti_ExternalCorrelationKind kind, PhaseRecords& into) {
  PhaseSink sink{api, into};
  cupti_records::decode_activity_buffer(api.ActivityGetNextRecord, buffer, valid, kind, sink);
}

void resolve_copy_ids(PhaseRecords& records) {
  // A copy whose driver-call id was not labelled (no record of that driver call) is still
  // identified by the runtime call that issued it, when that one was labelled.
  for (const auto& [index, runtime_id] : records.copy_runtime_ids) {
    Activity& a = records.activities[index];
    if (records.external_id_of.count(a.correlation_id) == 0 &&
        records.external_id_of.count(runtime_id) != 0) {
      a.correlation_id = runtime_id;
    }
  }
}

void translate_external_ids(PhaseRecords& records, std::uint32_t tag) {
  for (const Activity& a : records.activities) {
    const auto found = records.external_id_of.find(a.correlation_id);
    if (found == records.external_id_of.end()) continue;
    if ((found->second >> kIterationBits) == 0) {
      if (records.untagged_activities++ == 0) {
        records.untagged_example_id = found->second;
        records.untagged_example_name = a.name.empty() ? to_string(a.kind) : a.name;
      }
    }
  }
  for (auto& [correlation, id] : records.external_id_of) {
    const std::uint64_t low = id & kIterationMask;
    if ((id >> kIterationBits) != tag) {
      id = kForeignId;
      continue;
    }
    if (low < kFirstReservedLow) {
      id = low;
      continue;
    }
    id = kForeignId;  // the guard, unless a harness role's low bits below say otherwise
    for (const HarnessRole role :
         {HarnessRole::own, HarnessRole::inputs, HarnessRole::reset, HarnessRole::check}) {
      if (low == harness_low(role)) id = harness_id(role);
    }
  }
}

void check_phase_records(const CuptiApi& api, const PhaseRecords& records, std::size_t n_iterations,
                         CorrelationKind kind) {
  // Our kind with a small untagged id: code other than gpumeter pushed it (T12).
  if (records.untagged_activities > 0) {
    throw ConfigError(
        std::to_string(records.untagged_activities) + " activities (e.g. '" +
        records.untagged_example_name + "') were labelled with external-correlation id " +
        std::to_string(records.untagged_example_id) + " of kind " + std::string(to_string(kind)) +
        ", which gpumeter did not push: the call (or another thread) labels its own work with "
        "the kind gpumeter uses. Choose another kind with "
        "CudaBackendOptions::correlation_kind.");
  }
  // A launch of an iteration that CUPTI saw fail: a wrapper may have swallowed the error.
  for (const FailedApi& f : records.failed_apis) {
    const auto found = records.external_id_of.find(f.correlation_id);
    if (found == records.external_id_of.end() || found->second >= n_iterations) continue;
    const char* name = nullptr;
    const CUpti_CallbackDomain domain =
        f.runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    if (api.GetCallbackName == nullptr ||
        api.GetCallbackName(domain, f.cbid, &name) != CUPTI_SUCCESS || name == nullptr) {
      name = "an unnamed launch API";
    }
    throw DeviceError("iteration " + std::to_string(found->second) + ": " + name + " (" +
                      (f.runtime ? "runtime" : "driver") + " API) returned error " +
                      std::to_string(f.return_value) +
                      " although the call reported no error (a wrapper may have swallowed it); "
                      "its work may not have run, so no number was produced. Check the call's "
                      "launch arguments.");
  }
}

CUpti_ExternalCorrelationKind to_cupti(CorrelationKind kind) {
  switch (kind) {
    case CorrelationKind::custom0:
      return CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    case CorrelationKind::custom1:
      return CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
    case CorrelationKind::custom2:
      return CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  }
  throw ConfigError("unknown CorrelationKind " + std::to_string(static_cast<int>(kind)));
}

void CuptiSession::claim_subscription() {
  // The subscription claims CUPTI for this process: a profiler (ncu, nsys, cuda-gdb,
  // compute-sanitizer) or another CUPTI client already holding it is named here, instead of
  // surfacing later as kernels with no records.
  CUptiResult r = CUPTI_SUCCESS;
  std::string holder;
  if (api_.Subscribe_v2 != nullptr) {
    char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "gpumeter";
    params.oldSubscriberName = old_name;
    params.oldSubscriberSize = sizeof(old_name);
    r = api_.Subscribe_v2(&subscriber_, ignore_callback, nullptr, &params);
    holder = old_name;
  } else {
    r = api_.Subscribe(&subscriber_, ignore_callback, nullptr);
  }
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && share_with_idle_client_) {
    // PyTorch's profiler keeps its subscription after its context ends (seen on the H200 with
    // torch 2.11), and the activity API gpumeter uses needs none: go on without one.
    subscriber_ = nullptr;
    holder_name_ = holder.empty() ? "another client" : holder;
    r = CUPTI_SUCCESS;
  } else {
    holder_name_.clear();
  }
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    subscriber_ = nullptr;
    throw CuptiHeld(
        "another CUPTI client already holds this process's CUPTI subscription" +
        (holder.empty() ? std::string() : " ('" + holder + "')") + " (" + api_.result_text(r) +
        "): a profiler such as Nsight Compute (ncu) or Nsight Systems (nsys), cuda-gdb, "
        "compute-sanitizer, or a tracing library in this process (e.g. PyTorch's profiler). "
        "CUPTI serves one client per process: run gpumeter without the profiler, and profile "
        "in a separate process");
  }
  if (r != CUPTI_SUCCESS) {
    subscriber_ = nullptr;
    throw CuptiUnavailable("cuptiSubscribe failed (" + api_.result_text(r) + ") with " +
                           api_.library);
  }
}

void CuptiSession::release_subscription() noexcept {
  std::lock_guard<std::mutex> lock(phase_mutex_);
  if (phase_active_ || released_) return;
  if (subscriber_ != nullptr) (void)api_.Unsubscribe(subscriber_);
  subscriber_ = nullptr;
  released_ = true;
}

CuptiSession::CuptiSession(bool share_with_idle_client)
    : api_(load_cupti_api()), share_with_idle_client_(share_with_idle_client) {
  claim_subscription();
  // Registered here so a CUPTI that refuses is named when the backend is made, not at the first
  // measurement; every phase registers again (another client may have replaced them).
  CUptiResult r = api_.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    // The failure is kept for the process: the subscription must not be kept with it.
    if (subscriber_ != nullptr) (void)api_.Unsubscribe(subscriber_);
    subscriber_ = nullptr;
    throw CuptiUnavailable("cuptiActivityRegisterCallbacks failed: " + api_.result_text(r));
  }
  // We hand CUPTI zeroed buffers (zeroed on its worker thread when returned), so it need not
  // zero each one on the launching thread, inside timed calls. Best effort: if refused, CUPTI
  // zeroes them itself, which costs time but loses nothing.
  std::uint8_t zeroed = 1;
  std::size_t zeroed_size = sizeof(zeroed);
  (void)api_.ActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size,
                                  &zeroed);
  classify_apis();
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) ==
          cudaSuccess &&
      found == cudaDriverEntryPointSuccess) {
    ctx_get_current_ = reinterpret_cast<CUresult (*)(CUcontext*)>(fn);
  } else {
    (void)cudaGetLastError();
  }
}

void CuptiSession::classify_apis() {
  std::vector<CUpti_CallbackId> kept_runtime;
  std::vector<CUpti_CallbackId> kept_driver;
  for (const bool runtime : {true, false}) {
    const CUpti_CallbackDomain domain =
        runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const CUpti_CallbackId size = runtime
                                      ? static_cast<CUpti_CallbackId>(CUPTI_RUNTIME_TRACE_CBID_SIZE)
                                      : static_cast<CUpti_CallbackId>(CUPTI_DRIVER_TRACE_CBID_SIZE);
    for (CUpti_CallbackId cbid = 1; cbid < size; ++cbid) {
      const char* name = nullptr;
      if (api_.GetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
      const bool keep = is_launch_type_api(name);
      api_switches_.push_back(ApiSwitch{runtime, cbid, static_cast<std::uint8_t>(keep ? 1 : 0)});
      if (keep) (runtime ? kept_runtime : kept_driver).push_back(cbid);
    }
  }
  // The launches every attribution depends on: a name table that misses one of these would
  // leave kernels without an iteration id, so refuse rather than time nothing.
  const auto kept = [](const std::vector<CUpti_CallbackId>& ids, CUpti_CallbackId id) {
    for (CUpti_CallbackId k : ids)
      if (k == id) return true;
    return false;
  };
  const std::pair<bool, CUpti_CallbackId> required[] = {
      {true, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
      {true, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000},
      {true, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
      {true, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000},
      {true, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020},
      {true, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020},
      {false, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
      {false, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
      {false, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch},
  };
  for (const auto& [runtime, cbid] : required) {
    if (!kept(runtime ? kept_runtime : kept_driver, cbid)) {
      throw CuptiUnavailable(
          std::string("CUPTI at ") + api_.library + " did not name the launch API with " +
          (runtime ? "runtime" : "driver") + " callback id " + std::to_string(cbid) +
          ", so gpumeter cannot trace launches and switch everything else "
          "off. Use the CUPTI of the toolkit gpumeter was built with");
    }
  }
}

bool CuptiSession::drop_counter_live(int device) {
  std::lock_guard<std::mutex> probing(probe_mutex_);
  {
    std::lock_guard<std::mutex> lock(phase_mutex_);
    if (drop_counter_live_.has_value()) return *drop_counter_live_;
  }
  check(cudaSetDevice(device), "cudaSetDevice", device);
  DeviceBuffer target(256, device);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize before the drop-counter probe", device);
  std::uint64_t dropped = 0;
  {
    Phase phase(*this, kProbeBufferBytes, CorrelationKind::custom2, device);
    for (int k = 0; k < kProbeLaunches; ++k) {
      check(cudaMemsetAsync(target.get(), k, target.bytes(), cudaStreamLegacy),
            "cudaMemsetAsync (drop-counter probe)", device);
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (drop-counter probe)", device);
    try {
      dropped = phase.finish().dropped_counter.value_or(0);
    } catch (const CuptiUnavailable&) {
      // A flush that fails on buffers this small proves nothing either way: the counter
      // stays unproven, and real phases (normal buffers) report their own flush errors.
      dropped = 0;
    }
  }
  std::lock_guard<std::mutex> lock(phase_mutex_);
  drop_counter_live_ = dropped > 0;
  return *drop_counter_live_;
}

std::optional<bool> CuptiSession::drop_counter_known() const {
  std::lock_guard<std::mutex> lock(phase_mutex_);
  return drop_counter_live_;
}

std::string CuptiSession::clock_owners() const {
  std::string out = clock_refused_.empty()
                        ? "gpumeter registered its own clock with CUPTI before the phase"
                        : "gpumeter did not register its own clock (" + clock_refused_ + ")";
  const std::vector<std::string> libraries = loaded_cupti_libraries();
  out += "; CUPTI libraries loaded in this process:";
  for (std::size_t k = 0; k < libraries.size(); ++k) out += (k == 0 ? " " : ", ") + libraries[k];
  if (libraries.empty()) out += " none found";
  if (!holder_name_.empty()) {
    out += "; the CUPTI subscription is held by '" + holder_name_ + "' (gpumeter shares it)";
  }
  return out;
}

void CuptiSession::push(CorrelationKind kind, std::uint64_t id) {
  const CUptiResult r = api_.ActivityPushExternalCorrelationId(to_cupti(kind), id);
  if (r != CUPTI_SUCCESS) {
    throw CuptiUnavailable("cuptiActivityPushExternalCorrelationId failed: " + api_.result_text(r));
  }
}

bool CuptiSession::pop(CorrelationKind kind, std::uint64_t& id) noexcept {
  return api_.ActivityPopExternalCorrelationId(to_cupti(kind), &id) == CUPTI_SUCCESS;
}

CuptiSession::Phase::Phase(CuptiSession& session, std::size_t buffer_bytes, CorrelationKind kind,
                           int device)
    : session_(session) {
  tag_ = session_.begin(buffer_bytes, kind, device);
}

CuptiSession::Phase::~Phase() {
  if (!open_) return;
  try {
    (void)session_.end(false);
  } catch (...) {  // unwinding already: the first error is the one to report
  }
}

PhaseRecords CuptiSession::Phase::finish() {
  open_ = false;
  return session_.end(true);
}

std::uint32_t CuptiSession::begin(std::size_t buffer_bytes, CorrelationKind kind, int device) {
  std::uint32_t tag = 0;
  {
    std::lock_guard<std::mutex> lock(phase_mutex_);
    if (phase_active_) {
      throw ConfigError(
          "another gpumeter measurement phase is running in this process: CUPTI has one "
          "activity session per process, so measure one call at a time");
    }
    phase_active_ = true;
    // 0 is untagged and all ones would make the PREPARE id: skip both when wrapping.
    do {
      ++phase_sequence_;
    } while (phase_sequence_ == 0 || phase_sequence_ == UINT32_MAX);
    tag = phase_sequence_;
    phase_device_ = device;
  }
  try {
    // Given back after the last call (release_subscription): claimed again, so a client that
    // took CUPTI meanwhile is named now. Only begin and release touch released_, and release
    // does nothing while this phase is active.
    if (released_) {
      claim_subscription();
      std::lock_guard<std::mutex> lock(phase_mutex_);
      released_ = false;
    }
    set_buffer_bytes(buffer_bytes);
    prefill_pool();
    {
      std::lock_guard<std::mutex> lock(records_mutex_);
      records_ = PhaseRecords{};
      collect_kind_ = to_cupti(kind);
      collect_tag_ = tag;
      collecting_ = true;
    }
    (void)read_dropped();  // the counter resets on read: what it says next is this phase's
    // Registered again for every phase: the buffer callbacks are one per process, and another
    // CUPTI client that ran in between (a profiler) may have registered its own.
    const CUptiResult registered =
        api_.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (registered != CUPTI_SUCCESS) {
      throw CuptiUnavailable("cuptiActivityRegisterCallbacks failed: " +
                             api_.result_text(registered));
    }
    // Before the kinds, as CUPTI asks: records made after it are in this clock.
    clock_refused_.clear();
    if (!register_clock_) {
      clock_refused_ = "not asked to (register_timestamp_clock is off)";
    } else if (api_.ActivityRegisterTimestampCallback == nullptr) {
      clock_refused_ = "this CUPTI has no cuptiActivityRegisterTimestampCallback";
    } else if (const CUptiResult c = api_.ActivityRegisterTimestampCallback(gpumeter_timestamp);
               c != CUPTI_SUCCESS) {
      clock_refused_ = "cuptiActivityRegisterTimestampCallback refused: " + api_.result_text(c);
    }
    enable_kinds();
  } catch (...) {
    disable_kinds();
    {
      std::lock_guard<std::mutex> lock(records_mutex_);
      collecting_ = false;
    }
    std::lock_guard<std::mutex> lock(phase_mutex_);
    phase_active_ = false;
    throw;
  }
  return tag;
}

void CuptiSession::enable_kinds() {
  for (const CUpti_ActivityKind kind : kPhaseKinds) {
    const CUptiResult r = api_.ActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      throw CuptiUnavailable("cuptiActivityEnable(kind " + std::to_string(static_cast<int>(kind)) +
                             ") failed: " + api_.result_text(r));
    }
  }
  // After the kinds: enabling a kind switches every API of its domain back on (measured on the
  // H200).
  for (const ApiSwitch& s : api_switches_) {
    if (s.runtime) {
      (void)api_.ActivityEnableRuntimeApi(s.cbid, s.enable);
    } else {
      (void)api_.ActivityEnableDriverApi(s.cbid, s.enable);
    }
  }
}

void CuptiSession::disable_kinds() noexcept {
  for (const CUpti_ActivityKind kind : kPhaseKinds) (void)api_.ActivityDisable(kind);
}

std::optional<std::uint64_t> CuptiSession::read_dropped() noexcept {
  // The global queue (context NULL), where CUDA 6+ puts every buffer, plus the current
  // context's queue in case this CUPTI counts there. Each resets on read, so the sum counts
  // nothing twice. This sum is exactly what the liveness probe checks.
  std::optional<std::uint64_t> total;
  std::size_t dropped = 0;
  if (api_.ActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) total = dropped;
  CUcontext ctx = nullptr;
  if (ctx_get_current_ != nullptr && ctx_get_current_(&ctx) == CUDA_SUCCESS && ctx != nullptr) {
    dropped = 0;
    if (api_.ActivityGetNumDroppedRecords(ctx, 0, &dropped) == CUPTI_SUCCESS) {
      total = total.value_or(0) + dropped;
    }
  }
  return total;
}

void CuptiSession::drain_device() noexcept {
  // Work still running when the phase ends (an exception left it in flight) would otherwise
  // complete its records into a later phase. Best effort: errors are the caller's to report.
  int device = 0;
  {
    std::lock_guard<std::mutex> lock(phase_mutex_);
    device = phase_device_;
  }
  int current = 0;
  const bool have_current = cudaGetDevice(&current) == cudaSuccess;
  if (cudaSetDevice(device) == cudaSuccess) (void)cudaDeviceSynchronize();
  if (have_current) (void)cudaSetDevice(current);
  (void)cudaGetLastError();  // not the measured call's error: keep it out of the next check
}

PhaseRecords CuptiSession::end(bool keep) {
  drain_device();
  // Forced: hands back every thread's buffer, partly filled ones included. Flushed again after
  // the kinds are off, for anything recorded while switching.
  const CUptiResult first = api_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  disable_kinds();
  const CUptiResult second = api_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const std::optional<std::uint64_t> dropped = read_dropped();
  PhaseRecords out;
  std::uint32_t tag = 0;
  {
    std::lock_guard<std::mutex> lock(records_mutex_);
    out = std::exchange(records_, PhaseRecords{});
    collecting_ = false;
    tag = collect_tag_;
  }
  {
    std::lock_guard<std::mutex> lock(phase_mutex_);
    phase_active_ = false;
  }
  if (!keep) return {};
  resolve_copy_ids(out);
  translate_external_ids(out, tag);
  if (first != CUPTI_SUCCESS || second != CUPTI_SUCCESS) {
    throw CuptiUnavailable("cuptiActivityFlushAll failed: " +
                           api_.result_text(first != CUPTI_SUCCESS ? first : second) +
                           "; the phase's records may be incomplete, so no number is produced");
  }
  out.dropped_counter = dropped;
  return out;
}

void CuptiSession::set_buffer_bytes(std::size_t bytes) {
  std::vector<std::uint8_t*> stale;
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (bytes == buffer_bytes_) return;
    buffer_bytes_ = bytes;
    stale.swap(free_buffers_);
  }
  for (std::uint8_t* b : stale) std::free(b);
}

void CuptiSession::prefill_pool() {
  std::size_t bytes = 0;
  std::size_t missing = 0;
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    bytes = buffer_bytes_;
    missing =
        free_buffers_.size() < kPrefilledBuffers ? kPrefilledBuffers - free_buffers_.size() : 0;
  }
  for (std::size_t k = 0; k < missing; ++k) {
    std::uint8_t* b = allocate_zeroed(bytes);
    if (b == nullptr) return;  // the request path tries again, and declines if it must
    // Touch every page now, on the measuring thread, not when CUPTI first writes them.
    std::memset(b, 0, bytes);
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (bytes != buffer_bytes_ || free_buffers_.size() >= kMaxPooledBuffers) {
      std::free(b);
      return;
    }
    free_buffers_.push_back(b);
  }
}

void CuptiSession::on_buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                       std::size_t* max_records) {
  *max_records = 0;  // as many as fit
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (!free_buffers_.empty()) {
    *buffer = free_buffers_.back();
    free_buffers_.pop_back();
    *size = buffer_bytes_;
    return;
  }
  // The pool ran dry (more threads than prefilled): allocate here, zeroed, as CUPTI expects.
  *buffer = allocate_zeroed(buffer_bytes_);
  // Declining (nullptr) makes CUPTI drop records, which the counter then reports.
  *size = *buffer != nullptr ? buffer_bytes_ : 0;
}

void CuptiSession::on_buffer_completed(std::uint8_t* buffer, std::size_t size, std::size_t valid) {
  if (buffer == nullptr) return;
  if (valid > 0) {
    std::lock_guard<std::mutex> lock(records_mutex_);
    // Outside a phase (late buffers, records CUPTI held back): dropped, never parsed.
    if (collecting_) parse_activity_buffer(api_, buffer, valid, collect_kind_, records_);
  }
  bool reuse = false;
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    reuse = size == buffer_bytes_ && free_buffers_.size() < kMaxPooledBuffers;
  }
  if (!reuse) {
    std::free(buffer);
    return;
  }
  // Zeroed here, on CUPTI's worker thread (or the flushing one), not on the launching thread.
  std::memset(buffer, 0, size);
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (size == buffer_bytes_ && free_buffers_.size() < kMaxPooledBuffers) {
    free_buffers_.push_back(buffer);
  } else {
    std::free(buffer);
  }
}

}  // namespace gpumeter::cuda
