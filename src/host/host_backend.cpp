#include "gpumeter/host_backend.hpp"

#include <sys/utsname.h>
#include <unistd.h>
#include <cstddef>
#include <cstdint>

#include <chrono>
#include <optional>
#include <string>

#include "gpumeter/backend/trace.hpp"
#include "procfs.hpp"

namespace gpumeter {
namespace {

class HostBackend final : public Backend {
 public:
  explicit HostBackend(std::optional<int> stand_in = std::nullopt) : stand_in_(stand_in) {}

  TimingMethod method() const override { return TimingMethod::host_clock; }

  DeviceIdentity device() const override {
    DeviceIdentity id;
    id.kind = "host";
    id.index = stand_in_.value_or(0);
    id.name = "host CPU";
    if (stand_in_) id.uuid = "stand-in-" + std::to_string(*stand_in_);
    utsname u{};
    if (uname(&u) == 0) id.arch = u.machine;
    // The machine's physical memory: the reader bounds each host row's peak resident memory by
    // it, as a GPU row's device memory by the GPU's.
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) id.memory_bytes = static_cast<long long>(pages) * page;
    return id;
  }

  // The Collector: each call is one region under its own correlation id, timed by the steady
  // clock right around it. Nothing here can lose a record, so the dropped count is a true zero.
  void open_phase(const PhaseRequest& request) override {
    trace_ = Trace{};
    trace_.counts_kernels = false;
    trace_.dropped_records = 0;
    trace_.activities.reserve(request.iterations);
  }
  void begin_prepare(std::size_t) override {}
  void end_prepare(std::size_t) override {}
  void begin_iteration(std::size_t) override { start_ = Clock::now(); }
  void end_iteration(std::size_t iteration) override {
    const auto end = Clock::now();
    const std::uint64_t correlation = iteration + 1;
    Activity a;
    a.kind = ActivityKind::region;
    a.start_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(start_.time_since_epoch()).count();
    a.end_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end.time_since_epoch()).count();
    a.correlation_id = correlation;
    a.name = "host call";
    trace_.activities.push_back(std::move(a));
    trace_.external_id_of.emplace(correlation, iteration);
  }
  Trace close_phase() override { return std::move(trace_); }
  void abandon_phase() noexcept override { trace_ = Trace{}; }

  // DeviceSteps: host work is finished when the call returns; there is no device cache to
  // clear. The host has no device clock or memory to read.
  void drain(std::size_t, const char*) override {}
  void synchronize(const char*) override {}
  void clear_cache(std::size_t) override {}
  void after_user_code(std::size_t, const char*) override {}
  // The EnvironmentProbe's one reading: the load the host clock's readings ran under.
  std::optional<double> load_average() override { return detail::load_average(); }

 private:
  using Clock = std::chrono::steady_clock;
  std::optional<int> stand_in_;
  Trace trace_;
  Clock::time_point start_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() {
  return std::make_unique<HostBackend>();
}

std::unique_ptr<Backend> make_host_stand_in_backend(int index) {
  return std::make_unique<HostBackend>(index);
}

}  // namespace gpumeter
