#pragma once
// A backend runs calls and hands back a Trace. It decides nothing about the numbers: the
// core attributes, summarizes and judges (DESIGN.md).
#include <cstddef>
#include <functional>
#include <string>

#include "gpumeter/activity.hpp"
#include "gpumeter/device.hpp"
#include "gpumeter/timing_method.hpp"

namespace gpumeter {

// The work under measurement. `run` enqueues (or does) one call; `reset` restores private
// inputs the call overwrites and runs before the L2 flush, untimed (T10).
struct Call {
  std::function<void()> run;
  std::function<void()> reset;  // may be empty
};

struct PhaseRequest {
  std::size_t iterations = 0;
  // 0 for the first attempt; a retry after lost records uses buffers 4^attempt times larger.
  int attempt = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual TimingMethod method() const = 0;
  virtual DeviceIdentity device() const = 0;
  // Why this backend was chosen when it is a fallback (T11); empty otherwise.
  virtual std::string reason() const { return {}; }
  // How this backend empties the device cache before each iteration (T5), as the record
  // states it: "" when it does not (the host backend; a flush switched off).
  virtual std::string l2_flush_mode() const { return {}; }
  // The measured device's state now (clocks, temperature, power, versions...), read-only.
  // Empty with nothing missing for a device that has none of it (the host CPU).
  virtual DeviceStateReading read_device_state() const { return {}; }
  // Runs `request.iterations` iterations of `call`, each as T5 says (reset and flush under
  // the PREPARE id, drain, the call under its iteration id, drain) and returns what it saw.
  virtual Trace run_phase(const Call& call, const PhaseRequest& request) = 0;
  // Waits until the measured device has finished all work (P3).
  virtual void synchronize() = 0;
};

}  // namespace gpumeter
