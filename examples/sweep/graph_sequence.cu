// A chain of small dependent kernels (each reads what the previous one wrote), launched one by
// one on a stream, or replayed as one CUDA graph captured once in setup: the same kernels and
// the same result; the graph saves the per-launch gaps.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks.hpp"
#include "common.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter_examples {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kElements = kThreads;  // one block each: a launch-bound kernel
constexpr std::uint32_t kSeed = 9;
constexpr float kScale = 0.9375f;  // exact in binary, as are the shifts below
constexpr float kShiftStep = 0.0625f;

// Step k: out = in * kScale + (k + 1) * kShiftStep. The shift differs per step, so the result
// depends on every kernel having run, in order.
__global__ void step_kernel(const float* __restrict__ in, float* __restrict__ out, float shift) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kElements) out[i] = in[i] * kScale + shift;
}

float shift_of(int step) {
  return static_cast<float>(step + 1) * kShiftStep;
}

struct Chain {
  Chain()
      : x(kElements * sizeof(float)),
        ping(kElements * sizeof(float)),
        pong(kElements * sizeof(float)) {}
  ~Chain() {
    (void)cudaGraphExecDestroy(graph);  // after a sticky error these fail; nothing to do then
  }
  Chain(const Chain&) = delete;
  Chain& operator=(const Chain&) = delete;

  // Step 0 reads x (never written, so every call starts from the same input); later steps
  // alternate between ping and pong.
  void launch_all(cudaStream_t on) const {
    for (int k = 0; k < kernels; ++k) {
      const float* in = k == 0 ? x.as<const float>() : (k % 2 == 1 ? ping : pong).as<const float>();
      float* out = (k % 2 == 0 ? ping : pong).as<float>();
      step_kernel<<<1, kThreads, 0, on>>>(in, out, shift_of(k));
      check_launch("step_kernel");
    }
  }
  const DeviceBuffer& result() const { return kernels % 2 == 1 ? ping : pong; }

  int kernels = 0;
  DeviceBuffer x;
  DeviceBuffer ping;
  DeviceBuffer pong;
  OwnedStream stream;
  cudaGraphExec_t graph = nullptr;
};

}  // namespace

void graph_sequence(gpumeter::Setup& s) {
  const long long kernels = s.get_int("kernels");
  if (kernels < 1 || kernels > 10000) {
    throw gpumeter::ConfigError("graph_sequence: kernels=" + std::to_string(kernels) +
                                " is outside 1..10000");
  }
  check(cudaSetDevice(s.device()), "cudaSetDevice");
  auto c = std::make_shared<Chain>();
  c->kernels = static_cast<int>(kernels);
  fill_values(c->x.as<float>(), kElements, kSeed, c->stream.get());
  poison(c->result().as<void>(), c->result().bytes());
  check(cudaDeviceSynchronize(), "filling the inputs");

  // The graph: the same launches, captured from the case's stream (a capture needs a stream
  // other than the legacy default one), instantiated once; the call is one cudaGraphLaunch.
  cudaGraph_t captured = nullptr;
  check(cudaStreamBeginCapture(c->stream.get(), cudaStreamCaptureModeThreadLocal),
        "cudaStreamBeginCapture");
  try {
    c->launch_all(c->stream.get());
  } catch (...) {
    (void)cudaStreamEndCapture(c->stream.get(), &captured);
    (void)cudaGraphDestroy(captured);
    throw;
  }
  check(cudaStreamEndCapture(c->stream.get(), &captured), "cudaStreamEndCapture");
  const cudaError_t instantiated = cudaGraphInstantiate(&c->graph, captured, 0);
  (void)cudaGraphDestroy(captured);  // the executable graph keeps what it needs
  check(instantiated, "cudaGraphInstantiate");
  check(cudaGraphUpload(c->graph, c->stream.get()), "cudaGraphUpload");
  check(cudaStreamSynchronize(c->stream.get()), "cudaGraphUpload");

  s.implementation("stream", [c] { c->launch_all(c->stream.get()); });
  s.implementation("graph",
                   [c] { check(cudaGraphLaunch(c->graph, c->stream.get()), "cudaGraphLaunch"); });
  // Every element against the same chain on the host in double. Each float step rounds once or
  // twice, on values up to about 9.5 (20 kernels), so a relative 1e-5 is far above rounding and
  // far below what a missing or reordered step changes (over 1e-4 for 20 kernels).
  s.reference(
      [c] {
        std::vector<double> want(kElements);
        for (std::size_t i = 0; i < kElements; ++i) {
          double v = example_value(i, kSeed);
          for (int k = 0; k < c->kernels; ++k) v = v * kScale + shift_of(k);
          want[i] = v;
        }
        return want;
      },
      // Both write the same last buffer: read it, then poison it, so the next implementation's
      // check sees only what that implementation wrote.
      [c] {
        const DeviceBuffer& out = c->result();
        check(cudaStreamSynchronize(c->stream.get()), "cudaStreamSynchronize");
        std::vector<double> got = to_doubles(to_host(out.as<const float>(), kElements));
        poison(out.as<void>(), out.bytes());
        return got;
      },
      1e-5);
}

}  // namespace gpumeter_examples
