// y = a * x + y on n float32 elements: the one kernel behind examples/python/warp_saxpy.py's CuPy
// candidates. The NVRTC candidate compiles this file's text at run time; the precompiled
// candidate loads the cubin nvcc makes from it, so the two differ only in how the code was built.
// Build: nvcc -cubin -arch=sm_90 -o saxpy.cubin examples/python/saxpy.cu
//        (-arch: the measured GPU's; a cubin for another architecture does not load)
// Then:  GPUMETER_SAXPY_CUBIN=$PWD/saxpy.cubin
// extern "C": the name stays "saxpy", which both CuPy's RawKernel and RawModule look up.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
