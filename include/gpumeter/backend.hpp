#pragma once
// What the core's driver measures with. The driver owns the order of every iteration and of
// every phase ("a backend decides nothing about the numbers"); a backend supplies the
// device steps it orders (drain the device, clear the cache) and a collector that labels the
// work the calling thread launches and hands back a Trace. The core attributes, summarizes
// and judges.
//
// One iteration, as the driver runs it (rule T5; see docs/rules.md):
//   begin_prepare(i); reset (untimed); after_user_code; drain; clear_cache(i); end_prepare(i)
//   drain
//   begin_iteration(i); the call; end_iteration(i); after_user_code
//   drain
//   read_clock (measured phases only: the reading after this sample and before the next)
// A phase: synchronize, open_phase, the iterations, close_phase (abandon_phase on any error).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "gpumeter/activity.hpp"
#include "gpumeter/clock_state.hpp"
#include "gpumeter/device.hpp"
#include "gpumeter/duration.hpp"
#include "gpumeter/timing_method.hpp"

namespace gpumeter {

// The work under measurement. `run` enqueues (or does) one call; `reset` restores private
// inputs the call overwrites and runs before the cache is cleared, untimed (T10).
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

  // --- what the backend is -------------------------------------------------------------------
  virtual TimingMethod method() const = 0;
  virtual DeviceIdentity device() const = 0;
  // Why this backend was chosen when it is a fallback (T11); empty otherwise.
  virtual std::string reason() const { return {}; }
  // How clear_cache empties the device cache (T5), as the record states it: "" when it does
  // not (the host backend; a flush switched off).
  virtual std::string l2_flush_mode() const { return {}; }
  // The measured device's state now (clocks, temperature, power, versions...), read-only.
  virtual DeviceStateReading read_device_state() const { return {}; }
  // The measured device's SM clock and throttle reasons now (B4), read between iterations,
  // never inside one; nullopt when the backend cannot read them. Must not throw.
  virtual std::optional<ClockReading> read_clock() { return std::nullopt; }
  // P7: this process's memory on the measured device as NVML counts it, now; and the reading
  // taken when the backend was made, its own buffers allocated, before any case (the context
  // floor). nullopt when it cannot be read.
  virtual std::optional<long long> process_device_memory() { return std::nullopt; }
  virtual std::optional<long long> context_floor_memory() const { return std::nullopt; }
  // What the backend's instrumentation adds to each launch on the launching thread (CUPTI's
  // records), measured once; nullopt when the backend adds nothing it can measure.
  virtual std::optional<Nanos> launch_cost() { return std::nullopt; }

  // --- device steps the driver orders ---------------------------------------------------------
  // Waits until the measured device (not the current one: the call may have switched) has
  // finished everything; `iteration` and `after` name the step in an error.
  virtual void drain(std::size_t iteration, const char* after) = 0;
  // Waits for the measured device outside the iterations; `context` says when, in an error.
  virtual void synchronize(const char* context = "synchronizing the measured device") = 0;
  // Untimed, under the prepare label: resets persisting cache lines, then flushes the cache.
  virtual void clear_cache(std::size_t iteration) = 0;
  // Right after user code (the call or its reset) returned: reports an error it left behind
  // (a CUDA launch error), named by `what`.
  virtual void after_user_code(std::size_t iteration, const char* what) = 0;

  // --- the collector ----------------------------------------------------------------------------
  // Opens a phase of request.iterations iterations; only one phase is open at a time.
  virtual void open_phase(const PhaseRequest& request) = 0;
  // Work the calling thread launches between begin and end is the preparation of `iteration`
  // (never timed) or the call of `iteration`.
  virtual void begin_prepare(std::size_t iteration) = 0;
  virtual void end_prepare(std::size_t iteration) = 0;
  virtual void begin_iteration(std::size_t iteration) = 0;
  virtual void end_iteration(std::size_t iteration) = 0;
  // After the last iteration's drain: closes the phase and hands back what it saw, every
  // activity keyed to its iteration through Trace::external_id_of.
  virtual Trace close_phase() = 0;
  // Closes a phase that failed part-way; what it collected is discarded. Never throws.
  virtual void abandon_phase() noexcept = 0;
};

}  // namespace gpumeter
