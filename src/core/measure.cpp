#include "gpumeter/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <string>

#include "driver.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_clock.hpp"
#include "schedule.hpp"
#include "sequential.hpp"

namespace gpumeter {

Measurement measure(Backend& backend, const Call& call, const MeasureOptions& options) {
  if (!call.run) throw ConfigError("measure: the call has nothing to run");
  const Budget& b = options.budget;
  Measurement m;
  m.method = backend.method();
  m.reason = backend.reason();

  std::optional<detail::AttributedPhase> calibration;
  if (options.estimate_ns) {
    if (*options.estimate_ns <= 0) throw ConfigError("measure: an estimate of one call <= 0 ns");
    m.estimate_ns = *options.estimate_ns;
  } else {
    calibration =
        detail::run_attributed_phase(backend, call, kCalibrationRuns, options.count_copies);
    m.estimate_ns = estimate_call(calibration->samples);
  }
  m.warmup_iterations =
      iterations_for(b.warmup_ns, m.estimate_ns, b.min_iterations, b.max_iterations);
  m.measure_iterations =
      iterations_for(b.measure_ns, m.estimate_ns, b.min_iterations, b.max_iterations);
  // The warm-up is the measured phase's first iterations, their samples dropped: every phase
  // costs its own setup and collection (about 11 ms on the H100 beside its iterations, measured
  // by gpumeter-precision's cost part), a fifth of a precision pass of a 1 us kernel, and the
  // measured iterations follow the warm-up with nothing of gpumeter's between them.
  detail::AttributedPhase measured =
      detail::run_attributed_phase(backend, call, m.warmup_iterations + m.measure_iterations,
                                   options.count_copies, options.read_clocks, m.warmup_iterations);
  const auto first_measured =
      measured.samples.begin() + static_cast<std::ptrdiff_t>(m.warmup_iterations);
  m.samples.assign(std::make_move_iterator(first_measured),
                   std::make_move_iterator(measured.samples.end()));
  m.pass_sizes = {m.samples.size()};
  m.timestamp_tick_ns = detail::estimate_tick(measured.durations);
  m.retries = measured.retries;
  m.drop_counter_live = measured.drop_counter_live;
  m.timestamp_check = measured.timestamp_check;
  m.ledger = measured.ledger;
  m.load_average = backend.load_average();
  if (calibration) {
    m.retries += calibration->retries;
    m.drop_counter_live = m.drop_counter_live && calibration->drop_counter_live;
    m.timestamp_check = combine(calibration->timestamp_check, m.timestamp_check);
    m.ledger += calibration->ledger;
  }
  return m;
}

Measurement merge_passes(const std::vector<Measurement>& passes) {
  if (passes.empty()) throw ConfigError("merge_passes: no passes to merge");
  Measurement merged;
  merged.method = passes.front().method;
  merged.estimate_ns = passes.front().estimate_ns;
  merged.timestamp_tick_ns = passes.front().timestamp_tick_ns;
  for (const Measurement& p : passes) {
    if (p.method != merged.method) {
      throw MixedTimingMethods(
          "the passes of one implementation were timed with different methods (" +
          std::string(to_string(merged.method)) + " and " + std::string(to_string(p.method)) +
          "): one median over both would mix two measurements, so none is reported. Make "
          "CUPTI usable for the whole run, or time every pass with the fallback.");
    }
    if (merged.reason.empty()) merged.reason = p.reason;
    merged.samples.insert(merged.samples.end(), p.samples.begin(), p.samples.end());
    merged.pass_sizes.insert(merged.pass_sizes.end(), p.pass_sizes.begin(), p.pass_sizes.end());
    merged.timestamp_tick_ns = std::max(merged.timestamp_tick_ns, p.timestamp_tick_ns);
    merged.retries += p.retries;
    merged.warmup_iterations += p.warmup_iterations;
    merged.measure_iterations += p.measure_iterations;
    merged.drop_counter_live = merged.drop_counter_live && p.drop_counter_live;
    merged.timestamp_check = combine(merged.timestamp_check, p.timestamp_check);
    merged.ledger += p.ledger;
    if (p.load_average) {
      merged.load_average =
          std::max(merged.load_average.value_or(*p.load_average), *p.load_average);
    }
  }
  return merged;
}

namespace {

std::vector<double> device_busy_of(const Measurement& m) {
  std::vector<double> out;
  out.reserve(m.samples.size());
  for (const Sample& s : m.samples) out.push_back(static_cast<double>(s.device_busy_ns));
  return out;
}

std::string implementation_step(const std::string& name, const std::string& step) {
  return "implementation '" + name + "', " + step;
}

// A measured call's exception names its implementation too: the failure of a case of several
// implementations names none.
template <class Run>
auto naming_implementation(const std::string& name, const std::string& how, Run&& run) {
  try {
    return run();
  } catch (const UserCodeError& e) {
    throw UserCodeError(implementation_step(name, how + e.step()), e.type(), e.message());
  }
}

}  // namespace

void verify_untimed(Backend& backend, const Implementation& impl) {
  std::uint64_t seed = 0;
  if (impl.call.prepare) {
    seed = detail::next_seed();
    run_user_code(implementation_step(impl.name, "its fresh inputs before its untimed call"),
                  [&] { impl.call.prepare(seed); });
  }
  if (impl.call.reset) {
    run_user_code(implementation_step(impl.name, "the reset before its untimed call"),
                  impl.call.reset);
  }
  run_user_code(implementation_step(impl.name, "its untimed call before timing"), impl.call.run);
  backend.synchronize();
  if (impl.call.check) {
    run_user_code(implementation_step(impl.name, "the check of its untimed answer"),
                  [&] { impl.call.check(seed); });
    backend.synchronize();
  }
  if (impl.verify) run_user_code(implementation_step(impl.name, "its output check"), impl.verify);
}

namespace {

void check_inputs(const CompareOptions& options, std::size_t reference, const std::string& who) {
  if (!options.inputs_fingerprint) return;
  std::size_t now = reference;
  run_user_code("the fingerprint of the shared inputs, after implementation '" + who + "'",
                [&] { now = options.inputs_fingerprint(); });
  if (now != reference) {
    throw InputsModified("implementation '" + who +
                         "' changed the case's shared inputs, so the implementations after "
                         "it would start from other data; nothing was timed. Give it private "
                         "copies of what it writes and restore them in its reset.");
  }
}

}  // namespace

NullTestSamples run_null_test(Backend& backend, const Implementation& impl, bool count_copies) {
  const std::function<void(int)> scaled = impl.scaled;
  if (!scaled) throw ConfigError("run_null_test: implementation '" + impl.name + "' cannot scale");
  // Fresh inputs still (the scaled work reads them); no check: its answer is k times the work's.
  const Call call{[scaled] { scaled(kNullTestScale); }, impl.call.reset, impl.call.prepare, {}};
  const Measurement m =
      measure(backend, call, MeasureOptions{kNullTestBudget, count_copies, /*read_clocks=*/false});
  if (m.method != backend.method()) {
    throw MixedTimingMethods("the null test of '" + impl.name + "' was timed by another method");
  }
  NullTestSamples out;
  out.scale = kNullTestScale;
  out.scaled_ns.reserve(m.samples.size());
  for (const Sample& s : m.samples) out.scaled_ns.push_back(s.device_busy_ns);
  return out;
}

std::vector<Measurement> compare(Backend& backend, const std::vector<Implementation>& impls,
                                 const CompareOptions& options) {
  if (impls.empty()) throw ConfigError("compare: no implementations");
  std::set<std::string> names;
  for (const Implementation& impl : impls) {
    if (!impl.call.run)
      throw ConfigError("compare: implementation '" + impl.name + "' has no call");
    if (!names.insert(impl.name).second) {
      throw ConfigError("compare: two implementations are named '" + impl.name + "'");
    }
  }
  if (options.precision) {
    if (const std::string problem = precision_target_problem(*options.precision);
        !problem.empty()) {
      throw ConfigError("compare: " + problem);
    }
  }
  std::size_t reference = 0;
  if (options.inputs_fingerprint) {
    run_user_code("the fingerprint of the shared inputs, before anything ran",
                  [&] { reference = options.inputs_fingerprint(); });
  }

  // Outputs are verified, and shared inputs checked, before anything is timed (T10).
  for (const Implementation& impl : impls) {
    verify_untimed(backend, impl);
    check_inputs(options, reference, impl.name);
  }

  std::vector<std::vector<Measurement>> passes(impls.size());
  auto run_pass = [&](std::size_t k, MeasureOptions pass) {
    const Implementation& impl = impls[k];
    // A later pass of an implementation: the first pass's estimate, no calibration of its own.
    if (!passes[k].empty()) pass.estimate_ns = passes[k].front().estimate_ns;
    passes[k].push_back(
        naming_implementation(impl.name, "", [&] { return measure(backend, impl.call, pass); }));
    check_inputs(options, reference, impl.name);
    return &passes[k].back();
  };
  std::optional<PrecisionOutcome> outcome;
  std::vector<Measurement> yardstick_passes;
  if (options.precision) {
    const MeasureOptions pass{kPrecisionPassBudget, options.count_copies};
    outcome = detail::run_to_precision(
                  impls.size(),
                  [&](std::size_t k) {
                    const Measurement* m = run_pass(k, pass);
                    return detail::PassRun{device_busy_of(*m), m->timestamp_tick_ns};
                  },
                  detail::steady_ns, *options.precision)
                  .outcome;
  } else {
    const MeasureOptions pass{comparison_pass_budget(options.budget), options.count_copies};
    // On the host clock, rounds of A B B A: load falls on both sides, and the passes give the
    // interval the host-clock rule judges by (host_clock.hpp). Device time judges by one.
    const bool host = statistic_of(backend.method()) == Statistic::synchronized_wall_clock;
    const int rounds = host ? kHostClockRounds : 1;
    // The yardstick, where a front end gave one, takes the middle of each round (A B Y Y B A):
    // its i-th pass runs beside each implementation's i-th, so a comparison with a row of
    // another run reads each side against the load of its own minutes (host_clock.hpp).
    const std::size_t yardstick_slot = host && options.yardstick ? impls.size() : SIZE_MAX;
    const std::size_t slots = impls.size() + (yardstick_slot == SIZE_MAX ? 0 : 1);
    for (int round = 0; round < rounds; ++round) {
      for (const PassSlot& slot : symmetric_schedule(slots)) {
        if (slot.implementation != yardstick_slot) {
          run_pass(slot.implementation, pass);
          continue;
        }
        MeasureOptions y = pass;  // the implementations' pass, as they run it
        if (!yardstick_passes.empty()) y.estimate_ns = yardstick_passes.front().estimate_ns;
        yardstick_passes.push_back(measure(backend, options.yardstick->call, y));
      }
    }
  }

  std::vector<Measurement> merged;
  merged.reserve(impls.size());
  for (const auto& p : passes) {
    merged.push_back(merge_passes(p));
    merged.back().precision = outcome;
  }
  if (!yardstick_passes.empty()) {
    YardstickReading reading{options.yardstick->work, {}};
    for (const Measurement& y : yardstick_passes) {
      reading.pass_ns.push_back(pass_level(device_busy_of(y), kHostClockIntervalRules));
    }
    for (Measurement& m : merged) m.yardstick = reading;
  }

  // P6: after every pass, so the null test's runs cannot disturb the comparison's order.
  for (std::size_t k = 0; k < impls.size(); ++k) {
    if (!impls[k].scaled) continue;
    const std::string how = "its null test (" + std::to_string(kNullTestScale) + "x the work), ";
    merged[k].null_test = naming_implementation(
        impls[k].name, how, [&] { return run_null_test(backend, impls[k], options.count_copies); });
    check_inputs(options, reference, impls[k].name);
  }
  return merged;
}

Measurement measure_to_precision(Backend& backend, const Call& call, const PrecisionTarget& target,
                                 bool count_copies) {
  if (!call.run) throw ConfigError("measure: the call has nothing to run");
  if (const std::string problem = precision_target_problem(target); !problem.empty()) {
    throw ConfigError("measure: " + problem);
  }
  MeasureOptions pass{kPrecisionPassBudget, count_copies};
  std::vector<Measurement> passes;
  const detail::SequentialPasses run = detail::run_to_precision(
      1,
      [&](std::size_t) {
        // A later pass: the first pass's estimate, no calibration of its own.
        if (!passes.empty()) pass.estimate_ns = passes.front().estimate_ns;
        passes.push_back(measure(backend, call, pass));
        return detail::PassRun{device_busy_of(passes.back()), passes.back().timestamp_tick_ns};
      },
      detail::steady_ns, target);
  Measurement m = merge_passes(passes);
  m.precision = run.outcome;
  return m;
}

}  // namespace gpumeter
