#include "gpumeter/runner.hpp"

#include <cstddef>
#include <exception>
#include <random>
#include <string>
#include <string_view>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/device_state.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/process_memory.hpp"
#include "gpumeter/version.hpp"

namespace gpumeter {
namespace {

// Every case runs the A B C C B A order, a lone implementation as A A: two passes each, so
// every row carries the pass-to-pass spread a comparison needs, also a comparison with a row
// of another record (docs/comparisons.md).
std::vector<Measurement> measure_case(Backend& backend, const Case& c, const RunOptions& options) {
  CompareOptions co;
  co.budget = options.budget;
  co.count_copies = c.count_copies;
  co.inputs_fingerprint = c.inputs_fingerprint;
  co.precision = options.precision;
  co.yardstick = c.yardstick;
  return compare(backend, c.implementations, co);
}

// A name a record cannot hold (kMaxNameBytes, record.hpp) is refused before anything is
// measured: the record written at the end would refuse it, losing the run.
void check_names_fit(const std::vector<Case>& cases) {
  const auto check = [](const Case& c, std::string_view what, const std::string& name) {
    if (name.size() <= kMaxNameBytes) return;
    const std::string shown = c.name.size() <= 40 ? c.name : c.name.substr(0, 40) + "...";
    throw ConfigError("case '" + shown + "': " + std::string(what) + " is " +
                      std::to_string(name.size()) + " bytes long, more than the " +
                      std::to_string(kMaxNameBytes) +
                      " a record holds for a name; give it a shorter one");
  };
  for (const Case& c : cases) {
    check(c, "its name", c.name);
    for (const auto& [key, value] : c.params) {
      check(c, "a param's name", key);
      check(c, "the value of param '" + (key.size() <= 40 ? key : key.substr(0, 40) + "...") + "'",
            value);
    }
    for (const Implementation& impl : c.implementations) {
      check(c, "an implementation's name", impl.name);
    }
  }
}

// Tolerances the record would refuse (tolerance.hpp) are refused before anything is measured.
void check_answer_check(const Case& c) {
  if (!c.answer_check) return;
  const std::string problem = tolerance_problem(c.answer_check->rtol, c.answer_check->atol);
  if (problem.empty()) return;
  throw ConfigError(problem.rfind("rtol", 0) == 0 ? "rtol" : "atol",
                    problem + " (case '" + c.name + "')");
}

}  // namespace

Record run_header(Backend& backend, const RunOptions& options) {
  Record rec;
  rec.created_utc = utc_now_iso();
  rec.gpumeter_version = version();
  rec.argv = options.argv;
  rec.project_commit = project_commit();
  rec.host = read_host_identity();
  rec.device = backend.device();
  // Read by the backend, before the first case: the state the measurement starts from.
  const DeviceStateReading state = backend.read_device_state();
  rec.device_state = state.state;
  rec.ceilings = options.ceilings;
  rec.config.budget = options.budget;
  // What the backend does, not what a front end believes it does.
  rec.config.l2_flush_mode = backend.l2_flush_mode();
  rec.config.l2_flush = !rec.config.l2_flush_mode.empty();
  rec.config.schedule = "ABCCBA";
  if (options.precision) {
    // A run to a target precision has no fixed budget: the config shows each pass's, and the
    // schedule says the rounds repeat.
    rec.config.budget = kPrecisionPassBudget;
    rec.config.schedule = "ABCCBA rounds to a target precision (budget per pass)";
  }
  rec.deviations = options.deviations;
  try {
    rec.config.launch_cost_ns = backend.launch_cost();
  } catch (const Error& e) {
    // Not a number gpumeter stands behind: the cases say for themselves whether they can run.
    rec.deviations.push_back(std::string("launch cost not measured: ") + e.what());
  }
  if (!state.unavailable.empty())
    rec.deviations.push_back(unavailable_deviation(state.unavailable));
  if (!backend.reason().empty()) rec.deviations.push_back(backend.reason());
  return rec;
}

std::vector<std::string> RunFindings::deviations() const {
  std::vector<std::string> out;
  if (clocks.converted > 0) {
    out.push_back(
        std::to_string(clocks.converted) + " of " + std::to_string(clocks.phases) +
        " measurement phases found CUPTI's timestamps in another client's clock (" +
        format_significant(clocks.min_scale, 4) + " to " + format_significant(clocks.max_scale, 4) +
        " units per ns) and were converted to the device's nanoseconds by gpumeter's clock "
        "probes");
  }
  if (unproven_counter) {
    out.push_back("the dropped-record counter was not proven live: a lost record would go unseen");
  }
  return out;
}

CaseOutcome run_case(Backend& backend, const Case& c, const RunOptions& options,
                     RunFindings& findings) {
  check_names_fit({c});
  check_answer_check(c);
  CaseOutcome out;
  std::vector<Measurement> measured;
  // P7: the host peak from here covers this case (where the kernel lets it be reset).
  const bool peak_reset = reset_host_peak_rss();
  try {
    measured = measure_case(backend, c, options);
  } catch (const Error& e) {
    Failure f;
    f.row = RowKey{c.name, c.params,
                   c.implementations.size() == 1 ? c.implementations.front().name : ""};
    f.error = error_name(e);
    f.message = e.what();
    f.thrown = std::current_exception();
    out.failures.push_back(std::move(f));
    return out;
  }
  MemoryUse memory;
  memory.gpu_context_floor_bytes = backend.context_floor_memory();
  memory.gpu_after_case_bytes = backend.process_device_memory();
  memory.host_peak_rss_bytes = host_peak_rss_bytes();
  memory.host_peak_reset = peak_reset;
  memory.own_process = options.own_process;
  for (std::size_t k = 0; k < measured.size(); ++k) {
    Result r;
    r.memory = memory;
    r.row = RowKey{c.name, c.params, c.implementations[k].name};
    r.count_copies = c.count_copies;
    r.workload = c.workload;
    r.measurement = std::move(measured[k]);
    // The case's tolerances are those of the rows whose answers a check held to them.
    const Implementation& impl = c.implementations[k];
    if (impl.verify || impl.call.check) r.answer_check = c.answer_check;
    findings.unproven_counter = findings.unproven_counter || !r.measurement.drop_counter_live;
    if (r.measurement.timestamp_check) findings.clocks.add(*r.measurement.timestamp_check);
    out.results.push_back(std::move(r));
  }
  return out;
}

Record run_cases(Backend& backend, const std::vector<Case>& cases, const RunOptions& options) {
  check_names_fit(cases);
  for (const Case& c : cases) check_answer_check(c);
  Record rec = run_header(backend, options);
  RunFindings findings;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CaseOutcome one = run_case(backend, cases[i], options, findings);
    for (Result& r : one.results) rec.results.push_back(std::move(r));
    for (Failure& f : one.failures) rec.failures.push_back(std::move(f));
    if (options.progress) options.progress(cases[i], i + 1, cases.size());
  }
  fill_boards(rec);  // B10: every row ran on this run's device
  finish(rec);
  for (std::string& d : findings.deviations()) rec.deviations.push_back(std::move(d));
  return rec;
}

}  // namespace gpumeter
