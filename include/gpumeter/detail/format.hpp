#pragma once
// The one significant-figures formatter every table, comparison and message uses.
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

// The significant figures of a number printed with its interval (an estimate and the two ends,
// in the units the sentence uses): one count for all three, the fewest from 2 at which the
// printed estimate lies strictly between the printed ends, so a sentence never shows "2.0x
// (95% interval 1.96x to 1.98x)". Rounding every number to one count of figures keeps their
// order, so even at the cap (an interval too narrow to print apart) the printed estimate is not
// outside its printed ends. Where no interval is printed, numbers keep 2 figures.
inline constexpr int kMinIntervalDigits = 2;
// Six figures tell apart numbers a part in 10^5 apart, far finer than any interval a run of passes
// supports (docs/measured-figures.md); a narrower interval prints its ends alike, the estimate with
// them.
inline constexpr int kMaxIntervalDigits = 6;
int interval_digits(double estimate, double low, double high);

// The shortest text that reads back as the same double (600, 0.5, 1e+20): values given, not
// measured (axis values, defaults in help texts).
std::string format_shortest(double value);

// A GPU's 16-byte uuid as CUDA, NVML and nvidia-smi write it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-
// xxxxxxxxxxxx", lower-case hex.
std::string format_gpu_uuid(const unsigned char* bytes16);

}  // namespace gpumeter
