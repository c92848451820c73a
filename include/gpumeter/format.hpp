#pragma once
// The one significant-figures formatter every table, comparison and message uses (P5).
#include <string>

namespace gpumeter {

// `value` to `digits` significant figures in fixed notation, a significant trailing zero kept:
// 12.0, 0.00123, 123000, -4.57, 1.5. A value that is not finite is not a measurement and reads
// "not measured".
std::string format_significant(double value, int digits);

// Two significant figures (the evaluation protocol: a shared machine supports no more). sig2(0) ==
// 0; the sign is kept; 9.96 -> 10.
double sig2(double value);
std::string format_sig2(double value);

// The shortest text that reads back as the same double (600, 0.5, 1e+20): values given, not
// measured (axis values, defaults in help texts).
std::string format_shortest(double value);

// A GPU's 16-byte uuid as CUDA, NVML and nvidia-smi write it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-
// xxxxxxxxxxxx", lower-case hex.
std::string format_gpu_uuid(const unsigned char* bytes16);

}  // namespace gpumeter
