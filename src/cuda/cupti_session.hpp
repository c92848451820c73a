#pragma once
// The process's one CUPTI activity session: the library, one subscription, the buffer
// callbacks (registered once), and the activity kinds, enabled for a measurement phase and
// disabled after it (SPEC T2). Keeping one subscription for the whole process, rather than a
// session per phase, is what kept graph-launch correlation ids right in every phase on the
// H200 (NOTES-H200.md).
#include <cupti.h>

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
#include "gpumeter/activity.hpp"
#include "gpumeter/cuda_backend.hpp"

namespace gpumeter::cuda {

CUpti_ExternalCorrelationKind to_cupti(CorrelationKind kind);

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
};

// The APIs whose records a phase keeps: those that put work on the device (T2). Exposed for
// tests, with the two functions below.
bool is_launch_type_api(std::string_view name);

// Appends the records of one completed buffer to `into`: kernels, copies and fills as
// activities, and the external ids of `kind` (no other kind) by correlation id.
void parse_activity_buffer(const CuptiApi& api, std::uint8_t* buffer, std::size_t valid,
                           CUpti_ExternalCorrelationKind kind, PhaseRecords& into);

// After the last buffer of a phase: copies take their runtime call's id where only that one
// was labelled.
void resolve_copy_ids(PhaseRecords& records);

class CuptiSession {
 public:
  // Loads libcupti, subscribes, registers the buffer callbacks and classifies the API
  // callback ids. Throws CuptiUnavailable naming the cause.
  CuptiSession();
  CuptiSession(const CuptiSession&) = delete;
  CuptiSession& operator=(const CuptiSession&) = delete;

  const CuptiApi& api() const { return api_; }

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
    Phase(CuptiSession& session, std::size_t buffer_bytes, CorrelationKind kind);
    ~Phase();  // a phase not finished (an exception) is closed and its records discarded
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

    // Flushes (forced), switches the kinds off and returns what was collected. The caller
    // has drained the device first, so every record is complete.
    PhaseRecords finish();

   private:
    CuptiSession& session_;
    bool open_ = true;
  };

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

  void begin(std::size_t buffer_bytes, CorrelationKind kind);
  PhaseRecords end(bool keep);
  void enable_kinds();
  void disable_kinds() noexcept;
  std::optional<std::uint64_t> read_dropped() noexcept;
  void set_buffer_bytes(std::size_t bytes);
  void classify_apis();

  CuptiApi api_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  // cuCtxGetCurrent from the driver, through cudart (linking libcuda would stop a program on a
  // machine without a driver before main); nullptr when unavailable.
  CUresult (*ctx_get_current_)(CUcontext*) = nullptr;
  std::mutex probe_mutex_;  // one drop-counter proof at a time
  std::vector<ApiSwitch> api_switches_;

  mutable std::mutex phase_mutex_;  // guards phase_active_ and drop_counter_live_
  bool phase_active_ = false;
  std::optional<bool> drop_counter_live_;

  // Buffers: one size at a time; returned buffers of that size are reused so the request
  // path (which runs on the launching thread) does not allocate fresh pages.
  std::mutex pool_mutex_;
  std::size_t buffer_bytes_ = kDefaultActivityBufferBytes;
  std::vector<std::uint8_t*> free_buffers_;

  // Records of the running phase, appended by the completion callback from any thread.
  std::mutex records_mutex_;
  CUpti_ExternalCorrelationKind collect_kind_ = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  PhaseRecords records_;
};

}  // namespace gpumeter::cuda
