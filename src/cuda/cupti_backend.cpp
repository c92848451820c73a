// The CUPTI backend (SPEC T1-T3, T5, T6, T13): every iteration's call runs under an external
// correlation id whose low 32 bits are its iteration number and whose high bits tag the phase
// (translated back to the number for the core), preparation under kPrepareId, and the
// records of the whole phase are joined once, after the final forced flush.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#include <limits>
#include <utility>

#include "backends.hpp"
#include "cuda_process.hpp"
#include "cupti_session.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "iteration.hpp"

namespace gpumeter::cuda {
namespace {

// Labels the launches of this thread with one external id while it lives. Under the id it
// pushes a guard id (this phase's tag, low bits all ones) that marks where its stack began: a
// call that pushes our kind itself and leaves it on the stack, or pops ours, is cleaned up
// down to the guard and never below, so ids pushed by the caller's own code stay put.
class CorrelationLabel {
 public:
  static constexpr int kMaxStrayIds = 64;  // bounds the clean-up after an unbalanced call

  CorrelationLabel(CuptiSession& session, CorrelationKind kind, std::uint32_t tag, std::uint64_t id)
      : session_(session), kind_(kind), guard_(tagged_id(tag, kGuardLow)), id_(id) {
    session_.push(kind_, guard_);
    try {
      session_.push(kind_, id_);
    } catch (...) {
      std::uint64_t popped = 0;
      (void)session_.pop(kind_, popped);
      throw;
    }
  }
  ~CorrelationLabel() {
    if (open_) (void)unwind();  // unwinding already: nothing to report
  }
  CorrelationLabel(const CorrelationLabel&) = delete;
  CorrelationLabel& operator=(const CorrelationLabel&) = delete;

  void close() {
    open_ = false;
    const Unwound how = unwind();
    if (how == Unwound::balanced) return;
    std::string what = " and could not find it again within " + std::to_string(kMaxStrayIds) +
                       " ids: the call popped more than it pushed, or pushed that many";
    if (how == Unwound::left_above) what = " and found ids the call pushed above it";
    if (how == Unwound::popped_ours) what = " and the call popped it";
    throw ConfigError(
        "the call left CUPTI's external-correlation stack of kind " +
        std::string(to_string(kind_)) + " unbalanced (gpumeter pushed " + std::to_string(id_) +
        what +
        "): the call labels its own work with the kind gpumeter uses (T12). Choose another "
        "kind with CudaBackendOptions::correlation_kind.");
  }

 private:
  enum class Unwound { balanced, left_above, popped_ours, lost };

  // Pops our id and the guard under it, and whatever the call left above them; stops at the
  // guard, so nothing below our label is ever popped.
  Unwound unwind() noexcept {
    std::uint64_t popped = 0;
    for (int k = 0; k <= kMaxStrayIds; ++k) {
      if (!session_.pop(kind_, popped)) return Unwound::lost;
      if (popped == guard_) return Unwound::popped_ours;
      if (popped == id_) {
        if (!session_.pop(kind_, popped) || popped != guard_) return Unwound::lost;
        return k == 0 ? Unwound::balanced : Unwound::left_above;
      }
    }
    return Unwound::lost;
  }

  CuptiSession& session_;
  CorrelationKind kind_;
  std::uint64_t guard_;
  std::uint64_t id_;
  bool open_ = true;
};

class CuptiBackend final : public CudaBackendBase {
 public:
  CuptiBackend(const CudaBackendOptions& options, DeviceIdentity identity, CuptiSession& session)
      : CudaBackendBase(options, std::move(identity)), session_(session) {}

  TimingMethod method() const override { return TimingMethod::cupti; }

  Trace run_phase(const Call& call, const PhaseRequest& request) override {
    const std::size_t buffer =
        buffer_bytes_for_attempt(options_.activity_buffer_bytes, request.attempt);
    IterationRunner runner = start_phase();
    // Proven before the phase opens (the proof is a phase of its own); a no-op after the
    // first time in the process.
    const bool counter_live = session_.drop_counter_live(options_.device);

    if (request.iterations >= kGuardLow) {
      throw ConfigError("too many iterations in one phase: " + std::to_string(request.iterations));
    }

    PhaseRecords records;
    {
      CuptiSession::Phase phase(session_, buffer, options_.correlation_kind, options_.device);
      const std::uint32_t tag = phase.tag();
      for (std::size_t i = 0; i < request.iterations; ++i) {
        {
          CorrelationLabel label(session_, options_.correlation_kind, tag, kPrepareId);
          runner.prepare(call, i);
          label.close();
        }
        runner.drain(i, "preparation");
        {
          CorrelationLabel label(session_, options_.correlation_kind, tag,
                                 tagged_id(tag, static_cast<std::uint64_t>(i)));
          runner.run(call, i);
          label.close();
        }
        runner.drain(i, "the measured call");
      }
      records = phase.finish();
    }
    check_phase_records(session_.api(), records, request.iterations, options_.correlation_kind);

    Trace trace;
    trace.activities = std::move(records.activities);
    trace.external_id_of = std::move(records.external_id_of);
    trace.counts_kernels = true;
    trace.measured_device = static_cast<std::uint32_t>(options_.device);
    // A loss seen in the records is a loss whatever the counter says; a zero is only
    // evidence when the counter has been shown to count (T6).
    if (counter_live && records.dropped_counter.has_value()) {
      trace.dropped_records = *records.dropped_counter + records.known_lost;
    } else if (records.known_lost > 0) {
      trace.dropped_records = records.known_lost;
    }
    return trace;
  }

 private:
  CuptiSession& session_;
};

}  // namespace

std::size_t buffer_bytes_for_attempt(std::size_t base, int attempt) {
  if (attempt < 0) throw ConfigError("PhaseRequest.attempt is negative");
  std::size_t bytes = base;
  for (int a = 0; a < attempt; ++a) {
    constexpr auto kGrowth = static_cast<std::size_t>(kBufferGrowthPerAttempt);
    if (bytes > std::numeric_limits<std::size_t>::max() / kGrowth) {
      throw ConfigError("activity buffer size overflows at attempt " + std::to_string(attempt));
    }
    bytes *= kGrowth;
  }
  return bytes;
}

std::unique_ptr<Backend> make_cupti_backend(const CudaBackendOptions& options,
                                            DeviceIdentity identity, CuptiSession& session) {
  return std::make_unique<CuptiBackend>(options, std::move(identity), session);
}

}  // namespace gpumeter::cuda
