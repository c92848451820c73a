// gpumeter-examples: the bundled GPU benchmarks as one program, built by default and run as one
// sweep (every case of every benchmark below). Each implementation's output is checked before
// anything is timed.
//   gpumeter-examples --list                  the cases
//   gpumeter-examples                         the whole sweep: record in gpumeter-results/
//   gpumeter-examples --filter gemm --axis mnk=4096
#include "benchmarks.hpp"

namespace {

using gpumeter::int_axis;
using gpumeter_examples::bandwidth;
using gpumeter_examples::decode_rmsnorm;
using gpumeter_examples::fused_vs_unfused;
using gpumeter_examples::gemm;
using gpumeter_examples::graph_sequence;
using gpumeter_examples::inplace_scale;

// Registered here, not beside each function, so the sweep's order is this file's order (the
// order of static initialisation across files is unspecified).

// Bytes read by a float4 copy, over decades: from L2-sized to far beyond the 60 MB L2.
GPUMETER_BENCHMARK(bandwidth).axis(int_axis("bytes", {100'000, 1'000'000, 10'000'000, 100'000'000,
                                                      1'000'000'000}));
// Square bf16 GEMMs with fp32 accumulation (cuBLAS).
GPUMETER_BENCHMARK(gemm).axis(int_axis("mnk", {1024, 2048, 4096, 8192}));
// RMSNorm of one token: a decode step's tiny kernel, bound by launch and latency.
GPUMETER_BENCHMARK(decode_rmsnorm).axis(int_axis("hidden", {4096, 8192}));
// relu(a*x + b) as three kernels through a temporary, or as one.
GPUMETER_BENCHMARK(fused_vs_unfused).axis(int_axis("n", {1 << 20, 1 << 24}));
// x *= 1.5 in place: each call starts from the same x, restored by an untimed reset.
GPUMETER_BENCHMARK(inplace_scale).axis(int_axis("n", {1 << 24}));
// Dependent small kernels launched one by one, or replayed as one CUDA graph.
GPUMETER_BENCHMARK(graph_sequence).axis(int_axis("kernels", {20}));

}  // namespace

GPUMETER_MAIN
