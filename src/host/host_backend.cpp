#include "gpumeter/host_backend.hpp"

#include <sys/utsname.h>
#include <cstddef>
#include <cstdint>

#include <chrono>

namespace gpumeter {
namespace {

class HostBackend final : public Backend {
 public:
  TimingMethod method() const override { return TimingMethod::host_wall; }

  DeviceIdentity device() const override {
    DeviceIdentity id;
    id.kind = "host";
    id.index = 0;
    id.name = "host CPU";
    utsname u{};
    if (uname(&u) == 0) id.arch = u.machine;
    return id;
  }

  // Each call is one region under its own correlation id; the reset runs untimed before it.
  // Nothing here can lose a record, so the dropped count is a true zero, not a guess.
  Trace run_phase(const Call& call, const PhaseRequest& request) override {
    using Clock = std::chrono::steady_clock;
    Trace trace;
    trace.counts_kernels = false;
    trace.dropped_records = 0;
    trace.activities.reserve(request.iterations);
    for (std::size_t i = 0; i < request.iterations; ++i) {
      if (call.reset) call.reset();
      const auto t0 = Clock::now();
      call.run();
      const auto t1 = Clock::now();
      const std::uint64_t correlation = i + 1;
      Activity a;
      a.kind = ActivityKind::region;
      a.start_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count();
      a.end_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(t1.time_since_epoch()).count();
      a.correlation_id = correlation;
      a.name = "host call";
      trace.activities.push_back(std::move(a));
      trace.external_id_of.emplace(correlation, i);
    }
    return trace;
  }

  void synchronize() override {}  // host work is finished when the call returns
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() {
  return std::make_unique<HostBackend>();
}

}  // namespace gpumeter
