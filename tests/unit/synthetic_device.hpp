#pragma once
// A synthetic GPU for the comparison rules' calibration tests: known truth, with the noise a real
// board shows.
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace gpumeter {

// A synthetic GPU: each pass has its own level (lognormal around the truth, `pass_sd` relative),
// drifts linearly with the pass's position in time, and its samples wander around that level
// in runs (an AR(1) process, as the H200's regime switches do) before being read through a clock
// with a `tick` step at a random phase. With `switch_ratio` set, the kernel's own duration also
// switches between two levels (the lower, and `switch_ratio` above it) that last about
// 1 / `switch_probability` samples each, as a 1-block kernel's do on the H200.
struct SyntheticDevice {
  double true_ns = 20000;
  double pass_sd = 0.001;     // relative spread of pass levels
  double sample_sd = 0.002;   // relative spread of samples within a pass
  double correlation = 0.8;   // of consecutive samples within a pass
  double drift_per_pass = 0;  // relative, per pass slot
  double tick = 32;
  std::size_t samples_per_pass = 100;
  double switch_ratio = 0;           // relative height of the upper level; 0: no switching
  double switch_probability = 0.05;  // per sample, of leaving the current level

  std::vector<double> pass(double scale, int slot, double outlier, std::mt19937_64& rng) const {
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> phase(0, tick);
    const double level = true_ns * scale * (1 + drift_per_pass * slot) * (1 + outlier) *
                         std::exp(pass_sd * normal(rng));
    std::vector<double> out;
    double wander = sample_sd * normal(rng);
    std::bernoulli_distribution coin(0.5);
    std::bernoulli_distribution leave(switch_probability);
    bool upper = switch_ratio > 0 && coin(rng);
    for (std::size_t i = 0; i < samples_per_pass; ++i) {
      if (switch_ratio > 0 && leave(rng)) upper = !upper;
      wander =
          correlation * wander + std::sqrt(1 - correlation * correlation) * sample_sd * normal(rng);
      const double duration = level * (1 + wander) * (upper ? 1 + switch_ratio : 1.0);
      const double start = phase(rng);
      out.push_back(std::floor((start + duration) / tick) * tick - std::floor(start / tick) * tick);
    }
    return out;
  }
};

}  // namespace gpumeter
