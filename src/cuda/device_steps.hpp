#pragma once
// The device steps every CUDA backend takes the same way (T5, T6, P3), in the order the
// core's driver asks for them: clearing the cache, draining the measured device, and naming a
// CUDA error that user code left behind. The backends add only how they label or time a call.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace gpumeter::cuda {

class DeviceBuffer;

class CudaDeviceSteps {
 public:
  // Checks the device has no sticky error and makes it current; with `l2_flush`, allocates
  // (once per device) the flush buffer and reads what the flush needs.
  CudaDeviceSteps(int device, bool l2_flush, bool leave_clean_lines);

  // Untimed: the persisting-L2 reset, then the L2 flush (a device-side write of twice the L2,
  // then a read of it when clean lines are asked for).
  void clear_cache(std::size_t iteration);
  // A CUDA error that user code left behind (a bad launch), named by `what`.
  void check_after(std::size_t iteration, const char* what);
  // Waits for the measured device (not the current one: the call may have switched) to finish
  // everything, so no iteration overlaps the next.
  void drain(std::size_t iteration, const char* after);
  // Waits for the measured device outside the iterations; `context` says when, in an error.
  void settle(const std::string& context);

 private:
  [[noreturn]] void fail(cudaError_t error, const std::string& where);

  int device_;
  const DeviceBuffer* flush_ = nullptr;
  bool reset_persisting_l2_ = false;
  bool leave_clean_lines_ = false;
  int read_blocks_ = 0;
};

}  // namespace gpumeter::cuda
