#include "driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>

#if defined(__linux__)
#include <sys/random.h>

#include <cerrno>
#endif

#include "attribute.hpp"
#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"

namespace gpumeter::detail {
namespace {

std::string at(std::size_t iteration, const std::string& what) {
  return "iteration " + std::to_string(iteration) + ", " + what;
}

// Runs user code inside an iteration: what it throws is named as run_user_code says, with the
// iteration and the step.
void invoke(const std::function<void()>& fn, std::size_t iteration, const char* what) {
  run_user_code(at(iteration, what), fn);
}

// Draws which iterations are checked: private to the driver, seeded from the OS, so the call
// cannot predict a draw.
bool draw(double probability) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::bernoulli_distribution(std::clamp(probability, 0.0, 1.0))(rng);
}

}  // namespace

Nanos steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::uint64_t next_seed() {
  // B11: drawn from the OS's random source for every call, never from a counter or a generator
  // kept in this process: a candidate that learns one seed (by wrapping a function the input
  // generator calls) could otherwise compute every later one and do future calls' work now.
  std::uint64_t seed = 0;
#if defined(__linux__)
  auto* bytes = reinterpret_cast<unsigned char*>(&seed);
  std::size_t got = 0;
  while (got < sizeof(seed)) {
    const ssize_t n = ::getrandom(bytes + got, sizeof(seed) - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      break;  // no getrandom (a kernel before 3.17): the C++ library's device below
    }
  }
  if (got == sizeof(seed)) return seed;
#endif
  std::random_device rd;  // the OS's source where the library has one
  seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return seed;
}

void check_device_processes(EnvironmentProbe& probe, const char* when) {
  const std::optional<std::vector<DeviceProcess>> found = probe.new_device_processes();
  if (!found || found->empty()) return;
  std::string named;
  bool own = false;
  for (const DeviceProcess& p : *found) {
    named += (named.empty() ? "" : ", ") + std::string("pid ") + std::to_string(p.pid) + " (" +
             (p.command.empty() ? std::string("its command not visible from here")
                                : one_line(p.command, kMaxProcessCommandChars)) +
             (p.own_session ? ", of this process's own session" : "") + ")";
    own = own || p.own_session;
  }
  throw OtherProcessOnDevice(
      std::string(when) + ", another process held a compute context on the measured device that " +
          "was not there when the run began: " + named +
          ". Work it does is in no reading (gpumeter times this process's work), so nothing is "
          "reported. " +
          (own ? "It belongs to this process's session: the code under test started it; do the "
                 "work in the call itself."
               : "Measure while no other process computes on the device."),
      own);
}

PhaseRun run_phase(Backend& backend, const Call& call, const PhaseRequest& request, bool clocks,
                   std::size_t clocks_from) {
  // The backend's three jobs, each used for its own: the driver decides the order.
  DeviceSteps& steps = backend;
  Collector& collector = backend;
  EnvironmentProbe& probe = backend;
  // Nothing enqueued earlier (not by gpumeter) may overlap iteration 0.
  steps.synchronize("before the phase, waiting for work enqueued earlier (not by gpumeter)");
  PhaseRun run;
  // A reading the backend cannot give stops the readings of the phase: all or none.
  bool reading = clocks;
  const auto read_clock = [&] {
    if (!reading) return;
    if (const std::optional<ClockReading> c = probe.read_clock()) {
      run.clocks.push_back(*c);
    } else {
      reading = false;
      run.clocks.clear();
    }
  };
  if (clocks) run.clocks.reserve(request.iterations + 1);
  // B11: measured phases are watched for other processes on the device, before and after.
  if (clocks) check_device_processes(probe, "before a measured phase");
  // Only around the kept samples: the warm-up's readings would cost two NVML reads an iteration.
  if (clocks_from == 0) read_clock();
  // What the iterations and the checks cost so far, for the probability of the next check.
  double iteration_ns = 0;
  double check_ns = 0;
  std::size_t checks = 0;
  collector.open_phase(request);
  try {
    for (std::size_t i = 0; i < request.iterations; ++i) {
      // B11: fresh inputs first, then T5: reset, then the cache cleared after both (their writes
      // must not stay in L2), all under the prepare label, never timed.
      // Each under its role's label, so the ledger says what the inputs and the reset cost.
      collector.begin_prepare(i);
      std::uint64_t seed = 0;
      if (call.prepare) {
        seed = next_seed();
        collector.label_prepare(HarnessRole::inputs);
        run_user_code(at(i, "the call's fresh inputs"), [&] { call.prepare(seed); });
        steps.after_user_code(i, "the call's fresh inputs");
        ++run.fresh_inputs;
      }
      if (call.reset) {
        collector.label_prepare(HarnessRole::reset);
        invoke(call.reset, i, "the call's reset");
        steps.after_user_code(i, "the call's reset");
        // The reset may run on a stream the flush does not wait for: finish it first.
        steps.drain(i, "the call's reset");
      }
      if (call.prepare || call.reset) collector.label_prepare(HarnessRole::own);
      steps.clear_cache(i);
      collector.end_prepare(i);
      steps.drain(i, "preparation");

      const Nanos began = steady_ns();
      collector.begin_iteration(i);
      invoke(call.run, i, "the measured call");
      collector.end_iteration(i);
      steps.after_user_code(i, "the measured call");
      steps.drain(i, "the measured call");  // no iteration overlaps the next
      iteration_ns += static_cast<double>(steady_ns() - began);
      // After the drain: outside the sample, and before the next one.
      if (i + 1 >= clocks_from) read_clock();

      // B11: the answer of this call, checked after it returned (it cannot know whether), outside
      // the timed window, before the next call's inputs replace what it wrote.
      const bool last = i + 1 == request.iterations;
      const double done = static_cast<double>(i + 1);
      if (call.check &&
          ((last && run.checked_iterations == 0) ||
           draw(check_probability(iteration_ns / done,
                                  checks == 0 ? 0 : check_ns / static_cast<double>(checks))))) {
        const Nanos check_began = steady_ns();
        collector.begin_prepare(i);
        collector.label_prepare(HarnessRole::check);
        try {
          run_user_code(at(i, "the check of its answer"), [&] { call.check(seed); });
        } catch (const VerificationFailed& e) {
          throw VerificationFailed("the answer of iteration " + std::to_string(i) + " of " +
                                   std::to_string(request.iterations) +
                                   " (checked while timed, on fresh inputs): " + e.what());
        }
        steps.after_user_code(i, "the check of its answer");
        collector.end_prepare(i);
        steps.drain(i, "the check of its answer");
        check_ns += static_cast<double>(steady_ns() - check_began);
        ++checks;
        ++run.checked_iterations;
      }
    }
    run.trace = collector.close_phase();
  } catch (...) {
    collector.abandon_phase();
    throw;
  }
  if (clocks) check_device_processes(probe, "after a measured phase");
  return run;
}

AttributedPhase run_attributed_phase(Backend& backend, const Call& call, std::size_t iterations,
                                     bool count_copies, bool clocks, std::size_t clocks_from) {
  AttributedPhase out;
  for (int attempt = 0;; ++attempt) {
    PhaseRun run;
    try {
      run = run_phase(backend, call, PhaseRequest{iterations, attempt}, clocks, clocks_from);
    } catch (const TimestampUnitMismatch&) {
      // T14: a clock registered just before or during the phase (seen on the H200: the first
      // phase after another client registered its clock read its first probe 4 us long) is
      // transient, like lost records: the phase is repeated, and refused the third time.
      if (attempt + 1 >= kMaxPhaseAttempts) throw;
      ++out.retries;
      continue;
    }
    const Trace& trace = run.trace;
    try {
      Ledger ledger;
      out.samples = attribute(trace, iterations, AttributionOptions{count_copies}, &ledger);
      ledger.fresh_inputs = run.fresh_inputs;
      ledger.checked_iterations = run.checked_iterations;
      out.ledger = ledger;
      if (clocks_from <= iterations && run.clocks.size() == iterations - clocks_from + 1) {
        for (std::size_t i = clocks_from; i < iterations; ++i) {
          out.samples[i].clock =
              around_sample(run.clocks[i - clocks_from], run.clocks[i - clocks_from + 1]);
        }
      }
      out.durations.reserve(trace.activities.size());
      for (const Activity& a : trace.activities) out.durations.push_back(a.end_ns - a.start_ns);
      out.drop_counter_live = trace.dropped_records.has_value();
      if (trace.timestamp_unit) {
        out.timestamp_check = TimestampCheck{};
        out.timestamp_check->add(*trace.timestamp_unit);
      }
      return out;
    } catch (const RecordsLost& lost) {
      if (attempt + 1 >= kMaxPhaseAttempts) {
        // Losses that larger buffers did not cure, with canaries missing: CUPTI counts the
        // records of work in flight as dropped when a call switches their kind off (seen on the
        // H200), so this is collection stopped by the call, not a host too busy to keep up.
        const std::size_t seen = canaries_seen(trace);
        if (seen < trace.canaries_launched) {
          throw CollectionStopped(
              "collection stopped while the phase ran: in each of " + std::to_string(attempt + 1) +
              " attempts records went missing, and in the last " + std::to_string(seen) +
              " of the " + std::to_string(trace.canaries_launched) +
              " canary kernels gpumeter launched around the iterations left a record (" +
              trace.names.tool + " counted " + std::to_string(lost.dropped()) +
              " dropped). Code in the process stopped " + trace.names.tool + "'s activity records" +
              switched_off_by(trace.names) +
              ", so what would be timed is not what ran; nothing is reported. Remove that code "
              "from the call.");
        }
        throw RecordsLost(lost.dropped(), attempt + 1, trace.names.tool);
      }
      ++out.retries;
    }
  }
}

Nanos estimate_tick(const std::vector<Nanos>& durations) {
  constexpr Nanos kJitterNs = 2;
  constexpr Nanos kSmallestStep = 8;  // below this, a 2 ns jitter would fit any data
  constexpr Nanos kLargestStep = 1024;
  constexpr double kFitting = 0.9;
  constexpr std::size_t kFewest = 8;  // fewer durations say nothing about a step
  constexpr std::size_t kMostRead = 512;
  const std::size_t n = std::min(durations.size(), kMostRead);
  if (n < kFewest) return 1;
  // A step that fits 90% of the durations fits most of any spread-out 32 of them: a quick test
  // on those keeps the search near 0.1 ms (the full test over 1017 steps took 1.5 ms per
  // measurement, seen in gpumeter-overhead on the H200).
  constexpr std::size_t kQuick = 32;
  const std::size_t stride = std::max<std::size_t>(1, n / kQuick);
  // Whether duration d is a multiple of step, within the jitter.
  const auto on_step = [&](Nanos d, Nanos step) {
    const Nanos r = ((d % step) + step) % step;
    return r <= kJitterNs || step - r <= kJitterNs;
  };
  const auto fits_quick = [&](Nanos step) {
    std::size_t fit = 0;
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; i += stride, ++m) {
      if (on_step(durations[i], step)) ++fit;
    }
    // Looser than the final test: a step that fits 90% of all is dropped here only if more than
    // half of the spread-out durations fall among its 10% misses (not a guarantee, but readings
    // of one call are not ordered so).
    return static_cast<double>(fit) >= 0.5 * static_cast<double>(m);
  };
  for (Nanos step = kLargestStep; step >= kSmallestStep; --step) {
    if (!fits_quick(step)) continue;
    std::size_t fit = 0;
    Nanos first_multiple = -1;
    bool two_multiples = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Nanos d = durations[i];
      if (!on_step(d, step)) continue;
      ++fit;
      const Nanos multiple = (d + kJitterNs) / step;
      if (first_multiple < 0) first_multiple = multiple;
      two_multiples = two_multiples || multiple != first_multiple;
    }
    if (two_multiples && static_cast<double>(fit) >= kFitting * static_cast<double>(n)) return step;
  }
  return 1;
}

}  // namespace gpumeter::detail
