#pragma once
// The parts of one iteration that every CUDA backend does the same way (SPEC T5, T6, P3):
// the call's reset and the L2 flush, draining the measured device, and running the call with
// its errors named. The backends add only how they label or time the call.
#include <cstddef>
#include <functional>
#include <string>

#include <cuda_runtime.h>

#include "gpumeter/backend.hpp"
#include "gpumeter/cuda_backend.hpp"

namespace gpumeter::cuda {

class CudaProcess;
class DeviceBuffer;

class IterationRunner {
 public:
  IterationRunner(int device, bool l2_flush, bool leave_clean_lines);

  // Untimed preparation: the call's reset (it may write inputs; the flush then evicts them),
  // drained, then the persisting-L2 reset and the L2 flush (a device-side write of twice the
  // L2, then a read of it when clean lines are asked for).
  void prepare(const Call& call, std::size_t iteration);
  // Runs the call. A throw, or a CUDA error it leaves behind, is a DeviceError naming it.
  void run(const Call& call, std::size_t iteration);
  // Waits for the measured device (not the current one: the call may have switched) to
  // finish everything, so no iteration overlaps the next.
  void drain(std::size_t iteration, const char* after);
  // Waits for the measured device outside the iterations (before a phase, so nothing earlier
  // overlaps iteration 0; or on request); `context` says when, in an error.
  void settle(const std::string& context);

 private:
  void invoke(const std::function<void()>& fn, std::size_t iteration, const char* what);
  [[noreturn]] void fail(cudaError_t error, const std::string& where);

  int device_;
  const DeviceBuffer* flush_ = nullptr;
  bool reset_persisting_l2_ = false;
  bool leave_clean_lines_ = false;
  int read_blocks_ = 0;
};

}  // namespace gpumeter::cuda
