#pragma once
// What steps the device: the steps the core's driver orders around every iteration (wait for the
// device, clear its cache, name an error user code left behind). The driver decides when; these
// only do.
#include <cstddef>

namespace gpumeter {

class DeviceSteps {
 public:
  virtual ~DeviceSteps() = default;

  // Waits until the measured device (not the current one: the call may have switched) has finished
  // everything; `iteration` and `after` name the step in an error.
  virtual void drain(std::size_t iteration, const char* after) = 0;
  // Waits for the measured device outside the iterations; `context` says when, in an error.
  virtual void synchronize(const char* context = "synchronizing the measured device") = 0;
  // Untimed, under the prepare label: resets persisting cache lines, then flushes the cache.
  virtual void clear_cache(std::size_t iteration) = 0;
  // Right after user code (the call or its reset) returned: reports an error it left behind (a CUDA
  // launch error), named by `what`.
  virtual void after_user_code(std::size_t iteration, const char* what) = 0;
};

}  // namespace gpumeter
