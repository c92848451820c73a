#pragma once
// What probes the environment: read-only readings of the measured device and of this process on it,
// taken between iterations (never inside one) or around a run, for the record. Each has a default
// that reads nothing, so a backend with nothing to read overrides none.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/device.hpp"
#include "gpumeter/detail/duration.hpp"

namespace gpumeter {

// Another process on the measured device, as the environment probe lists it.
struct DeviceProcess {
  long pid = 0;
  std::string command;       // its command line, "" when it cannot be read (another namespace)
  bool own_session = false;  // it belongs to this process's session (or was started from it)
};

class EnvironmentProbe {
 public:
  virtual ~EnvironmentProbe() = default;

  // The measured device's state now (clocks, temperature, power, versions...), read-only.
  virtual DeviceStateReading read_device_state() const { return {}; }
  // The measured device's SM clock and throttle reasons now, read between iterations, never inside
  // one, so a sample taken on a slowed clock can be flagged (see docs/rules.md, the clock-state
  // rule); nullopt when the backend cannot read them. Must not throw.
  virtual std::optional<ClockReading> read_clock() { return std::nullopt; }
  // This process's memory on the measured device as NVML counts it, now; and the reading taken when
  // the backend was made, its own buffers allocated, before any case (the context floor), so a
  // case's memory is reported above that floor. nullopt when it cannot be read.
  virtual std::optional<long long> process_device_memory() { return std::nullopt; }
  virtual std::optional<long long> context_floor_memory() const { return std::nullopt; }
  // What the backend's instrumentation adds to each launch on the launching thread (CUPTI's
  // records), measured once; nullopt when the backend adds nothing it can measure.
  virtual std::optional<Nanos> launch_cost() { return std::nullopt; }
  // Against work done in another process: the processes that hold a compute context on the measured
  // device now and were not there when the backend was made (or, where it was made to, that belong
  // to this process's own session, whenever they came): work they do is in no reading. Read before
  // and after every measured phase. nullopt when the backend cannot list them.
  virtual std::optional<std::vector<DeviceProcess>> new_device_processes() { return std::nullopt; }
  // The host's 1-minute load average now, read after each measured phase by a backend that times
  // on the host clock (what a host-clock verdict of no difference states); nullopt otherwise.
  // Must not throw.
  virtual std::optional<double> load_average() { return std::nullopt; }
};

}  // namespace gpumeter
