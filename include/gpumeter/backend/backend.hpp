#pragma once
// What the core's driver measures with, for those who write a backend (gpumeter's own are made by
// make_host_backend() and the functions of gpumeter/cuda.hpp). The driver owns the order of every
// iteration and of every phase: a backend decides nothing about the numbers. It is three jobs, each
// an interface of its own, and what it is:
//   - a Collector (collector.hpp): labels the work of each iteration and hands back a Trace;
//   - DeviceSteps (device_steps.hpp): waits for the device, clears its cache, names errors;
//   - an EnvironmentProbe (environment_probe.hpp): reads clocks, memory and device state.
// The core attributes, summarizes and judges what the collector saw.
//
// One iteration, as the driver runs it (docs/rules.md, "every iteration in one order"):
//   begin_prepare(i); reset (untimed); after_user_code; drain; clear_cache(i); end_prepare(i)
//   drain
//   begin_iteration(i); the call; end_iteration(i); after_user_code
//   drain
//   read_clock (measured phases only: the reading after this sample and before the next)
// A phase: synchronize, open_phase, the iterations, close_phase (abandon_phase on any error).
#include <string>

#include "gpumeter/backend/collector.hpp"
#include "gpumeter/backend/device_steps.hpp"
#include "gpumeter/backend/environment_probe.hpp"
#include "gpumeter/detail/device.hpp"
#include "gpumeter/detail/timing_method.hpp"

namespace gpumeter {

class Backend : public Collector, public DeviceSteps, public EnvironmentProbe {
 public:
  ~Backend() override = default;

  // How this backend times a call, which fixes the statistic its rows report.
  virtual TimingMethod method() const = 0;
  // The device it measures, as every record names it.
  virtual DeviceIdentity device() const = 0;
  // Why this backend was chosen when it is a fallback from the one asked for, recorded with every
  // row it times; empty otherwise.
  virtual std::string reason() const { return {}; }
  // How clear_cache empties the device cache, as the record states it: "" when it does not (the
  // host backend; a flush switched off).
  virtual std::string l2_flush_mode() const { return {}; }
};

}  // namespace gpumeter
