// toyvec's kernels: sums, a saxpy and a prefix sum over doubles.
#pragma once
#include <cstddef>

namespace toyvec {

// One accumulator: each add waits for the one before.
inline double dot_scalar(const double* x, const double* y, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

// Four accumulators: four chains in flight.
inline double dot_unrolled4(const double* x, const double* y, std::size_t n) {
  double a = 0, b = 0, c = 0, d = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a += x[i] * y[i];
    b += x[i + 1] * y[i + 1];
    c += x[i + 2] * y[i + 2];
    d += x[i + 3] * y[i + 3];
  }
  for (; i < n; ++i) a += x[i] * y[i];
  return (a + b) + (c + d);
}

inline void saxpy(double alpha, const double* x, double* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = alpha * x[i] + y[i];
}

inline void prefix_sum(const double* x, double* out, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) out[i] = s += x[i];
}

}  // namespace toyvec
