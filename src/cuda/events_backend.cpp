// The CUDA-events fallback (T11): one event pair per iteration around the call. It
// cannot see kernels, so each iteration is one region, device_busy == latency, and the rows
// carry the method device-events and the reason it was chosen.
//
// The events are recorded on the legacy default stream. Work the call puts on any blocking
// stream (cudaStreamCreate, the legacy or per-thread default stream) is ordered after the
// start event and before the end event, whichever stream the call uses, so the pair brackets
// it without gpumeter knowing the stream. Its limit: a stream created with
// cudaStreamNonBlocking, or another device, is not ordered with the legacy stream, and its
// work can escape the bracket. The reading then also includes launch gaps and event
// overhead, and has cudaEventElapsedTime's resolution (about 0.5 us).
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#include <optional>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "cuda_util.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::cuda {
namespace {

class EventsBackend final : public CudaBackendBase {
 public:
  EventsBackend(const CudaBackendOptions& options, DeviceIdentity identity, std::string reason)
      : CudaBackendBase(options, std::move(identity)), reason_(std::move(reason)) {}

  TimingMethod method() const override { return TimingMethod::device_events; }
  std::string reason() const override { return reason_; }

  void open_phase(const PhaseRequest& request) override {
    start_phase();
    try {
      starts_ = std::vector<Event>(request.iterations);
      ends_ = std::vector<Event>(request.iterations);
      // One time origin for the phase, so the regions lie on one axis. Created here, once the
      // measured device is current, like every event of the phase.
      origin_.emplace();
      check(cudaEventRecord(origin_->get(), cudaStreamLegacy), "cudaEventRecord", options_.device);
    } catch (...) {
      abandon_phase();
      throw;
    }
  }

  void begin_prepare(std::size_t) override {}
  void end_prepare(std::size_t) override {}
  void begin_iteration(std::size_t iteration) override {
    check(cudaEventRecord(starts_.at(iteration).get(), cudaStreamLegacy), "cudaEventRecord",
          options_.device);
  }
  void end_iteration(std::size_t iteration) override {
    check(cudaEventRecord(ends_.at(iteration).get(), cudaStreamLegacy), "cudaEventRecord",
          options_.device);
  }

  Trace close_phase() override {
    const int dev = options_.device;
    Trace trace;
    trace.counts_kernels = false;
    trace.dropped_records = 0;  // each pair is read back explicitly; a failed read throws
    trace.activities.reserve(starts_.size());
    try {
      for (std::size_t i = 0; i < starts_.size(); ++i) {
        // The duration from its own pair, not as a difference of two offsets from the origin.
        const Nanos start = elapsed_ns(origin_->get(), starts_[i].get(), dev);
        const Nanos duration = elapsed_ns(starts_[i].get(), ends_[i].get(), dev);
        const std::uint64_t correlation = i + 1;
        Activity a;
        a.kind = ActivityKind::region;
        a.start_ns = start;
        a.end_ns = start + duration;
        a.correlation_id = correlation;
        a.device = static_cast<std::uint32_t>(dev);
        a.name = "cuda event pair";
        trace.activities.push_back(std::move(a));
        trace.external_id_of.emplace(correlation, static_cast<std::uint64_t>(i));
      }
    } catch (...) {
      abandon_phase();
      throw;
    }
    abandon_phase();  // nothing left to keep: the events go back
    return trace;
  }

  void abandon_phase() noexcept override {
    starts_.clear();
    ends_.clear();
    origin_.reset();
    end_phase();
  }

 private:
  std::string reason_;
  std::optional<Event> origin_;
  std::vector<Event> starts_;
  std::vector<Event> ends_;
};

}  // namespace

std::unique_ptr<Backend> make_events_backend(const CudaBackendOptions& options,
                                             DeviceIdentity identity, std::string reason) {
  return std::make_unique<EventsBackend>(options, std::move(identity), std::move(reason));
}

}  // namespace gpumeter::cuda
