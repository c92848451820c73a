// An unmodified CUDA program with NVTX ranges of known device time, for `gpumeter run`'s
// known-answer test on the device (tests/gpu/test_run_gpu.sh). Spins of known length (they stop
// on %globaltimer) inside ranges:
//   spin20        5 instances, one 20 us spin each, nested in `step` (so `step` is 20 us too)
//   two_streams   5 instances, two 50 us spins on two streams at once: device_busy is their
//                 union (about 50 us), 2 kernels; the 300 us gate that holds both streams
//                 runs during the range but was launched outside it, so it is not the range's
//   graph         5 instances, a CUDA graph of three 10 us spins in a chain: about 30 us, 3
//                 kernels
//   threaded      5 instances, a start/end range on the main thread while another thread
//                 launches a 15 us spin: the range covers every thread
//   main_only     pushed on the main thread around the other thread's launch: it holds no
//                 device work (the other thread's kernel is not its)
//   in_domain     domain "gpumeter_test", a 10 us spin
// and two empty kernels outside every range (the first and the last kernel), besides the gates.
// Mode "none" launches a kernel and makes no NVTX call; mode "open" leaves a range open.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "known_kernels.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

using gpumeter::testkit::launch_empty;
using gpumeter::testkit::launch_spin;

void known() {
  cudaStream_t a = nullptr;
  cudaStream_t b = nullptr;
  check(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), "stream");
  launch_empty(a);  // context and module loaded before any range
  check(cudaDeviceSynchronize(), "warm-up");

  for (int i = 0; i < 5; ++i) {
    nvtxRangePushA("step");
    nvtxRangePushA("spin20");
    launch_spin(20000, nullptr, a);
    nvtxRangePop();
    check(cudaStreamSynchronize(a), "spin20");
    nvtxRangePop();
  }
  cudaEvent_t gate_done = nullptr;
  check(cudaEventCreateWithFlags(&gate_done, cudaEventDisableTiming), "event");
  for (int i = 0; i < 5; ++i) {
    // A 300 us gate, launched outside the range, holds both streams while the two spins are
    // launched, so they start together and their union is 50 us; launched back to back without
    // it, the second starts a launch later (up to 15 us under the collector, on the H200).
    launch_spin(300000, nullptr, a);
    check(cudaEventRecord(gate_done, a), "gate");
    check(cudaStreamWaitEvent(b, gate_done, 0), "gate wait");
    nvtxRangePushA("two_streams");
    launch_spin(50000, nullptr, a);
    launch_spin(50000, nullptr, b);
    check(cudaDeviceSynchronize(), "two_streams");
    nvtxRangePop();
  }
  check(cudaEventDestroy(gate_done), "event");
  cudaGraph_t graph = nullptr;
  check(cudaStreamBeginCapture(a, cudaStreamCaptureModeThreadLocal), "capture");
  for (int k = 0; k < 3; ++k) launch_spin(10000, nullptr, a);
  check(cudaStreamEndCapture(a, &graph), "capture end");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  for (int i = 0; i < 5; ++i) {
    nvtxRangePushA("graph");
    check(cudaGraphLaunch(exec, a), "graph launch");
    check(cudaStreamSynchronize(a), "graph");
    nvtxRangePop();
  }
  for (int i = 0; i < 5; ++i) {
    const nvtxRangeId_t id = nvtxRangeStartA("threaded");
    nvtxRangePushA("main_only");
    std::thread([b] {
      launch_spin(15000, nullptr, b);
      check(cudaStreamSynchronize(b), "threaded");
    }).join();
    nvtxRangePop();
    nvtxRangeEnd(id);
  }
  const nvtxDomainHandle_t domain = nvtxDomainCreateA("gpumeter_test");
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = "in_domain";
  nvtxDomainRangePushEx(domain, &attr);
  launch_spin(10000, nullptr, a);
  check(cudaStreamSynchronize(a), "in_domain");
  nvtxDomainRangePop(domain);
  launch_empty(a);  // outside every range
  check(cudaDeviceSynchronize(), "end");
  check(cudaGraphExecDestroy(exec), "graph exec");
  check(cudaGraphDestroy(graph), "graph");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "known";
  if (mode == "known") {
    known();
    return 0;
  }
  if (mode == "none") {
    launch_spin(10000, nullptr, nullptr);
    check(cudaDeviceSynchronize(), "none");
    return 0;
  }
  if (mode == "open") {
    nvtxRangePushA("left_open");
    launch_spin(10000, nullptr, nullptr);
    check(cudaDeviceSynchronize(), "open");
    return 0;
  }
  std::fprintf(stderr, "usage: gpumeter_nvtx_gpu_program known|none|open\n");
  return 2;
}
