#pragma once
// The process's one CUPTI activity session: the library, one subscription, the buffer
// callbacks (registered once), and the activity kinds, enabled for a measurement phase and
// disabled after it (T2). Keeping one subscription for the whole process, rather than a
// session per phase, is what kept graph-launch correlation ids right in every phase on the
// H200 (measured there; docs/methodology.md).
#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cupti_api.hpp"
#include "gpumeter/backend/trace.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::cuda {

CUpti_ExternalCorrelationKind to_cupti(CorrelationKind kind);

// CUPTI held by another client of this process (a profiler): unavailable now, but worth asking
// again later, once that client has let go (a PyTorch profiler context that has ended).
class CuptiHeld : public CuptiUnavailable {
 public:
  using CuptiUnavailable::CuptiUnavailable;
};

// External ids carry the phase's identity (T3, T12): iteration i of the phase tagged `tag` is
// pushed as (tag << 32) | i, so its low bits still equal its iteration number, while ids the
// user's code pushes under the same kind (small integers, untagged) or ids leaked from an
// earlier phase (another tag) can never pass for one of this phase's iterations.
inline constexpr std::uint64_t kIterationBits = 32;
inline constexpr std::uint64_t kIterationMask = (std::uint64_t{1} << kIterationBits) - 1;
// Low bits reserved for the guard id pushed under each label (never an iteration).
inline constexpr std::uint64_t kGuardLow = kIterationMask;
// The harness's labels (gpumeter's own work, fresh inputs, resets, checks) carry the phase's tag
// like an iteration's, with these low bits: an id pushed by other code cannot pass for one
// (B11), as it cannot pass for an iteration. Iterations stay below kFirstReservedLow.
inline constexpr std::uint64_t kFirstReservedLow = kGuardLow - 4;
constexpr std::uint64_t harness_low(HarnessRole role) {
  switch (role) {
    case HarnessRole::own:
      return kGuardLow - 1;
    case HarnessRole::inputs:
      return kGuardLow - 2;
    case HarnessRole::reset:
      return kGuardLow - 3;
    case HarnessRole::check:
      return kGuardLow - 4;
  }
  return kGuardLow - 1;
}
// What an id of our kind that is not this phase's becomes in the Trace: >= any iteration
// count and none of the harness's ids, so the core reports its work as an orphan
// (OffThreadLaunch).
inline constexpr std::uint64_t kForeignId = kPrepareId - 1;
static_assert(kForeignId != kInputsId && kForeignId != kResetId && kForeignId != kCheckId);

constexpr std::uint64_t tagged_id(std::uint32_t tag, std::uint64_t low) {
  return (std::uint64_t{tag} << kIterationBits) | (low & kIterationMask);
}

// A launch-type API call that CUPTI recorded as failed (returnValue != 0).
struct FailedApi {
  std::uint64_t correlation_id = 0;
  bool runtime = true;  // runtime API domain, else driver
  CUpti_CallbackId cbid = 0;
  std::uint32_t return_value = 0;
};

// What one phase collected, joined after the final forced flush (CUDA 13 keeps a buffer per
// thread, so nothing is complete before that).
struct PhaseRecords {
  std::vector<Activity> activities;
  std::unordered_map<std::uint64_t, std::uint64_t> external_id_of;
  // Losses seen in the records themselves, whatever the counter says: a kernel, copy or fill
  // whose timestamps CUPTI could not collect, or a buffer that stopped parsing midway.
  std::uint64_t known_lost = 0;
  // cuptiActivityGetNumDroppedRecords for this phase; nullopt when it could not be read.
  std::optional<std::uint64_t> dropped_counter;
  // Copies also carry the id of the runtime API call that issued them, which CUPTI documents
  // apart from the driver-call id in correlationId: activity index -> runtime id.
  std::vector<std::pair<std::size_t, std::uint64_t>> copy_runtime_ids;
  // Launch-type API calls that returned an error, whatever their label (filtered by label
  // after translation).
  std::vector<FailedApi> failed_apis;
  // Kernel-launch API calls that succeeded (B11): each must have left a kernel record.
  std::vector<KernelLaunch> kernel_launches;
  // Set by translate_external_ids: activities labelled with our kind by an untagged id, i.e.
  // by code other than gpumeter (the call itself, or another thread) pushing our kind.
  std::size_t untagged_activities = 0;
  std::uint64_t untagged_example_id = 0;
  std::string untagged_example_name;
};

// The APIs whose records a phase keeps: those that put work on the device (T2). Exposed for
// tests, with the two functions below.
bool is_launch_type_api(std::string_view name);
// Of those, the kernel launches the collection check counts (B11): an iteration with fewer kernel
// records than such launches through either API stopped collection. The core's kernel launches
// (is_kernel_launch_api, ranges.hpp) less the multi-device cooperative launch: see the definition.
bool is_collection_checked_kernel_launch(std::string_view name);

// Appends the records of one completed buffer to `into`: kernels, copies and fills as
// activities, and the external ids of `kind` (no other kind) by correlation id.
void parse_activity_buffer(const CuptiApi& api, std::uint8_t* buffer, std::size_t valid,
                           CUpti_ExternalCorrelationKind kind, PhaseRecords& into);

// After the last buffer of a phase: copies take their runtime call's id where only that one
// was labelled.
void resolve_copy_ids(PhaseRecords& records);

// After resolve_copy_ids: maps external ids to what the core attributes by. This phase's
// tagged ids become their iteration number or their harness role's id (kPrepareId, kInputsId,
// ...), every other id (another tag, the guard, untagged) becomes kForeignId; activities
// carrying an untagged id are counted.
void translate_external_ids(PhaseRecords& records, std::uint32_t tag);

// After translation, the failures the records show that the core cannot name; both are
// deterministic, so they are raised before the core would take them for lost records and
// retry. ConfigError: work labelled with an untagged id of our kind `kind` (T12). DeviceError:
// a launch API of an iteration that returned an error.
void check_phase_records(const CuptiApi& api, const PhaseRecords& records, std::size_t n_iterations,
                         CorrelationKind kind);

class CuptiSession {
 public:
  // Loads libcupti, subscribes, registers the buffer callbacks and classifies the API
  // callback ids. Throws CuptiUnavailable naming the cause; CuptiHeld when another client of
  // this process holds the subscription, unless `share_with_idle_client`: then the session goes
  // on without a subscription of its own (the activity API needs none), on the caller's word
  // that the other client is not collecting now.
  explicit CuptiSession(bool share_with_idle_client = false);
  CuptiSession(const CuptiSession&) = delete;
  CuptiSession& operator=(const CuptiSession&) = delete;

  const CuptiApi& api() const { return api_; }

  // Gives the subscription back until the next phase, which claims it again (failing as the
  // constructor does when another client took it meanwhile). For a front end that shares its
  // process with another CUPTI client between measurements: PyTorch's profiler started after a
  // measurement finds CUPTI free. No-op while a phase runs or when none is held.
  void release_subscription() noexcept;
  // Whether a later claim may go on without a subscription when another client holds one it
  // is not using (as the constructor's argument; the caller's word, given per call).
  void set_share_with_idle_client(bool share) noexcept { share_with_idle_client_ = share; }
  // Whether the next phases register gpumeter's timestamp clock before they start (T14; see
  // CudaBackendOptions::register_timestamp_clock), set by the backend before each phase.
  void set_register_clock(bool register_clock) noexcept { register_clock_ = register_clock; }

  // Whether cuptiActivityGetNumDroppedRecords is shown to count: proven once per process by
  // handing CUPTI buffers too small for any record while work is traced (on `device`), and
  // checking that the counter rises. Until then, and if it never rises, a zero reading
  // proves nothing (T6).
  bool drop_counter_live(int device);
  std::optional<bool> drop_counter_known() const;

  // One measurement phase: kinds on while it lives. Only one per process at a time.
  class Phase {
   public:
    // Throws ConfigError when another phase is running, CuptiUnavailable when CUPTI refuses.
    // `device` is drained (best effort) before the final flush, so no record of this
    // phase's work is still pending when the kinds go off.
    Phase(CuptiSession& session, std::size_t buffer_bytes, CorrelationKind kind, int device);
    ~Phase();  // a phase not finished (an exception) is closed and its records discarded
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

    // Flushes (forced), switches the kinds off and returns what was collected. The caller
    // has drained the device first, so every record is complete.
    PhaseRecords finish();

    // This phase's identity in the high bits of its ids; never 0 (untagged) or all ones.
    std::uint32_t tag() const { return tag_; }

   private:
    CuptiSession& session_;
    std::uint32_t tag_ = 0;
    bool open_ = true;
  };

  // What a timestamp-unit error should say about the clock's possible owners (T14): whether
  // gpumeter's own clock was registered for the last phase, which CUPTI libraries the process
  // has loaded, and which client holds the subscription when gpumeter shares it.
  std::string clock_owners() const;

  // The external-correlation id stack is per thread: ids pushed here label the launches of
  // the calling thread only (which is how an off-thread launch is caught, T12).
  void push(CorrelationKind kind, std::uint64_t id);
  // Pops the top id of `kind` into `id`; false when CUPTI refuses (an empty stack).
  bool pop(CorrelationKind kind, std::uint64_t& id) noexcept;

  // Buffer callbacks, routed here from CUPTI's C callbacks.
  void on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
  void on_buffer_completed(std::uint8_t* buffer, std::size_t size, std::size_t valid);

 private:
  struct ApiSwitch {
    bool runtime;  // runtime API domain, else driver
    CUpti_CallbackId cbid;
    std::uint8_t enable;
  };

  void claim_subscription();
  std::uint32_t begin(std::size_t buffer_bytes, CorrelationKind kind, int device);
  PhaseRecords end(bool keep);
  void drain_device() noexcept;
  void prefill_pool();
  void enable_kinds();
  void disable_kinds() noexcept;
  std::optional<std::uint64_t> read_dropped() noexcept;
  void set_buffer_bytes(std::size_t bytes);
  void classify_apis();

  CuptiApi api_;
  CUpti_SubscriberHandle subscriber_ = nullptr;  // nullptr when sharing with an idle client
  std::atomic<bool> share_with_idle_client_{false};
  std::atomic<bool> register_clock_{true};
  bool released_ = false;  // release_subscription() ran; the next phase claims it again
  // The other client's name when gpumeter goes on without a subscription of its own.
  std::string holder_name_;
  // The last phase's registration of gpumeter's timestamp clock: "" when accepted, else why not.
  std::string clock_refused_;
  // cuCtxGetCurrent from the driver, through cudart (linking libcuda would stop a program on a
  // machine without a driver before main); nullptr when unavailable.
  CUresult (*ctx_get_current_)(CUcontext*) = nullptr;
  std::mutex probe_mutex_;  // one drop-counter proof at a time
  std::vector<ApiSwitch> api_switches_;

  mutable std::mutex phase_mutex_;  // guards phase_active_ and drop_counter_live_
  bool phase_active_ = false;
  std::optional<bool> drop_counter_live_;
  // Per process, one per phase (retries and the probe included); 0 means untagged.
  std::uint32_t phase_sequence_ = 0;
  int phase_device_ = 0;

  // Buffers: one size at a time; returned buffers of that size are zeroed on CUPTI's worker
  // thread and reused, so the request path (which runs on the launching thread) neither
  // allocates fresh pages nor zeroes (ZEROED_OUT_ACTIVITY_BUFFER is set: CUPTI expects them
  // zeroed).
  std::mutex pool_mutex_;
  std::size_t buffer_bytes_ = kDefaultActivityBufferBytes;
  std::vector<std::uint8_t*> free_buffers_;

  // Records of the running phase, appended by the completion callback from any thread.
  std::mutex records_mutex_;
  CUpti_ExternalCorrelationKind collect_kind_ = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  // False outside a phase: buffers completed then are dropped, not parsed into records_, so
  // nothing late from one phase can land in the next.
  bool collecting_ = false;
  std::uint32_t collect_tag_ = 0;
  PhaseRecords records_;
};

}  // namespace gpumeter::cuda
