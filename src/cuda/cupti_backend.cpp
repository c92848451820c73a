// The CUPTI collector (T1-T3, T6, T13): the core's driver runs every iteration; this
// backend labels each iteration's call with an external correlation id whose low 32 bits are
// its iteration number and whose high bits tag the phase (translated back to the number for
// the core), labels the harness's work by its role (gpumeter's own, fresh inputs, reset, check;
// tagged the same way), and joins the records of the whole phase once,
// after the final forced flush.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attribute.hpp"
#include "backends.hpp"
#include "clock_probe.hpp"
#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "cupti_session.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "noop_kernel.hpp"
#include "timestamp_unit.hpp"

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

// The clock probes' kernels among a phase's records, in the order they ran: gpumeter's probe
// kernel, launched under the prepare label (so never part of a sample).
std::vector<const Activity*> find_clock_probes(
    const std::vector<Activity>& activities,
    const std::unordered_map<std::uint64_t, std::uint64_t>& external_id_of) {
  std::vector<const Activity*> found;
  for (const Activity& a : activities) {
    if (a.kind != ActivityKind::kernel || a.name != kClockProbeKernelName) continue;
    const auto id = external_id_of.find(a.correlation_id);
    if (id != external_id_of.end() && id->second == kPrepareId) found.push_back(&a);
  }
  std::sort(found.begin(), found.end(),
            [](const Activity* x, const Activity* y) { return x->start_ns < y->start_ns; });
  return found;
}

// The phase's two clock probes: their slots (two readings each) in the stamps buffer.
constexpr std::size_t kFirstProbe = 0;
constexpr std::size_t kLastProbe = 1;
constexpr std::size_t kProbeSlots = 2;

class CuptiBackend final : public CudaBackendBase {
 public:
  CuptiBackend(const CudaBackendOptions& options, DeviceIdentity identity, CuptiSession& session)
      : CudaBackendBase(options, std::move(identity)),
        session_(session),
        stamps_(kProbeSlots * 2 * sizeof(std::uint64_t), options.device) {}

  TimingMethod method() const override { return TimingMethod::kernel_records; }

  void open_phase(const PhaseRequest& request) override {
    if (request.iterations >= kFirstReservedLow) {
      throw ConfigError("too many iterations in one phase: " + std::to_string(request.iterations));
    }
    const std::size_t buffer =
        buffer_bytes_for_attempt(options_.activity_buffer_bytes, request.attempt);
    start_phase();
    session_.set_register_clock(options_.register_timestamp_clock);
    try {
      // Proven before the phase opens (the proof is a phase of its own); a no-op after the
      // first time in the process.
      counter_live_ = session_.drop_counter_live(options_.device);
      phase_.emplace(session_, buffer, options_.correlation_kind, options_.device);
      // T14: the first clock probe, before iteration 0's preparation.
      launch_probe(phase_->tag(), kFirstProbe, 0);
    } catch (...) {
      phase_.reset();
      end_phase();
      release_if_asked();
      throw;
    }
    iterations_ = request.iterations;
    canaries_ = 0;
  }

  // B11: a canary opens every preparation (so one precedes every call, and each check's), and one
  // follows the last iteration (close_phase): their records prove collection was on around every
  // call. On the legacy stream, before the reset and the flush: outside every timed window.
  void begin_prepare(std::size_t iteration) override {
    open_label(own_id());
    launch_canary_now(iteration);
  }
  void label_prepare(HarnessRole role) override {
    close_label();
    open_label(tagged_id(phase_->tag(), harness_low(role)));
  }
  void end_prepare(std::size_t) override { close_label(); }
  void begin_iteration(std::size_t iteration) override {
    open_label(tagged_id(phase_->tag(), static_cast<std::uint64_t>(iteration)));
  }
  void end_iteration(std::size_t) override { close_label(); }

  Trace close_phase() override {
    // The last clock probe, after the last iteration's drain (the first probe's stamps are
    // written by now), at least kMinProbeSpanNs after the first began; then wait for it, so its
    // stamps are written and its record is complete before the final flush.
    check(cudaSetDevice(options_.device), "cudaSetDevice", options_.device);
    {
      CorrelationLabel label(session_, options_.correlation_kind, phase_->tag(), own_id());
      launch_canary_now(iterations_);
      label.close();
    }
    check(cudaDeviceSynchronize(), "waiting for the first clock probe", options_.device);
    const std::uint64_t first_start = stamps(kFirstProbe)[0];
    launch_probe(phase_->tag(), kLastProbe,
                 first_start == 0 ? 0 : first_start + detail::kMinProbeSpanNs);
    check(cudaSetDevice(options_.device), "cudaSetDevice", options_.device);
    check(cudaDeviceSynchronize(), "waiting for the clock probe", options_.device);
    PhaseRecords records = phase_->finish();
    phase_.reset();
    end_phase();
    // Given back after every phase when asked, the calibration below included, whatever happens.
    struct Release {
      CuptiBackend& backend;
      ~Release() { backend.release_if_asked(); }
    } release{*this};
    check_phase_records(session_.api(), records, iterations_, options_.correlation_kind);

    Trace trace;
    trace.names.tool = "CUPTI";
    // A timestamp clock registered while a phase ran was seen on the H200 to stop them too.
    trace.names.switched_off_by =
        "cuptiActivityDisable, cuptiUnsubscribe, cuptiFinalize, or a timestamp clock registered "
        "while the phase ran";
    trace.canary_name = kCanaryKernelName;
    trace.canaries_launched = canaries_;
    trace.kernel_launches = std::move(records.kernel_launches);
    trace.device_shared = options_.device_shared;
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
    check_timestamp_unit(trace);
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
    release_if_asked();
  }

 private:
  void release_if_asked() noexcept {
    if (options_.release_cupti_after_each_phase) session_.release_subscription();
  }

  void launch_canary_now(std::size_t iteration) {
    (void)iteration;
    check(launch_canary(cudaStreamLegacy), "launching gpumeter's canary", options_.device);
    ++canaries_;
  }

  std::uint64_t* stamps(std::size_t slot) const {
    return static_cast<std::uint64_t*>(stamps_.get()) + 2 * slot;
  }

  // A clock probe on the legacy stream under the prepare label (never timed), writing its
  // stamps to `slot`.
  void launch_probe(std::uint32_t tag, std::size_t slot, std::uint64_t not_before) {
    CorrelationLabel label(session_, options_.correlation_kind, tag,
                           tagged_id(tag, harness_low(HarnessRole::own)));
    std::uint64_t* s = stamps(slot);
    s[0] = 0;
    s[1] = 0;
    check(launch_clock_probe(static_cast<std::uint64_t>(detail::kPhaseProbeNs), not_before, s,
                             cudaStreamLegacy),
          "launching gpumeter's clock probe", options_.device);
    label.close();
  }

  // The probe in `slot` as the device timed it and as `record` reported it.
  detail::ClockProbe probe_reading(std::size_t slot, const Activity& record) const {
    const volatile std::uint64_t* s = stamps(slot);
    return detail::ClockProbe{static_cast<Nanos>(s[0]), static_cast<Nanos>(s[1]), record.start_ns,
                              record.end_ns};
  }

  // T14: the phase's readings are kept only in nanoseconds: confirmed by the probes, or
  // converted by the scale they measured; otherwise TimestampUnitMismatch, nothing measured.
  void check_timestamp_unit(Trace& trace) {
    const std::vector<const Activity*> probes =
        find_clock_probes(trace.activities, trace.external_id_of);
    if (probes.size() < kProbeSlots) {
      // Canaries missing too, with no loss counted: collection stopped, which the core names
      // (CollectionStopped) before anything that depends on the probes.
      // The core's one definition of a canary seen (under gpumeter's own label).
      if (!trace.dropped_records.value_or(0) &&
          gpumeter::canaries_seen(trace) < trace.canaries_launched) {
        return;
      }
      // A probe's record is a record like any other: its loss fails the phase as lost records
      // do, and the core repeats it with larger buffers.
      trace.dropped_records = trace.dropped_records.value_or(0) + kProbeSlots - probes.size();
      return;
    }
    if (probes.size() > kProbeSlots) {
      throw ConfigError(std::to_string(probes.size()) + " records of gpumeter's clock probe (" +
                        kClockProbeKernelName + ") in one phase, where it launched " +
                        std::to_string(kProbeSlots) +
                        ": the call launches a kernel of that name under gpumeter's prepare "
                        "label, so its unit check cannot be trusted. Rename the kernel.");
    }
    const detail::ClockProbe first = probe_reading(kFirstProbe, *probes[0]);
    const detail::ClockProbe last = probe_reading(kLastProbe, *probes[1]);
    const detail::UnitJudgement j = detail::judge_phase_probes(first, last);
    switch (j.finding) {
      case detail::UnitFinding::nanoseconds:
        trace.timestamp_unit = TimestampUnit{1.0, false};
        return;
      case detail::UnitFinding::other_unit:
        detail::convert_timestamps(trace, j.slope);
        return;
      case detail::UnitFinding::probe_failed:
        throw DeviceError("gpumeter's clock probes on CUDA device " +
                          std::to_string(options_.device) + " could not be read (" +
                          detail::describe_probe(first) + "; " + detail::describe_probe(last) +
                          "), so the unit of CUPTI's timestamps could not be checked and nothing "
                          "was measured. The device may not support %globaltimer.");
      case detail::UnitFinding::changed_in_phase:
        break;
    }
    throw TimestampUnitMismatch(
        "CUPTI's clock changed while a measurement phase ran: before the first iteration " +
        detail::describe_probe(first) + ", after the last " + detail::describe_probe(last) +
        ", which no one unit explains. Another CUPTI client in this process registered its own "
        "timestamp clock meanwhile (" +
        session_.clock_owners() +
        "). Nothing was measured: measure while no other CUPTI client starts or changes its "
        "clock.");
  }

  // gpumeter's own work (canaries, the flush, the clock probes) in the open phase.
  std::uint64_t own_id() const { return tagged_id(phase_->tag(), harness_low(HarnessRole::own)); }

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
  HostMappedBuffer stamps_;  // the clock probes' own readings (T14)
  std::optional<CuptiSession::Phase> phase_;
  std::optional<CorrelationLabel> label_;
  std::size_t iterations_ = 0;
  std::size_t canaries_ = 0;  // launched in the open phase
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
