#include "sequential.hpp"

#include "gpumeter/precision_width.hpp"
#include "passes.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "schedule.hpp"
#include "student_t.hpp"

namespace gpumeter {

std::string to_string(StopReason reason) {
  switch (reason) {
    case StopReason::target_reached:
      return "target_reached";
    case StopReason::time_cap:
      return "time_cap";
    case StopReason::pass_cap:
      return "pass_cap";
  }
  return "target_reached";
}

std::optional<StopReason> parse_stop_reason(const std::string& text) {
  for (StopReason r : {StopReason::target_reached, StopReason::time_cap, StopReason::pass_cap}) {
    if (to_string(r) == text) return r;
  }
  return std::nullopt;
}

std::string precision_target_problem(const PrecisionTarget& target) {
  if (!(target.relative >= kMinPrecisionTarget && target.relative <= kMaxPrecisionTarget)) {
    return "the target precision must be between 0.1% and 50% (0.001 to 0.5 as a fraction)";
  }
  if (target.max_time_ns < kMinPrecisionTime || target.max_time_ns > kMaxPrecisionTime) {
    return "the time cap must be between 0.1 s and 1 hour";
  }
  return {};
}

namespace detail {
namespace {

double log_level(const std::vector<double>& pass) {
  if (pass.empty()) throw std::invalid_argument("precision: an empty pass");
  const double level = trimmed_mean(pass);
  if (!(level > 0) || !std::isfinite(level)) {
    throw std::invalid_argument("precision: a pass whose level is not positive");
  }
  return std::log(level);
}

std::vector<double> log_levels(const PassSamples& passes) {
  std::vector<double> out;
  out.reserve(passes.size());
  for (const std::vector<double>& pass : passes) out.push_back(log_level(pass));
  return out;
}

struct Spread {
  double mean = 0;
  double squares = 0;  // sum of squared deviations from the mean
  std::size_t n = 0;
};

Spread spread_of(const std::vector<double>& logs) {
  Spread s;
  s.n = logs.size();
  s.mean = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(s.n);
  for (double l : logs) s.squares += (l - s.mean) * (l - s.mean);
  return s;
}

double tick_allowance(Nanos tick_ns, double log_level_ns) {
  return std::log1p(0.5 * static_cast<double>(tick_ns) / std::exp(log_level_ns));
}

// How much larger than its estimate the spread of pass levels may be, at kSpreadBoundLevel: the
// square root of df over the chi-square quantile (Wilson and Hilferty's approximation, within a
// percent for df >= 2). 1.65 at df 6, 1.09 at df 126.
double spread_upper_factor(int df) {
  const double k = df;
  const double c = 2.0 / (9.0 * k);
  const double q = k * std::pow(std::max(1.0 - c + kSpreadBoundZ * std::sqrt(c), 0.05), 3.0);
  return std::sqrt(k / q);
}

double width_of_levels(const std::vector<double>& a_logs, const std::vector<double>& b_logs,
                       Nanos tick_ns, bool bound) {
  const Spread a = spread_of(a_logs);
  const Spread b = spread_of(b_logs);
  const int df = static_cast<int>(a.n + b.n - 2);
  const double pooled = (a.squares + b.squares) / df;
  double se = std::sqrt(pooled * (1.0 / static_cast<double>(a.n) + 1.0 / static_cast<double>(b.n)));
  if (bound) se *= spread_upper_factor(df);
  return std::expm1(detectable_noncentrality(df, kDifferenceConfidence, kDetectionPower) * se +
                    tick_allowance(tick_ns, a.mean));
}

double half_width_of_levels(const std::vector<double>& logs, Nanos tick_ns, bool bound) {
  const Spread l = spread_of(logs);
  const int df = static_cast<int>(l.n - 1);
  double se = std::sqrt(l.squares / df / static_cast<double>(l.n));
  if (bound) se *= spread_upper_factor(df);
  const double t = student_t_quantile(1.0 - (1.0 - kDifferenceConfidence) / 2.0, df);
  return std::expm1(t * se + tick_allowance(tick_ns, l.mean));
}

void check_tick(Nanos tick_ns) {
  if (tick_ns < 1) throw std::invalid_argument("precision: timestamp tick < 1 ns");
}

}  // namespace

double comparison_width(const PassSamples& baseline, const PassSamples& candidate, Nanos tick_ns,
                        bool bound) {
  if (baseline.size() < 2 || candidate.size() < 2) {
    throw std::invalid_argument("comparison_width: each side needs at least 2 passes");
  }
  check_tick(tick_ns);
  return width_of_levels(log_levels(baseline), log_levels(candidate), tick_ns, bound);
}

double level_half_width(const PassSamples& passes, Nanos tick_ns, bool bound) {
  if (passes.size() < 2) throw std::invalid_argument("level_half_width: fewer than 2 passes");
  check_tick(tick_ns);
  return half_width_of_levels(log_levels(passes), tick_ns, bound);
}

SequentialPasses run_to_precision(std::size_t n_implementations,
                                  const std::function<PassRun(std::size_t)>& run_pass,
                                  const std::function<Nanos()>& now,
                                  const PrecisionTarget& target) {
  if (n_implementations == 0) throw std::invalid_argument("run_to_precision: no implementations");
  if (const std::string problem = precision_target_problem(target); !problem.empty()) {
    throw std::invalid_argument("run_to_precision: " + problem);
  }
  SequentialPasses s;
  s.passes.resize(n_implementations);
  s.tick_ns.assign(n_implementations, 1);
  s.outcome.target = target.relative;
  s.outcome.max_time_ns = target.max_time_ns;
  // Each pass's level once, as it arrives: the rule is read after every round.
  std::vector<std::vector<double>> logs(n_implementations);
  auto width = [&] {
    if (n_implementations == 1) return half_width_of_levels(logs[0], s.tick_ns[0], true);
    double widest = 0;
    for (std::size_t k = 1; k < n_implementations; ++k) {
      const Nanos tick = std::max(s.tick_ns[0], s.tick_ns[k]);
      widest = std::max(widest, width_of_levels(logs[0], logs[k], tick, true));
    }
    return widest;
  };
  const std::vector<PassSlot> round = symmetric_schedule(n_implementations);
  const Nanos start = now();
  for (int rounds = 1;; ++rounds) {
    for (const PassSlot& slot : round) {
      PassRun pass = run_pass(slot.implementation);
      check_tick(pass.tick_ns);
      logs[slot.implementation].push_back(log_level(pass.samples));
      s.tick_ns[slot.implementation] = std::max(s.tick_ns[slot.implementation], pass.tick_ns);
      s.passes[slot.implementation].push_back(std::move(pass.samples));
    }
    const Nanos elapsed = now() - start;
    s.outcome.elapsed_ns = elapsed;
    s.outcome.passes = 2 * rounds;
    s.outcome.reached = width();
    // Only the width decides, never the estimate: stopping cannot make a difference appear.
    if (rounds >= kPrecisionMinRounds && s.outcome.reached <= target.relative) {
      s.outcome.stopped = StopReason::target_reached;
      return s;
    }
    if (rounds >= kPrecisionMaxRounds) {
      s.outcome.stopped = StopReason::pass_cap;
      return s;
    }
    const Nanos per_round = elapsed / rounds;
    if (elapsed + per_round > target.max_time_ns) {
      s.outcome.stopped = StopReason::time_cap;
      return s;
    }
  }
}

}  // namespace detail
PassSamples passes_of(const Measurement& m) {
  PassSamples passes;
  std::size_t at = 0;
  for (const std::size_t n : m.pass_sizes) {
    if (n == 0 || at + n > m.samples.size()) return {};
    std::vector<double> pass;
    pass.reserve(n);
    for (std::size_t i = at; i < at + n; ++i) {
      pass.push_back(static_cast<double>(m.samples[i].device_busy_ns));
    }
    passes.push_back(std::move(pass));
    at += n;
  }
  if (at != m.samples.size()) return {};
  return passes;
}

std::optional<double> precision_reached(const std::vector<const Measurement*>& case_rows) {
  if (case_rows.empty()) return std::nullopt;
  std::vector<PassSamples> passes;
  for (const Measurement* m : case_rows) {
    PassSamples p = passes_of(*m);
    if (p.size() < 2) return std::nullopt;
    passes.push_back(std::move(p));
  }
  try {
    const Nanos tick0 = case_rows.front()->timestamp_tick_ns;
    if (case_rows.size() == 1) return detail::level_half_width(passes.front(), tick0);
    double widest = 0;
    for (std::size_t k = 1; k < case_rows.size(); ++k) {
      const Nanos tick = std::max(tick0, case_rows[k]->timestamp_tick_ns);
      widest = std::max(widest, detail::comparison_width(passes.front(), passes[k], tick));
    }
    return widest;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace gpumeter
