// The smallest complete use of gpumeter from C++: two implementations of one operation,
// compared on the GPU, written to a record and printed from it. Build: part of the project
// (target time-my-kernel). Run: ./build/examples/time-my-kernel [--out DIR]
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "gpumeter/cuda_backend.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/table.hpp"

__global__ void scale_naive(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void scale_grid_stride(const float4* x, float4* y, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    const float4 v = x[i];
    y[i] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
  }
}

int main(int argc, char** argv) {
  const std::string out_dir =
      argc > 2 && std::string(argv[1]) == "--out" ? argv[2] : "gpumeter-results";
  try {
    const gpumeter::CudaAvailability gpu = gpumeter::cuda_availability(0);
    if (!gpu.usable) {
      std::fprintf(stderr, "time-my-kernel: no GPU to measure: %s\n", gpu.reason.c_str());
      return 2;
    }
    const std::unique_ptr<gpumeter::Backend> backend = gpumeter::make_cuda_backend();

    const int n = 1 << 26;  // 256 MiB per buffer: the copy streams from HBM, not L2
    float* x = nullptr;
    float* y = nullptr;
    if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
      throw gpumeter::DeviceError("cudaMalloc failed");
    }
    if (cudaMemset(x, 0x3f, n * sizeof(float)) != cudaSuccess) {  // 0x3f3f3f3f: 0.75, not zeros
      throw gpumeter::DeviceError("cudaMemset failed");
    }

    gpumeter::Case c;
    c.name = "scale-f32";
    c.params = {{"n", std::to_string(n)}};
    c.workload.bytes = 2.0 * n * sizeof(float);  // read x once, write y once
    c.workload.flops = n;
    c.implementations.push_back(
        {"naive", gpumeter::Call{[=] { scale_naive<<<(n + 255) / 256, 256>>>(x, y, n); }, {}}, {}});
    c.implementations.push_back({"grid-stride-float4",
                                 gpumeter::Call{[=] {
                                                  scale_grid_stride<<<132 * 4, 256>>>(
                                                      reinterpret_cast<const float4*>(x),
                                                      reinterpret_cast<float4*>(y), n / 4);
                                                },
                                                {}},
                                 {}});

    gpumeter::RunOptions run;
    run.argv.assign(argv, argv + argc);
    run.ceilings = gpumeter::measure_ceilings(0);
    gpumeter::Record record = gpumeter::run_cases(*backend, {c}, run);
    record.run_id = gpumeter::new_run_id();
    const auto path = gpumeter::write_record(record, out_dir);
    const auto records = gpumeter::read_records({path});
    std::printf("%s\n%s", gpumeter::render_markdown(records).c_str(),
                gpumeter::render_comparisons(records).c_str());
    cudaFree(x);
    cudaFree(y);
    return records.front().failures.empty() ? 0 : 1;
  } catch (const gpumeter::Error& e) {
    std::fprintf(stderr, "time-my-kernel: %s\n", e.what());
    return 1;
  }
}
