// The synchronized wall clock for GPU work (P4): the host's steady clock around the call, the
// measured device idle before it (the driver drains after preparation) and drained again
// before the clock is read after it. Statistic synchronized_wall_clock: what a user-visible
// call costs end to end (launch overhead, host work and device time), never compared with
// device_busy or device_event rows.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "backends.hpp"
#include "procfs.hpp"

namespace gpumeter::cuda {
namespace {

class WallBackend final : public CudaBackendBase {
 public:
  using CudaBackendBase::CudaBackendBase;

  TimingMethod method() const override { return TimingMethod::host_clock; }
  // A host clock: the load its readings ran under, for a verdict of no difference to state.
  std::optional<double> load_average() override { return detail::load_average(); }

  void open_phase(const PhaseRequest& request) override {
    start_phase();
    trace_ = Trace{};
    trace_.counts_kernels = false;
    trace_.dropped_records = 0;  // nothing to lose: each reading is taken here
    trace_.measured_device = static_cast<std::uint32_t>(options_.device);
    trace_.activities.reserve(request.iterations);
  }
  void begin_prepare(std::size_t) override {}
  void end_prepare(std::size_t) override {}
  void begin_iteration(std::size_t) override { start_ = Clock::now(); }
  void end_iteration(std::size_t iteration) override {
    steps().drain(iteration, "the measured call");  // the call's device work is in the time
    const auto end = Clock::now();
    Activity a;
    a.kind = ActivityKind::region;
    a.start_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(start_.time_since_epoch()).count();
    a.end_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end.time_since_epoch()).count();
    a.correlation_id = iteration + 1;
    a.device = static_cast<std::uint32_t>(options_.device);
    a.name = "synchronized call";
    trace_.activities.push_back(std::move(a));
    trace_.external_id_of.emplace(iteration + 1, iteration);
  }
  Trace close_phase() override {
    end_phase();
    return std::move(trace_);
  }
  void abandon_phase() noexcept override {
    trace_ = Trace{};
    end_phase();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Trace trace_;
  Clock::time_point start_;
};

}  // namespace

std::unique_ptr<Backend> make_wall_backend(const CudaBackendOptions& options,
                                           DeviceIdentity identity) {
  return std::make_unique<WallBackend>(options, std::move(identity));
}

}  // namespace gpumeter::cuda
