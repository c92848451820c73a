#pragma once
// The benchmarks of gpumeter-examples, one function each (void(gpumeter::Setup&)); main.cpp
// registers them with their axes, in the order the sweep runs them.
#include "gpumeter/benchmark.hpp"

namespace gpumeter_examples {

void bandwidth(gpumeter::Setup& s);         // bandwidth.cu
void inplace_scale(gpumeter::Setup& s);     // bandwidth.cu
void gemm(gpumeter::Setup& s);              // gemm.cpp
void decode_rmsnorm(gpumeter::Setup& s);    // rmsnorm.cu
void fused_vs_unfused(gpumeter::Setup& s);  // fusion.cu
void graph_sequence(gpumeter::Setup& s);    // graph_sequence.cu

}  // namespace gpumeter_examples
