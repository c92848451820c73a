// A process that takes a CUDA context on device 0 and holds it for argv[1] seconds (default 5):
// the other process on the device of test_cuda_integrity's known answer (issue 38).
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "cuda_context_holder: no CUDA context\n");
    return 1;
  }
  ::sleep(static_cast<unsigned>(seconds));
  return 0;
}
