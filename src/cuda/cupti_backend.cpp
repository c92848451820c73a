// The CUPTI collector (T1-T3, T6, T13): the core's driver runs every iteration; this
// backend labels each iteration's call with an external correlation id whose low 32 bits are
// its iteration number and whose high bits tag the phase (translated back to the number for
// the core), labels preparation kPrepareId, and joins the records of the whole phase once,
// after the final forced flush.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "cupti_session.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/summary.hpp"
#include "noop_kernel.hpp"

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
    throw ConfigError("the call left CUPTI's external-correlation stack of kind " +
                      std::string(to_string(kind_)) + " unbalanced (gpumeter pushed " +
                      std::to_string(id_) + what +
                      "): the call labels its own work with the kind gpumeter uses. Choose another "
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

  void open_phase(const PhaseRequest& request) override {
    if (request.iterations >= kGuardLow) {
      throw ConfigError("too many iterations in one phase: " + std::to_string(request.iterations));
    }
    const std::size_t buffer =
        buffer_bytes_for_attempt(options_.activity_buffer_bytes, request.attempt);
    start_phase();
    try {
      // Proven before the phase opens (the proof is a phase of its own); a no-op after the
      // first time in the process.
      counter_live_ = session_.drop_counter_live(options_.device);
      phase_.emplace(session_, buffer, options_.correlation_kind, options_.device);
    } catch (...) {
      end_phase();
      throw;
    }
    iterations_ = request.iterations;
  }

  void begin_prepare(std::size_t) override { open_label(kPrepareId); }
  void end_prepare(std::size_t) override { close_label(); }
  void begin_iteration(std::size_t iteration) override {
    open_label(tagged_id(phase_->tag(), static_cast<std::uint64_t>(iteration)));
  }
  void end_iteration(std::size_t) override { close_label(); }

  Trace close_phase() override {
    PhaseRecords records = phase_->finish();
    phase_.reset();
    end_phase();
    check_phase_records(session_.api(), records, iterations_, options_.correlation_kind);

    Trace trace;
    trace.activities = std::move(records.activities);
    trace.external_id_of = std::move(records.external_id_of);
    trace.counts_kernels = true;
    trace.measured_device = static_cast<std::uint32_t>(options_.device);
    // A loss seen in the records is a loss whatever the counter says; a zero is only
    // evidence when the counter has been shown to count (T6).
    if (counter_live_ && records.dropped_counter.has_value()) {
      trace.dropped_records = *records.dropped_counter + records.known_lost;
    } else if (records.known_lost > 0) {
      trace.dropped_records = records.known_lost;
    }
    return trace;
  }

  // Measured once per process and device (about 15 ms): a program that makes several backends
  // (the GPU tests make one per test) pays it once.
  std::optional<Nanos> launch_cost() override {
    static std::mutex mutex;
    static std::map<int, Nanos> measured;
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = measured.find(options_.device);
    if (found != measured.end()) return found->second;
    const Nanos cost = measure_launch_cost();
    measured.emplace(options_.device, cost);
    return cost;
  }

  void abandon_phase() noexcept override {
    label_.reset();  // unwinds what it pushed
    phase_.reset();  // closes the phase, discarding its records
    end_phase();
  }

 private:
  void open_label(std::uint64_t id) {
    label_.emplace(session_, options_.correlation_kind, phase_->tag(), id);
  }
  void close_label() {
    label_->close();
    label_.reset();
  }

  // The wall time of kLaunches empty-kernel launches and a synchronize, without CUPTI's records
  // and inside a labelled phase as an iteration's call runs, rounds of each (plain, watched,
  // plain: drift cancels); the difference of the medians per launch. The watched phase's
  // records are discarded.
  Nanos measure_launch_cost() {
    constexpr int kLaunches = 200;  // about 1 ms plain: long beside the clock, short to run
    constexpr int kRounds = 5;  // a median of 5 per side: one slow round (a preemption) is outvoted
    const int device = options_.device;
    check(cudaSetDevice(device), "cudaSetDevice", device);
    const auto round = [&] {
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (launch cost)", device);
      const auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < kLaunches; ++k) {
        check(launch_noop(cudaStreamLegacy), "launching the launch-cost kernel", device);
      }
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (launch cost)", device);
      return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
          .count();
    };
    (void)round();  // the module's first launch
    std::vector<double> plain;
    std::vector<double> watched;
    for (int r = 0; r < kRounds; ++r) plain.push_back(round());
    {
      CuptiSession::Phase phase(session_, options_.activity_buffer_bytes, options_.correlation_kind,
                                device);
      CorrelationLabel label(session_, options_.correlation_kind, phase.tag(),
                             tagged_id(phase.tag(), 0));
      (void)round();  // CUPTI's first instrumented launches of the kernel
      for (int r = 0; r < kRounds; ++r) watched.push_back(round());
      label.close();
    }  // not finished: its records are discarded
    for (int r = 0; r < kRounds; ++r) plain.push_back(round());
    const double cost = (quantile(watched, 0.5) - quantile(plain, 0.5)) / kLaunches;
    return cost > 0 ? static_cast<Nanos>(std::lround(cost)) : 0;
  }

  CuptiSession& session_;
  std::optional<CuptiSession::Phase> phase_;
  std::optional<CorrelationLabel> label_;
  std::size_t iterations_ = 0;
  bool counter_live_ = false;
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
