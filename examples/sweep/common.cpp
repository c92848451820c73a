#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpumeter/errors.hpp"

namespace gpumeter_examples {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  throw gpumeter::DeviceError(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                              cudaGetErrorString(e) + ")");
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
}

OwnedStream::OwnedStream() {
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

void poison(void* out, std::size_t bytes) {
  check(cudaMemset(out, 0xFF, bytes), "cudaMemset (poisoning an output)");
  // Done before anything else runs: a call on a non-blocking stream would not wait for it.
  check(cudaDeviceSynchronize(), "cudaMemset (poisoning an output)");
}

std::vector<float> to_host(const float* device, std::size_t n) {
  std::vector<float> out(n);
  check(cudaMemcpy(out.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost),
        "cudaMemcpy (reading an output)");
  return out;
}

std::vector<float> to_host(const __nv_bfloat16* device, std::size_t n) {
  std::vector<__nv_bfloat16> raw(n);
  check(cudaMemcpy(raw.data(), device, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost),
        "cudaMemcpy (reading an output)");
  std::vector<float> out(n);
  std::transform(raw.begin(), raw.end(), out.begin(),
                 [](__nv_bfloat16 v) { return __bfloat162float(v); });
  return out;
}

std::vector<double> to_doubles(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

void check_close(const std::string& implementation, const std::vector<double>& got,
                 const std::vector<double>& want, double rtol, double atol) {
  if (got.size() != want.size()) {
    throw gpumeter::VerificationFailed(implementation + ": " + std::to_string(got.size()) +
                                       " values read, " + std::to_string(want.size()) +
                                       " expected");
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double bound = rtol * std::fabs(want[i]) + atol;
    if (!(std::fabs(got[i] - want[i]) <= bound)) {  // NaN fails too
      char text[256];
      std::snprintf(text, sizeof text, ": element %zu is %.9g, expected %.9g (allowed error %.3g)",
                    i, got[i], want[i], bound);
      throw gpumeter::VerificationFailed(implementation + text);
    }
  }
}

int sm_count(int device) {
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute (SM count)");
  return sms;
}

int grid_for(std::size_t items, int threads, int sms) {
  const std::size_t needed = (items + static_cast<std::size_t>(threads) - 1) / threads;
  const std::size_t full = static_cast<std::size_t>(sms) * static_cast<std::size_t>(2048 / threads);
  return static_cast<int>(std::max<std::size_t>(1, std::min(needed, full)));
}

}  // namespace gpumeter_examples
