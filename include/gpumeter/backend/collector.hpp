#pragma once
// What collects the samples: labels the work the calling thread launches, iteration by iteration,
// and hands back what it saw as a Trace (trace.hpp). The core's driver opens and closes the phase
// and says when each label starts and ends; the collector only records.
#include <cstddef>

#include "gpumeter/backend/trace.hpp"

namespace gpumeter {

struct PhaseRequest {
  std::size_t iterations = 0;
  // 0 for the first attempt; a retry after lost records uses buffers 4^attempt times larger.
  int attempt = 0;
};

class Collector {
 public:
  virtual ~Collector() = default;

  // Opens a phase of request.iterations iterations; only one phase is open at a time.
  virtual void open_phase(const PhaseRequest& request) = 0;
  // Work the calling thread launches between begin and end is the preparation of `iteration` (never
  // timed) or the call of `iteration`.
  virtual void begin_prepare(std::size_t iteration) = 0;
  virtual void end_prepare(std::size_t iteration) = 0;
  // Within an open preparation: the work launched from here on, until the next call or
  // end_prepare, is the harness's `role` (begin_prepare starts with gpumeter's own). A collector
  // that labels nothing ignores it.
  virtual void label_prepare(HarnessRole role) { (void)role; }
  virtual void begin_iteration(std::size_t iteration) = 0;
  virtual void end_iteration(std::size_t iteration) = 0;
  // After the last iteration's drain: closes the phase and hands back what it saw, every activity
  // keyed to its iteration through Trace::external_id_of.
  virtual Trace close_phase() = 0;
  // Closes a phase that failed part-way; what it collected is discarded. Never throws.
  virtual void abandon_phase() noexcept = 0;
};

}  // namespace gpumeter
