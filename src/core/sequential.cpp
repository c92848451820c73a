#include "sequential.hpp"

#include "gpumeter/detail/format.hpp"
#include "gpumeter/precision_width.hpp"
#include "gpumeter/run_target.hpp"
#include "passes.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <span>
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
  if (!kPrecisionTargetRange.contains(target.relative)) {
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

// How much larger than its estimate the spread of pass levels may be, at kSpreadBoundLevel: the
// square root of df over the chi-square quantile (Wilson and Hilferty's approximation, within a
// percent for df >= 2). 1.65 at df 6, 1.09 at df 126.
double spread_upper_factor(int df) {
  const double k = df;
  const double c = 2.0 / (9.0 * k);
  const double q = k * std::pow(std::max(1.0 - c + kSpreadBoundZ * std::sqrt(c), 0.05), 3.0);
  return std::sqrt(k / q);
}

double width_of_levels(std::span<const double> a_logs, std::span<const double> b_logs,
                       Nanos tick_ns, bool bound, const IntervalRules& rules, double fraction) {
  const LogSpread a = log_spread_of(a_logs);
  const LogSpread b = log_spread_of(b_logs);
  const int df = static_cast<int>(a.n + b.n - 2);
  const double pooled = (a.squares + b.squares) / df;
  double se = std::sqrt(pooled * (1.0 / static_cast<double>(a.n) + 1.0 / static_cast<double>(b.n)));
  if (bound) se *= spread_upper_factor(df);
  return std::expm1(detectable_noncentrality(df, rules.confidence, kDetectionPower) * se +
                    log_step_allowance(tick_ns, std::exp(a.mean), fraction));
}

double half_width_of_levels(std::span<const double> logs, Nanos tick_ns, bool bound,
                            const IntervalRules& rules, double fraction) {
  const LogSpread l = log_spread_of(logs);
  const int df = static_cast<int>(l.n - 1);
  double se = std::sqrt(l.squares / df / static_cast<double>(l.n));
  if (bound) se *= spread_upper_factor(df);
  const double t = student_t_quantile(1.0 - (1.0 - rules.confidence) / 2.0, df);
  return std::expm1(t * se + log_step_allowance(tick_ns, std::exp(l.mean), fraction));
}

void check_tick(Nanos tick_ns) {
  if (tick_ns < 1) throw std::invalid_argument("precision: timestamp tick < 1 ns");
}

}  // namespace

double comparison_width(const PassSamples& baseline, const PassSamples& candidate, Nanos tick_ns,
                        bool bound, const IntervalRules& rules) {
  if (baseline.size() < 2 || candidate.size() < 2) {
    throw std::invalid_argument("comparison_width: each side needs at least 2 passes");
  }
  check_tick(tick_ns);
  return width_of_levels(log_levels(baseline), log_levels(candidate), tick_ns, bound, rules,
                         step_allowance_fraction({baseline, candidate}, rules));
}

double level_half_width(const PassSamples& passes, Nanos tick_ns, bool bound,
                        const IntervalRules& rules) {
  if (passes.size() < 2) throw std::invalid_argument("level_half_width: fewer than 2 passes");
  check_tick(tick_ns);
  return half_width_of_levels(log_levels(passes), tick_ns, bound, rules,
                              step_allowance_fraction({passes}, rules));
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
  const IntervalRules rules;  // a run's own rules are the current ones
  auto width = [&] {
    if (n_implementations == 1) {
      return half_width_of_levels(logs[0], s.tick_ns[0], true, rules,
                                  step_allowance_fraction({s.passes[0]}, rules));
    }
    double widest = 0;
    for (std::size_t k = 1; k < n_implementations; ++k) {
      const Nanos tick = std::max(s.tick_ns[0], s.tick_ns[k]);
      widest = std::max(
          widest, width_of_levels(logs[0], logs[k], tick, true, rules,
                                  step_allowance_fraction({s.passes[0], s.passes[k]}, rules)));
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
    if (rounds >= detail::kPrecisionMinRounds && s.outcome.reached <= target.relative) {
      s.outcome.stopped = StopReason::target_reached;
      return s;
    }
    if (rounds >= detail::kPrecisionMaxRounds) {
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

std::optional<double> precision_reached(const std::vector<const Measurement*>& case_rows,
                                        const IntervalRules& rules) {
  if (case_rows.empty()) return std::nullopt;
  std::vector<PassSamples> passes;
  for (const Measurement* m : case_rows) {
    PassSamples p = passes_of(*m);
    if (p.size() < 2) return std::nullopt;
    passes.push_back(std::move(p));
  }
  try {
    const Nanos tick0 = case_rows.front()->timestamp_tick_ns;
    if (case_rows.size() == 1) return detail::level_half_width(passes.front(), tick0, true, rules);
    double widest = 0;
    for (std::size_t k = 1; k < case_rows.size(); ++k) {
      const Nanos tick = std::max(tick0, case_rows[k]->timestamp_tick_ns);
      widest =
          std::max(widest, detail::comparison_width(passes.front(), passes[k], tick, true, rules));
    }
    return widest;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

namespace {

std::string seconds(double ns) {
  return format_shortest(ns / 1e9) + " s";
}

}  // namespace

// The stop rule of run_to_precision, replayed on the passes a record holds. The width of an
// earlier round is read with the row's largest timestamp step (the record keeps no other), which
// can only widen it: a round found within the target so was within it when it ran. The samples'
// device time is a lower bound of the wall time they took, so a round whose samples alone would
// pass the cap was one the rule did not start.
std::string precision_outcome_problem(const std::vector<const Measurement*>& case_rows,
                                      const PrecisionOutcome& p, const IntervalRules& rules) {
  if (case_rows.empty()) return {};
  const int rounds = p.passes / 2;
  std::vector<PassSamples> passes;
  std::vector<std::vector<double>> logs;
  for (const Measurement* m : case_rows) {
    PassSamples ps = passes_of(*m);
    if (ps.size() != static_cast<std::size_t>(p.passes)) return "passes: not the rows' passes";
    std::vector<double> l;
    try {
      l = detail::log_levels(ps);
    } catch (const std::invalid_argument&) {
      return "passes: a pass whose level is not positive";
    }
    passes.push_back(std::move(ps));
    logs.push_back(std::move(l));
  }
  const Nanos tick0 = case_rows.front()->timestamp_tick_ns;
  const auto width_after = [&](int k) {
    const std::size_t n = 2 * static_cast<std::size_t>(k);
    // The first n passes of each row, viewed in place (a round replayed copies nothing).
    const auto first = std::span<const double>(logs[0]).first(n);
    const auto first_passes = std::span<const std::vector<double>>(passes[0]).first(n);
    if (case_rows.size() == 1) {
      return detail::half_width_of_levels(first, tick0, true, rules,
                                          step_allowance_fraction({first_passes}, rules));
    }
    double widest = 0;
    for (std::size_t i = 1; i < case_rows.size(); ++i) {
      const auto other = std::span<const double>(logs[i]).first(n);
      const auto other_passes = std::span<const std::vector<double>>(passes[i]).first(n);
      const Nanos tick = std::max(tick0, case_rows[i]->timestamp_tick_ns);
      widest = std::max(widest, detail::width_of_levels(
                                    first, other, tick, true, rules,
                                    step_allowance_fraction({first_passes, other_passes}, rules)));
    }
    return widest;
  };
  // The samples' device time and wall time (latency) after each round, every row together.
  std::vector<double> busy_after(static_cast<std::size_t>(rounds) + 1, 0.0);
  double latency = 0;
  for (std::size_t i = 0; i < case_rows.size(); ++i) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < passes[i].size(); ++k) {
      double busy = 0;
      for (std::size_t s = at; s < at + passes[i][k].size(); ++s) {
        busy += static_cast<double>(case_rows[i]->samples[s].device_busy_ns);
        latency += static_cast<double>(case_rows[i]->samples[s].latency_ns);
      }
      at += passes[i][k].size();
      busy_after[k / 2 + 1] += busy;
    }
  }
  for (std::size_t k = 1; k < busy_after.size(); ++k) busy_after[k] += busy_after[k - 1];
  const auto cap = static_cast<double>(p.max_time_ns);
  const std::string after = std::to_string(p.passes) + " passes";

  // Each earlier round: the rule went on, so the target was not met and the next round fit.
  for (int k = 1; k < rounds; ++k) {
    if (k >= detail::kPrecisionMinRounds) {
      const double w = width_after(k);
      if (w <= p.target) {
        return "stopped: its passes were within the target " + format_shortest(p.target) +
               " after " + std::to_string(2 * k) + " passes (" + format_shortest(w) +
               "), where the rule stops, yet the record goes on to " + after;
      }
    }
    const double spent = busy_after[static_cast<std::size_t>(k)];
    if (spent + spent / k > cap) {
      return "stopped: after " + std::to_string(2 * k) + " passes the samples alone had taken " +
             seconds(spent) + ", so another round would have passed the time cap of " +
             seconds(cap) + " and the rule would have stopped there, yet the record goes on to " +
             after;
    }
  }
  const double elapsed = static_cast<double>(p.elapsed_ns);
  const double own = busy_after.back();
  // A host clock against the device's: a hundredth apart at most over a run.
  if (elapsed < 0.99 * own) {
    return "elapsed_ns: " + seconds(elapsed) + ", less than its samples' own device time (" +
           seconds(own) + ")";
  }
  // The rule starts a round only when the rounds so far say it ends within the cap: the run
  // overruns by its last round at most, which takes a few times its samples' wall time (each
  // pass's warm-up and calibration beside them), not a second cap.
  const double most = 2 * cap + 4 * latency;
  if (elapsed > most) {
    return "elapsed_ns: " + seconds(elapsed) + ", more than a run capped at " + seconds(cap) +
           " with these samples (" + seconds(latency) + " of wall time) can take";
  }
  const bool met = rounds >= detail::kPrecisionMinRounds && p.reached <= p.target;
  switch (p.stopped) {
    case StopReason::target_reached:
      if (rounds < detail::kPrecisionMinRounds) {
        return "stopped: target_reached after " + after +
               ", but the rule stops on its target "
               "only after " +
               std::to_string(2 * detail::kPrecisionMinRounds) + " passes";
      }
      return {};  // reached <= target: the caller checked it
    case StopReason::pass_cap:
      if (met) return "stopped: pass_cap, yet its passes are within the target";
      if (rounds != detail::kPrecisionMaxRounds) {
        return "stopped: pass_cap after " + after + ", but the cap is " +
               std::to_string(2 * detail::kPrecisionMaxRounds) + " passes";
      }
      return {};
    case StopReason::time_cap: {
      if (met) return "stopped: time_cap, yet its passes are within the target";
      if (rounds >= detail::kPrecisionMaxRounds) return "stopped: time_cap at the pass cap";
      // The rule's own arithmetic: another round at the mean round's time would end past the cap.
      const Nanos per_round = p.elapsed_ns / rounds;
      if (!(p.elapsed_ns + per_round > p.max_time_ns)) {
        return "stopped: the time cap after " + seconds(elapsed) + " of " + seconds(cap) +
               ", where another round (" + seconds(static_cast<double>(per_round)) +
               ") would have ended within it";
      }
      return {};
    }
  }
  return {};
}

}  // namespace gpumeter
