// gpumeter's Python extension: the same C++ core, driven from Python through typed classes. The
// package (python/gpumeter/) checks Python's argument types and documents the API; this module
// runs cases into a record, which Python reads through the classes of record.cpp, and raises the
// core's errors as gpumeter's Python classes with their fields. No rule is implemented twice:
// summaries, comparisons, sentences and records come from the C++ core.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "cli.hpp"
#include "command_options.hpp"
#include "gpumeter/candidate_verdict.hpp"
#include "gpumeter/checker_account.hpp"
#include "gpumeter/default_tolerance.hpp"
#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/error_class.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/number_rule.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/detail/verdict.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/option_spec.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/run_target.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/session.hpp"
#include "gpumeter/version.hpp"
#include "number_option.hpp"
#ifdef GPUMETER_HAVE_CUDA
#include "gpumeter/cuda.hpp"
#endif

namespace gpumeter::python {
namespace {

// A call's options (gpumeter._gpumeter.Options), each value checked when it is made: the
// package has checked their Python types, and names the argument in the same way.
struct Options {
  int device = 0;
  std::string timing = "auto";  // a name of kTimingNames (session.hpp)
  bool allow_events_fallback = false;
  std::optional<std::pair<double, double>> budget_ms;  // warm-up, measure
  std::vector<std::string> argv;
  bool ceilings = false;
  bool share_cupti = false;  // see CudaBackendOptions::share_cupti_with_idle_client
  bool lock = true;          // hold the device lock for the call (P1)
  bool allow_contended = false;
  std::optional<double> precision;  // a target precision (fraction); None: the fixed budget
  // The cap of a run to a precision, in seconds; None: not given, the core's default cap.
  std::optional<double> max_time_s;
  // The caller holds the device lock already (a DeviceLock of hold_device_lock, around a run of
  // several measurements and fresh processes): nothing is taken and nothing said here.
  bool lock_held = false;
  // SessionOptions::tolerated_device_processes (B11): None, those there when the backend is made.
  std::optional<std::vector<long>> tolerated_device_processes;
};

Options make_options(int device, std::string timing, bool allow_events_fallback,
                     std::optional<std::pair<double, double>> budget_ms,
                     std::vector<std::string> argv, bool ceilings, bool share_cupti, bool lock,
                     bool allow_contended, std::optional<double> precision,
                     std::optional<double> max_time_s, bool lock_held,
                     std::optional<std::vector<long>> tolerated_device_processes) {
  (void)parse_timing(timing, "timing");  // the session's names (kTimingNames)
  if (device < 0) {
    throw ConfigError("device",
                      "must be a CUDA device index, 0 or more, not " + std::to_string(device));
  }
  // The rules are the core's (run_target.hpp); the words are Python's.
  if (budget_ms) {
    const auto check = [](double ms, const char* what) {
      if (!kBudgetMsRange.contains(ms)) {
        throw ConfigError("budget", std::string(what) +
                                        " must be a positive number of "
                                        "milliseconds, at most " +
                                        format_significant(kBudgetMsRange.max, 1) + ", not " +
                                        format_shortest(ms));
      }
    };
    check(budget_ms->first, "the warm-up (its first value)");
    check(budget_ms->second, "the measurement (its second value)");
  }
  if (const RunTargetConflict conflict =
          run_target_conflict(budget_ms.has_value(), precision.has_value(), max_time_s.has_value(),
                              {"budget", "precision", "max_time_s"});
      !conflict.empty()) {
    throw ConfigError(conflict.option, conflict.problem);
  }
  // A number given to Python is held to the rule its option's text is read by, everywhere
  // (option_spec.hpp): precision=2 is refused as `--precision 2` is, the unit named.
  const auto check = [](const char* argument, std::optional<double> v, const NumberRule& rule) {
    if (!v) return;
    const NumberValue read = read_number(format_shortest(*v), rule);
    if (!read.ok()) {
      throw ConfigError(argument, "must be " + read.must + ", not " + format_shortest(*v));
    }
  };
  check("precision", precision, kPrecisionTargetRule);
  check("max_time_s", max_time_s, kPrecisionTimeRule);
  Options o;
  o.device = device;
  o.timing = std::move(timing);
  o.allow_events_fallback = allow_events_fallback;
  o.budget_ms = budget_ms;
  o.argv = std::move(argv);
  o.ceilings = ceilings;
  o.share_cupti = share_cupti;
  o.lock = lock;
  o.allow_contended = allow_contended;
  o.precision = precision;
  o.max_time_s = max_time_s;
  o.lock_held = lock_held;
  o.tolerated_device_processes = std::move(tolerated_device_processes);
  return o;
}

// What a call's options ask of its session. Everything a call measures under (the device lock,
// the backend, kept for the process, the ceilings, the deviations and fallbacks) is the
// Session's; this only says how Python spells the options its sentences name.
SessionOptions session_options(const Options& o) {
  SessionOptions s;
  s.device = o.device;
  s.timing = parse_timing(o.timing, "timing");
  s.allow_events_fallback = o.allow_events_fallback;
  s.share_cupti = o.share_cupti;
  // CUPTI is given back after every phase, so a profiler started between two calls (PyTorch's)
  // records the GPU without the user knowing of release_cupti (a graph measured across
  // releases kept every kernel on the H200: tests/gpu).
  s.release_cupti = true;
  s.keep_backend = true;
  s.ceilings = o.ceilings;
  s.lock = o.lock_held ? LockChoice::held_by_parent : o.lock ? LockChoice::take : LockChoice::skip;
  s.lock_options.allow_contended = o.allow_contended;
  s.tolerated_device_processes = o.tolerated_device_processes;
  // Waiting for the lock lets other Python threads run and answers Ctrl-C.
  s.lock_options.while_waiting = [] {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  };
  s.spelling.cupti = "timing='cupti'";
  s.spelling.events = "timing='events'";
  s.spelling.host = "timing='host'";
  s.spelling.no_lock = "lock=False";
  return s;
}

// A Python callable as a C++ call. The GIL is held by the caller (run() keeps it), so calling
// back into Python needs no acquire.
using Call0 = nb::typed<nb::callable, void()>;
using CallK = nb::typed<nb::callable, void(int)>;
using Fingerprint = nb::typed<nb::callable, int()>;
using CallSeed = nb::typed<nb::callable, void(int)>;

std::function<void()> as_call(const std::optional<Call0>& fn) {
  if (!fn) return {};
  nb::callable f = *fn;
  return [f] {
    try {
      f();
    } catch (const nb::python_error& e) {
      rethrow_in_core_terms(e);
    }
  };
}

// prepare(seed) and check(seed) (B11): the seed as a Python int.
std::function<void(std::uint64_t)> as_seeded(const std::optional<CallSeed>& fn) {
  if (!fn) return {};
  nb::callable f = *fn;
  return [f](std::uint64_t seed) {
    try {
      f(seed);
    } catch (const nb::python_error& e) {
      rethrow_in_core_terms(e);
    }
  };
}

// check(seed) (B11, issue 50): run inside the channel's check scope, the one time gpumeter's code
// can have the checker's tag for this implementation and seed.
std::function<void(std::uint64_t)> as_check(const std::string& name,
                                            const std::optional<CallSeed>& fn) {
  if (!fn) return {};
  nb::callable f = *fn;
  return [f, name](std::uint64_t seed) {
    try {
      const ChannelCheck scope(name, seed);
      f(seed);
    } catch (const nb::python_error& e) {
      rethrow_in_core_terms(e);
    }
  };
}

Implementation make_implementation(std::string name, Call0 run, std::optional<Call0> reset,
                                   std::optional<Call0> verify, std::optional<CallK> scaled,
                                   std::optional<CallSeed> prepare, std::optional<CallSeed> check) {
  Implementation i;
  i.name = std::move(name);
  i.call.run = as_call(run);
  i.call.reset = as_call(reset);
  i.call.prepare = as_seeded(prepare);
  i.call.check = as_check(i.name, check);
  i.verify = as_call(verify);
  if (scaled) {  // the null test's hook: scaled(k)
    nb::callable f = *scaled;
    i.scaled = [f](int k) {
      try {
        f(k);
      } catch (const nb::python_error& e) {
        rethrow_in_core_terms(e);
      }
    };
  }
  return i;
}

ConstantAnswer constant_answer_named(const std::string& which) {
  const std::optional<ConstantAnswer> c = parse_constant_answer(which);
  if (!c) throw ConfigError("which", "no constant answer is named '" + which + "'");
  return *c;
}

Case make_case(std::string name, std::vector<Implementation> implementations,
               std::optional<double> flops, std::optional<double> bytes, bool count_copies,
               std::optional<Fingerprint> inputs_fingerprint, Params params,
               std::optional<double> rtol, std::optional<double> atol,
               std::optional<std::pair<std::string, Call0>> yardstick) {
  const auto check = [](const std::optional<double>& v, const char* argument, const char* what) {
    if (v && !work_per_call_valid(*v)) {
      throw ConfigError(argument, std::string("must be a finite number >= 0 of ") + what +
                                      " per call, not " + format_shortest(*v));
    }
  };
  check(flops, "flops", "floating-point operations");
  check(bytes, "bytes", "bytes moved");
  if (implementations.empty()) throw ConfigError("implementations", "none given");
  if (rtol.has_value() != atol.has_value()) {
    throw ConfigError(rtol ? "atol" : "rtol", "give both tolerances of the check, or neither");
  }
  Case c;
  if (rtol) {
    if (const std::string problem = tolerance_problem(*rtol, *atol); !problem.empty()) {
      throw ConfigError(problem.rfind("rtol", 0) == 0 ? "rtol" : "atol", problem);
    }
    c.answer_check = AnswerCheck{*rtol, *atol};
  }
  c.name = std::move(name);
  c.params = std::move(params);
  c.implementations = std::move(implementations);
  c.workload.flops = flops;
  c.workload.bytes = bytes;
  c.count_copies = count_copies;
  if (yardstick) c.yardstick = YardstickWork{yardstick->first, Call(as_call(yardstick->second))};
  if (inputs_fingerprint) {
    nb::callable f = *inputs_fingerprint;
    c.inputs_fingerprint = [f] {
      try {
        return nb::cast<std::size_t>(f());
      } catch (const nb::python_error& e) {
        rethrow_in_core_terms(e);
      }
    };
  }
  return c;
}

// Runs the cases (A B C C B A per case) into a record. The first case that failed is raised as
// the error that failed it; otherwise the record, and the fallbacks a warning should name.
std::pair<RecordRef, std::vector<std::string>> run(const std::vector<Case>& cases,
                                                   const Options& o) {
  // B11: in a candidate's process, a measurement is counted and its caller checked first.
  const ChannelMeasurement measurement;
  std::optional<Session> session;
  {
    nb::gil_scoped_release released;  // the lock may wait; the callables need no GIL yet
    session.emplace(session_options(o));
  }
  Backend& backend = session->backend();
  RunOptions run_options;
  run_options.argv = o.argv;
  if (o.budget_ms) {
    run_options.budget.warmup_ns = budget_ns_from_ms(o.budget_ms->first);
    run_options.budget.measure_ns = budget_ns_from_ms(o.budget_ms->second);
  }
  if (o.precision) {
    PrecisionTarget target;  // the core's cap unless one was given
    target.relative = *o.precision;
    if (o.max_time_s) target.max_time_ns = static_cast<Nanos>(*o.max_time_s * 1e9);
    run_options.precision = target;
  }
  run_options.ceilings = session->ceilings();
  run_options.deviations = session->deviations();
  // CUPTI is never left claimed after a call returns: the session gives it back when it ends,
  // also when the call fails before its first phase ends (a verification that throws).
  Record record = run_cases(backend, cases, run_options);
  if (!record.failures.empty()) raise_failure(record.failures.front());
  record.run_id = new_run_id();
  std::vector<std::string> fallbacks = session->fallbacks(record);
  return {RecordRef{std::make_shared<const Record>(std::move(record))}, std::move(fallbacks)};
}

// The warm calls of phases() (a public call, a refit, a replay: host work and its synchronize)
// timed by the core's driver on the host clock, as timing='host' times a measured call:
// calibrated (3 calls), warmed up and counted by the core's budget, of one comparison pass when
// the calls are taken in two passes. `estimate_ns`: the first pass's estimate, so a later pass
// runs no calibration of its own (as the core's later passes). Returns each measured call's
// time and the estimate of one call.
std::pair<std::vector<Nanos>, Nanos> host_clock_samples(const Call0& call, bool comparison_pass,
                                                        std::optional<Nanos> estimate_ns) {
  const ChannelMeasurement measurement;  // B11: a measurement, counted as any
  // The host's steady clock, no device opened; phases() holds the device's lock itself.
  SessionOptions host;
  host.timing = Timing::host_only;
  host.lock = LockChoice::skip;
  host.ceilings = false;
  Session session(host);
  MeasureOptions options;
  if (comparison_pass) options.budget = comparison_pass_budget(kMeasureBudget);
  options.read_clocks = false;  // the host has no device clock
  options.estimate_ns = estimate_ns;
  const Measurement m = measure(session.backend(), Call(as_call(call)), options);
  std::vector<Nanos> samples;
  samples.reserve(m.samples.size());
  for (const Sample& s : m.samples) samples.push_back(s.latency_ns);
  return {std::move(samples), m.estimate_ns};
}

struct HeldLock {
  std::unique_ptr<DeviceLock> lock;
};

}  // namespace
}  // namespace gpumeter::python

NB_MODULE(_gpumeter, m) {
  using namespace gpumeter;
  using namespace gpumeter::python;
  m.doc() = "gpumeter's C++ core. Use the gpumeter package, which documents and checks the API.";

  register_error_translator();
  register_error_catalogue(m);
  bind_record(m);
  bind_evaluation_channel(m);
  bind_watch(m);

  nb::class_<python::Options>(m, "Options", "A call's options, checked when made.")
      .def(nb::new_(&make_options), nb::kw_only(), nb::arg("device") = 0,
           nb::arg("timing") = "auto", nb::arg("allow_events_fallback") = false,
           nb::arg("budget_ms") = nb::none(), nb::arg("argv") = std::vector<std::string>{},
           nb::arg("ceilings") = false, nb::arg("share_cupti") = false, nb::arg("lock") = true,
           nb::arg("allow_contended") = false, nb::arg("precision") = nb::none(),
           nb::arg("max_time_s") = nb::none(), nb::arg("lock_held") = false,
           nb::arg("tolerated_device_processes") = nb::none(),
           "Raises:\n    ConfigError: a timing, device or budget that cannot be used, naming it.")
      .def_ro("device", &python::Options::device)
      .def_ro("timing", &python::Options::timing)
      .def_ro("budget_ms", &python::Options::budget_ms)
      .def_ro("precision", &python::Options::precision)
      .def_ro("max_time_s", &python::Options::max_time_s);

  nb::class_<Implementation>(m, "Implementation", "One implementation of a case: Python callables.")
      .def(nb::new_(&make_implementation), nb::arg("name"), nb::arg("run"),
           nb::arg("reset") = nb::none(), nb::arg("verify") = nb::none(),
           nb::arg("scaled") = nb::none(), nb::arg("prepare") = nb::none(),
           nb::arg("check") = nb::none())
      .def_ro("name", &Implementation::name);

  nb::class_<Case>(m, "Case", "Implementations of one operation, compared A B C C B A.")
      .def(nb::new_(&make_case), nb::arg("name"), nb::arg("implementations"), nb::kw_only(),
           nb::arg("flops") = nb::none(), nb::arg("bytes") = nb::none(),
           nb::arg("count_copies") = false, nb::arg("inputs_fingerprint") = nb::none(),
           nb::arg("params") = Params{}, nb::arg("rtol") = nb::none(), nb::arg("atol") = nb::none(),
           nb::arg("yardstick") = nb::none(),
           "rtol and atol: the tolerances the implementations' checks hold answers to, stated in "
           "the record (Result.answer_check); None when the checks are not the default one.\n\n"
           "yardstick: (work's name, call): fixed work timed in passes interleaved with the "
           "implementations' on the host clock, its level per pass kept with each row, which "
           "comparisons across runs read the rows against.\n\n"
           "Raises:\n    ConfigError: flops or bytes not a finite number >= 0, no "
           "implementations, one tolerance without the other, or tolerances that cannot make "
           "a verdict.")
      .def_ro("name", &Case::name);

  m.def("raise_example_error", &raise_example_error, nb::arg("name"),
        "For tests: raises the C++ error `name` with example fields, translated as the core's "
        "errors are.");
  // The device lock held across several measurements and the fresh processes between them
  // (gpumeter.phases, gpumeter.sweep): taken by the one lock taker, with its idle check.
  nb::class_<HeldLock>(m, "DeviceLock", "The device's exclusive lock, held until released.")
      .def_prop_ro(
          "deviations",
          [](const HeldLock& h) {
            return h.lock ? h.lock->deviations() : std::vector<std::string>{};
          },
          "What the idle check found that a record must say.")
      .def_prop_ro("path",
                   [](const HeldLock& h) { return h.lock ? h.lock->path() : std::string(); })
      .def(
          "release", [](HeldLock& h) { h.lock.reset(); }, "Gives the lock back.");
  m.def(
      "cuda_settings",
      [](int device) {
#ifdef GPUMETER_HAVE_CUDA
        return read_cuda_settings(device);
#else
        (void)device;
        return std::vector<std::pair<std::string, long long>>{};
#endif
      },
      nb::arg("device"),
      "The CUDA settings of this process on `device` that code can change and that change how "
      "other work runs there (flags, limits, cache preference), by name; [] when unreadable.");
  m.def(
      "device_processes",
      [](int device) -> std::optional<std::vector<long>> {
        // Through the driver and NVML only: no CUDA context is made (a parent stays off the
        // device), so the list is of processes other than this one.
        const std::string uuid = cuda_device_uuid(device);
        if (uuid.empty()) return std::nullopt;
        const DeviceOccupancy occupancy = read_device_occupancy(uuid, device);
        if (!occupancy.processes) return std::nullopt;
        std::vector<long> pids;
        for (const ComputeProcess& p : *occupancy.processes) pids.push_back(p.pid);
        return pids;
      },
      nb::arg("device"),
      "The pids of the processes with a compute context on CUDA device `device` (NVML), or None "
      "when they cannot be listed.");
  m.def(
      "hold_device_lock",
      [](int device, bool allow_contended) {
        DeviceLockOptions options;
        options.allow_contended = allow_contended;
        options.while_waiting = [] {
          nb::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw nb::python_error();
        };
        nb::gil_scoped_release released;
        return HeldLock{take_device_lock(device, options)};
      },
      nb::arg("device"), nb::arg("allow_contended"),
      "Takes the device's lock after the idle check (DeviceBusy when another process uses the "
      "device or holds the lock).");
  m.def(
      "merge_records",
      [](const std::vector<RecordRef>& records, std::vector<std::string> argv) {
        std::vector<Record> in;
        for (const RecordRef& r : records) in.push_back(*r.record);
        MergeOptions options;
        options.run_id = new_run_id();
        options.created_utc = utc_now_iso();
        options.gpumeter_version = std::string(version());
        options.argv = std::move(argv);
        return RecordRef{std::make_shared<const Record>(merge_records(in, options))};
      },
      nb::arg("records"), nb::arg("argv"),
      "The records of one run's parts as one record (`gpumeter merge`): rows, phases and "
      "totals each once.");
  m.def(
      "sweep_shard",
      [](std::optional<std::string> option,
         const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& cases)
          -> std::optional<ShardPlan> {
        std::optional<std::string_view> given;
        if (option) given = *option;
        const std::optional<Shard> shard = resolve_shard(given, process_environment());
        if (!shard) return std::nullopt;
        std::vector<RowKey> keys;
        for (const auto& [name, params] : cases) keys.push_back(RowKey{name, params, ""});
        return plan_shard(*shard, keys);
      },
      nb::arg("option").none(), nb::arg("cases"),
      "The shard this process measures of a sweep's cases (name, params), dealt as a benchmark "
      "program's --shard deals them: `option` (\"K/N\" or \"all\"), else a Slurm array task's "
      "or a Kubernetes indexed Job's index; None for every case.\n\nRaises:\n    ConfigError: "
      "a value that is not a shard, or the option and the scheduler disagreeing.");
  m.def(
      "with_shard",
      [](const RecordRef& record, const ShardPlan& plan) {
        Record r = *record.record;
        r.shard = plan;
        // Read back as strictly as a file: its rows are the shard's own cases.
        return RecordRef{std::make_shared<const Record>(parse_record(serialize(r), "(sweep)"))};
      },
      nb::arg("record"), nb::arg("plan"),
      "The record as one shard's of a sweep (its shard section), read back strictly.");
  m.def(
      "with_runtimes",
      [](const RecordRef& record, std::vector<CandidateRuntime> runtimes) {
        Record r = *record.record;
        r.runtimes = std::move(runtimes);
        // Read back as strictly as a file: each runtime names a row of the record.
        return RecordRef{std::make_shared<const Record>(parse_record(serialize(r), "(record)"))};
      },
      nb::arg("record"), nb::arg("runtimes"),
      "The record with each candidate's runtime (resolved before timing), read back strictly.");
  m.def(
      "timing_names",
      [] {
        std::vector<std::string> names;
        for (const TimingName& t : kTimingNames) names.emplace_back(t.name);
        return names;
      },
      "The names timing= takes, the session's list (what each means: measure's docstring).");
  m.def(
      "timing_is_host",
      [](const std::string& timing) { return parse_timing(timing, "timing") == Timing::host; },
      nb::arg("timing"),
      "Whether timing= names the host clock (\"host\" or \"host-clock\"): host work, no GPU.");
  m.def(
      "with_phases",
      [](const RecordRef& record, std::vector<PhaseReading> phases,
         std::vector<MeasuredTotal> totals, std::vector<CandidateRuntime> runtimes,
         const std::vector<std::string>& deviations) {
        Record r = *record.record;
        r.phases = std::move(phases);
        r.totals = std::move(totals);
        if (!runtimes.empty()) r.runtimes = std::move(runtimes);
        Record more;
        more.deviations = deviations;
        add_deviations_once(more, r);
        // Read back as strictly as a file, once for all of it (with_runtimes and with_deviations
        // in turn would each read it again): each phase in a setting and statistic it allows,
        // each sample a duration, each row and runtime one of the record's cases.
        return RecordRef{std::make_shared<const Record>(parse_record(serialize(r), "(phases)"))};
      },
      nb::arg("record"), nb::arg("phases"), nb::arg("totals"),
      nb::arg("runtimes") = std::vector<CandidateRuntime>{},
      nb::arg("deviations") = std::vector<std::string>{},
      "The record with phases() readings and measured totals, each candidate's runtime (none: "
      "the record's own) and each of `deviations` it does not say yet, read back strictly, "
      "once.");
  m.def(
      "with_deviations",
      [](const RecordRef& record, const std::vector<std::string>& deviations) {
        Record more;
        more.deviations = deviations;
        Record r = *record.record;
        add_deviations_once(more, r);
        if (r.deviations.size() == record.record->deviations.size()) return record;
        // Read back as strictly as a file: a deviation is text the reader bounds.
        return RecordRef{std::make_shared<const Record>(parse_record(serialize(r), "(record)"))};
      },
      nb::arg("record"), nb::arg("deviations"),
      "The record with each of `deviations` it does not say yet added, in order, read back "
      "strictly (the record itself when it says them all).");
  m.def(
      "timing_plan",
      [](const std::string& timing, int device) {
        // A command's options (`gpumeter evaluate --timing ...`): spelled as on its command line.
        SessionOptions s;
        s.device = device;
        s.timing = parse_timing(timing, "--timing");
        Session::check_timing_is_built(s);
        const std::string why = Session::unusable_device(s);
        return std::make_tuple(why.empty() ? std::string() : Session::no_usable_gpu(s, why),
                               Session::planned_fallbacks(s));
      },
      nb::arg("timing"), nb::arg("device"),
      "What a command asked for this timing on this device will meet, before it runs anything: "
      "(the session's one line for no usable GPU, or \"\"; the fallbacks it will take).");
  nb::class_<CandidateVerdict>(m, "CandidateVerdict",
                               "The verdict on a candidate against a reference, made from "
                               "records only (the core's judge_candidate).")
      .def_prop_ro(
          "verdict", [](const CandidateVerdict& v) { return std::string(to_string(v.verdict)); },
          "faster, slower, no difference, wrong, refused, crashed, timeout, tampered, not "
          "measured.")
      .def_ro("correct", &CandidateVerdict::correct)
      .def_ro("why", &CandidateVerdict::why)
      .def_ro("sentence", &CandidateVerdict::sentence)
      .def_ro("speedup", &CandidateVerdict::speedup)
      .def_ro("interval", &CandidateVerdict::interval)
      .def_ro("checked_iterations", &CandidateVerdict::checked_iterations)
      .def_ro("ledger", &CandidateVerdict::ledger)
      .def_ro("end_to_end_speedup", &CandidateVerdict::end_to_end_speedup)
      .def_ro("device_speedup", &CandidateVerdict::device_speedup)
      .def_ro("end_to_end_sentence", &CandidateVerdict::end_to_end_sentence)
      .def_ro("reference_alone_ns", &CandidateVerdict::reference_alone_ns)
      .def_ro("reference_beside_ns", &CandidateVerdict::reference_beside_ns);
  m.def(
      "judge_candidate",
      [](const RecordRef& record, const std::string& candidate, const std::string& reference,
         const std::optional<std::string>& case_name, bool require_checks,
         const std::optional<RecordRef>& alone, const std::optional<RecordRef>& end_to_end) {
        VerdictInputs in;
        in.record = record.record.get();
        in.candidate = candidate;
        in.reference = reference;
        in.case_name = case_name;
        in.require_checks = require_checks;
        if (alone) in.reference_alone = alone->record.get();
        if (end_to_end) in.end_to_end = end_to_end->record.get();
        return judge_candidate(in);
      },
      nb::arg("record"), nb::arg("candidate"), nb::arg("reference") = "reference",
      nb::arg("case_name") = nb::none(), nb::arg("require_checks") = true,
      nb::arg("reference_alone") = nb::none(), nb::arg("end_to_end") = nb::none(),
      "The verdict on `candidate` in `record` (read strictly), against the reference measured "
      "alone and the pair timed end to end where given.");
  m.def(
      "judge_checker_account",
      [](const std::vector<std::pair<std::string, std::size_t>>& timed_checks,
         const std::string& mismatch, const std::string& problem,
         const std::vector<RecordRef>& records) -> std::optional<CandidateVerdict> {
        CheckerAccount account{timed_checks, mismatch, problem};
        std::vector<const Record*> read;
        for (const RecordRef& r : records) read.push_back(r.record.get());
        return judge_checker_account(account, read);
      },
      nb::arg("timed_checks"), nb::arg("mismatch"), nb::arg("problem"), nb::arg("records"),
      "The verdict evaluate's checker's account of a run gives before its records are judged "
      "(tampered, wrong, refused), or None: the core's judge_checker_account.");
  {
    auto run_end = nb::enum_<RunEnd>(m, "RunEnd",
                                     "How a candidate's run under evaluate ended where no record "
                                     "of it can be judged (the core's RunEnd).");
    for (const RunEnd end : kRunEnds) {
      const std::string name(to_string(end));
      run_end.value(name.c_str(), end);
    }
  }
  nb::class_<EvaluatedVerdict>(m, "EvaluatedVerdict",
                               "A run's verdict under evaluate and what decided it (the core's "
                               "judge_evaluated_run).")
      .def_ro("verdict", &EvaluatedVerdict::verdict)
      .def_prop_ro("source",
                   [](const EvaluatedVerdict& v) { return std::string(to_string(v.source)); })
      .def_ro("changed", &EvaluatedVerdict::tampered)
      .def_ro("process_end", &EvaluatedVerdict::process_end)
      .def_ro("error", &EvaluatedVerdict::error);
  using Account =
      std::tuple<std::vector<std::pair<std::string, std::size_t>>, std::string, std::string>;
  m.def(
      "judge_evaluated_run",
      [](const std::vector<std::string>& channel_problems,
         const std::vector<std::string>& reported_tampered, const std::vector<std::string>& watched,
         const std::optional<Account>& checker, std::optional<RunEnd> end,
         const std::string& end_why, const std::optional<std::string>& error,
         const std::string& error_whose, const std::string& error_why,
         const std::string& record_trouble, const std::string& record_trouble_why,
         const std::string& record_unreadable, const std::optional<RecordRef>& record,
         const std::optional<RecordRef>& end_to_end, const std::string& candidate,
         const std::optional<RecordRef>& reference_alone) {
        EvaluatedRun run;
        run.channel_problems = channel_problems;
        run.reported_tampered = reported_tampered;
        run.watched = watched;
        if (checker) {
          run.checker =
              CheckerAccount{std::get<0>(*checker), std::get<1>(*checker), std::get<2>(*checker)};
        }
        run.end = end;
        run.end_why = end_why;
        run.error = error;
        run.error_whose = error_whose == "candidate"   ? Whose::candidate
                          : error_whose == "evaluator" ? Whose::evaluator
                                                       : Whose::gpumeter;
        run.error_why = error_why;
        static const std::map<std::string, RecordTrouble> kTroubles = {
            {"", RecordTrouble::none},
            {"elsewhere", RecordTrouble::elsewhere},
            {"unreadable", RecordTrouble::unreadable},
            {"changed", RecordTrouble::changed},
            {"miscounted", RecordTrouble::miscounted}};
        const auto trouble = kTroubles.find(record_trouble);
        if (trouble == kTroubles.end()) {
          throw ConfigError("record_trouble",
                            "no record trouble is named '" + record_trouble + "'");
        }
        run.record_trouble = trouble->second;
        run.record_trouble_why = record_trouble_why;
        run.record_unreadable = record_unreadable;
        if (record) run.judge.record = record->record.get();
        if (end_to_end) run.judge.end_to_end = end_to_end->record.get();
        if (reference_alone) run.judge.reference_alone = reference_alone->record.get();
        run.judge.candidate = candidate;
        return judge_evaluated_run(run);
      },
      nb::arg("channel_problems") = std::vector<std::string>{},
      nb::arg("reported_tampered") = std::vector<std::string>{},
      nb::arg("watched") = std::vector<std::string>{}, nb::arg("checker") = nb::none(),
      nb::arg("end") = nb::none(), nb::arg("end_why") = "", nb::arg("error") = nb::none(),
      nb::arg("error_whose") = "candidate", nb::arg("error_why") = "",
      nb::arg("record_trouble") = "", nb::arg("record_trouble_why") = "",
      nb::arg("record_unreadable") = "", nb::arg("record") = nb::none(),
      nb::arg("end_to_end") = nb::none(), nb::arg("candidate") = "",
      nb::arg("reference_alone") = nb::none(),
      "The verdict of a candidate's run under evaluate from everything it left (the report "
      "channel's problems, the process's end, its tamper check, the checker's account, its "
      "error, its records), in the core's one order: judge_evaluated_run.");
  m.def("verdict_of_run_end", &verdict_of_run_end, nb::arg("end"), nb::arg("why"),
        "The verdict of a run that ended so (never correct), with `why` as its account: the "
        "core's one table of ends and verdicts.");
  m.def(
      "verdicts",
      [] {
        std::vector<std::string> names;
        for (const Verdict v : kVerdicts) names.emplace_back(to_string(v));
        return names;
      },
      "Every verdict's name, in the core's order.");
  m.def(
      "verdict_compares",
      [](const std::string& name) {
        const std::optional<Verdict> v = parse_verdict(name);
        if (!v) throw ConfigError("verdict", "no verdict is named '" + name + "'");
        return verdict_compares(*v);
      },
      nb::arg("verdict"),
      "Whether the verdict is a comparison's answer (faster, slower, no difference), which "
      "carries a speed-up; every other verdict says why there is none.");
  m.def(
      "evaluation_exit_code",
      [](const std::vector<std::string>& names) {
        std::vector<Verdict> verdicts;
        for (const std::string& name : names) {
          const std::optional<Verdict> v = parse_verdict(name);
          if (!v) throw ConfigError("verdicts", "no verdict is named '" + name + "'");
          verdicts.push_back(*v);
        }
        return evaluation_exit_code(verdicts);
      },
      nb::arg("verdicts"), "The exit code of an evaluation whose candidates got these verdicts.");
  // The command line's exit codes (exit_codes.hpp): one table for the C++ command and Python's.
  m.attr("EXIT_OK") = kExitOk;
  m.attr("EXIT_FAILED") = kExitFailed;
  m.attr("EXIT_USAGE") = kExitUsage;
  m.attr("EXIT_INTERNAL") = kExitInternal;
  m.attr("EXIT_BUSY") = kExitBusy;
  m.attr("EXIT_NO_DEVICE") = kExitNoDevice;
  // The exit codes `gpumeter evaluate` and `gpumeter plot` list in their help: the same text as
  // the C++ command's, made from the one table (exit_help.hpp).
  m.def(
      "exit_codes_help",
      [](const std::string& command) {
        if (command == "evaluate") return evaluate_exit_codes_help();
        if (command == "plot") return plot_exit_codes_help();
        throw std::invalid_argument("no exit codes of the command '" + command + "'");
      },
      nb::arg("command"), "The 'Exit codes: ...' sentence of evaluate's or plot's help.");
  m.def(
      "verdict_of_error",
      [](const std::string& name, const std::string& whose) {
        const Whose w = whose == "candidate"   ? Whose::candidate
                        : whose == "evaluator" ? Whose::evaluator
                                               : Whose::gpumeter;
        return std::string(to_string(verdict_of_error(name, w)));
      },
      nb::arg("name"), nb::arg("whose"),
      "The verdict an error gives, by whose code raised it (candidate, evaluator, gpumeter).");
  m.def(
      "error_class",
      [](const std::string& name) { return std::string(to_string(error_class_of(name))); },
      nb::arg("name"),
      "The class of an error by its name: wrong, refused, not measured or failed.");
  m.def(
      "inert_text", [](const std::string& text) { return inert_text(text); }, nb::arg("text"),
      "Text made inert for a terminal or a log: controls and bidirectional marks shown as "
      "escapes (the core's one rule).");
  m.def(
      "run_target_problem",
      [](bool budget, bool precision, bool max_time, const std::string& budget_name,
         const std::string& precision_name, const std::string& max_time_name) {
        return run_target_conflict(budget, precision, max_time,
                                   {budget_name, precision_name, max_time_name})
            .problem;
      },
      nb::arg("budget"), nb::arg("precision"), nb::arg("max_time"), nb::arg("budget_name"),
      nb::arg("precision_name"), nb::arg("max_time_name"),
      "Why a budget, a precision and a time cap given (each flag: whether the user gave it) "
      "cannot go together, in the front end's names of them, or '' when they can.");
  // The rules (number_rule.hpp) a Python front end's numeric options are held to, by the reader
  // and in the words of every program's numeric options.
  static const std::map<std::string, NumberRule> kRules{
      {"process_limit_seconds", kProcessLimitSeconds},
      {"limit_seconds", kLimitSeconds},
      {"wait_seconds", kWaitSeconds},
      {"device_index", kDeviceIndex},
      {"precision", kPrecisionTargetRule},
      {"max_time", kPrecisionTimeRule},
      {"gate_threshold", kGateThresholdRule},
      {"work_per_call", kWorkPerCall},
      {"memory_limit", kMemoryLimitBytes}};
  const auto rule_named = [](const std::string& rule) -> const NumberRule& {
    const auto found = kRules.find(rule);
    if (found == kRules.end()) throw std::invalid_argument("no number rule '" + rule + "'");
    return found->second;
  };
  m.def(
      "number_option_problem",
      [rule_named](const std::string& name, const std::string& text, const std::string& rule) {
        return number_problem(name, text, rule_named(rule));
      },
      nb::arg("name"), nb::arg("text"), nb::arg("rule"),
      "Why the text of the numeric option `name` breaks the rule of that name "
      "(process_limit_seconds, limit_seconds, wait_seconds, device_index, precision, max_time, "
      "gate_threshold, work_per_call, memory_limit), "
      "one line naming the option, or '' when it does not.");
  m.def(
      "read_number",
      [rule_named](const std::string& text, const std::string& rule) {
        const NumberValue read = read_number(text, rule_named(rule));
        return std::make_pair(read.ok() ? std::optional<double>(read.value) : std::nullopt,
                              read.must);
      },
      nb::arg("text"), nb::arg("rule"),
      "The value of a numeric option's text under the rule of that name, in its unit (seconds, a "
      "fraction of 1, bytes), and ''; or None and what the value must be ('a fraction, written "
      "2% or 0.02').");
  m.def(
      "value_problem",
      [rule_named](const std::string& name, double value, const std::string& rule) {
        return value_problem(name, value, rule_named(rule));
      },
      nb::arg("name"), nb::arg("value"), nb::arg("rule"),
      "Why `value`, a number already in the unit of the rule of that name (a keyword's value, "
      "not an option's text), breaks that rule, one line naming `name`, or '' when it does "
      "not.");
  m.attr("PROCESS_LIMIT_DEFAULT_SECONDS") = kProcessLimitDefaultSeconds;
  // How the core says a difference's amount (wording.hpp), for the plots' labels and axes.
  m.def("as_factor", &as_factor, nb::arg("estimate"),
        "Whether a relative difference is said as a factor ('2.1x', from the resolution ratio on) "
        "or as a percent ('2.8%').");
  m.def(
      "difference_amounts",
      [](double estimate, double low, double high) {
        RelativeDifference d;
        d.estimate = estimate;
        d.low = low;
        d.high = high;
        const DifferenceAmounts a = difference_amounts(d);
        return std::make_tuple(a.estimate, a.near, a.far);
      },
      nb::arg("estimate"), nb::arg("low"), nb::arg("high"),
      "A found difference's estimate, the end of its interval nearer no difference and the "
      "farther one (the interval from low to high), as every report says them: ('2.8%', '2.6%', "
      "'3.0%') or ('2.1x', '1.9x', '2.3x').");
  m.def(
      "statistic_title",
      [](const std::string& statistic) {
        // A statistic no record of this version writes is shown as it is written.
        const std::optional<Statistic> known = parse_statistic(statistic);
        return known ? statistic_title(*known) : statistic;
      },
      nb::arg("statistic"),
      "A statistic (its record word: 'synchronized_wall_clock', 'device_busy', ...) as every "
      "report and table titles it: 'wall clock', 'device_busy', ....");
  m.def(
      "option_specs",
      [] {
        // The options every front end offers by one meaning (option_spec.hpp), for the parsers
        // built from them (gpumeter evaluate's).
        std::vector<std::map<std::string, std::string>> out;
        for (const OptionSpec& spec : option_specs()) {
          const NumberRule* rule = spec.meaning.rule;
          out.push_back({{"name", std::string(spec.name)},
                         {"python_name", std::string(spec.python_name)},
                         {"metavar", std::string(spec.metavar)},
                         {"help", std::string(spec.meaning.help)},
                         {"default", spec.default_text},
                         {"kind", rule == nullptr                      ? "text"
                                  : rule->kind == NumberKind::fraction ? "fraction"
                                  : rule->kind == NumberKind::duration ? "duration"
                                                                       : "number"}});
        }
        return out;
      },
      "The options every front end offers by one meaning: name, python_name, metavar, help, "
      "default (text, '' for none) and kind (text, number, fraction, duration).");
  m.def(
      "option_meanings",
      [] {
        // The options several front ends offer by one meaning (option_meaning.hpp, the gate's in
        // record_comparison.hpp), by their command-line name: the helps of evaluate's, the main
        // job's, the programs' and the pytest plugin's (through gpumeter_pytest/_option_help.py,
        // written from this when the package is built).
        std::map<std::string, std::string> out;
        for (const auto& [name, meaning] : {
                 std::pair{"--allow-events-fallback", kAllowEventsFallbackOption},
                 std::pair{"--shard", kShardOption},
                 std::pair{"--fail-on-regression", kGateThresholdOption},
                 std::pair{"--allow-missing", kAllowMissingOption},
                 std::pair{"--allow-contended", kAllowContendedOption},
                 std::pair{"--count-copies", kCountCopiesOption},
                 std::pair{"--wide", kWideOption},
             }) {
          out.emplace(name, std::string(meaning.help));
        }
        return out;
      },
      "The helps of the options several front ends offer by one meaning, by their command-line "
      "name (--shard, --fail-on-regression, --allow-missing, --allow-contended, ...).");
  m.def(
      "command_options",
      [](const std::string& command) {
        // The gpumeter command's option table (command_options.cpp), for the parsers of the
        // subcommands the Python module runs itself (plot): one table for both.
        for (const cli::CommandOptions& c : cli::command_options()) {
          if (c.command != command) continue;
          std::vector<std::tuple<std::string, bool, std::string>> out;
          for (const cli::CommandOption& o : c.options) {
            out.emplace_back(std::string(o.names), o.meaning.takes_value,
                             std::string(o.meaning.help));
          }
          return out;
        }
        throw std::invalid_argument("the gpumeter command has no subcommand '" + command + "'");
      },
      nb::arg("command"),
      "The options of a gpumeter subcommand, from the command's one table: (names, takes a value, "
      "help) each, in --help's order.");
  m.def(
      "budget_problem",
      [](const std::string& name, const std::string& text) {
        const BudgetValue b = read_budget(name, text);
        return std::make_tuple(b.warmup_ms, b.measure_ms, b.problem);
      },
      nb::arg("name"), nb::arg("text"),
      "A budget's text, WARMUP_MS,MEASURE_MS, read by the core's rule: (warm-up ms, measure ms, "
      "'') or, when it breaks the rule, one line naming `name` as the third item.");
  m.def("tolerance_problem", &tolerance_problem, nb::arg("rtol"), nb::arg("atol"),
        "Why rtol and atol cannot make a verdict (not finite, negative, rtol of 1 or more), or "
        "'' when they can.");
  m.def("absolute_tolerance_problem", &absolute_tolerance_problem, nb::arg("rtol"), nb::arg("atol"),
        nb::arg("reference_largest"),
        "Why atol cannot make a verdict on answers whose largest magnitude is "
        "reference_largest (an all-zero answer would pass), or '' when it can.");
  m.def(
      "constant_answers",
      [] {
        std::vector<std::string> names;
        for (const ConstantAnswer c : kConstantAnswers) names.emplace_back(to_string(c));
        return names;
      },
      "The constant answers a tolerance must not pass (the core's list): 'zeros', 'mean', "
      "'midpoint'.");
  m.def(
      "constant_answer_value",
      [](const std::string& which, double mean, double least, double largest) {
        return constant_answer_value(constant_answer_named(which), {mean, least, largest});
      },
      nb::arg("which"), nb::arg("mean"), nb::arg("least"), nb::arg("largest"),
      "The constant `which` (constant_answers()) of a reference answer with this mean, least and "
      "largest element.");
  m.def(
      "constant_answer_problem",
      [](double rtol, double atol, const std::string& which, double mean, double least,
         double largest, double worst_excess) {
        return constant_answer_problem(rtol, atol, constant_answer_named(which),
                                       {mean, least, largest}, worst_excess);
      },
      nb::arg("rtol"), nb::arg("atol"), nb::arg("which"), nb::arg("mean"), nb::arg("least"),
      nb::arg("largest"), nb::arg("worst_excess"),
      "Why rtol and atol pass the constant answer `which` in every element of the reference's "
      "answer (worst_excess: max over its elements of |c - ref| - rtol * |ref|, c its "
      "constant_answer_value), or '' when they do not.");
  m.def("version", [] { return std::string(version()); });
  m.def("has_cuda", [] {
#ifdef GPUMETER_HAVE_CUDA
    return true;
#else
    return false;
#endif
  });
  m.def("run", &python::run, nb::arg("cases"), nb::arg("options"),
        "Runs the cases (A B C C B A each) and returns the record and the fallbacks taken.\n\n"
        "Raises:\n    Error: the first failed case's error, with its fields.");
  // The wall clock's resolution (verdict.hpp), for what draws it: plot's shaded band.
  m.attr("RESOLUTION_RATIO") = kResolutionRatio;
  // The tolerances a check uses when the user names none (default_tolerance.hpp): every Python
  // signature and evaluate's --rtol/--atol default to these.
  m.attr("DEFAULT_RTOL") = kDefaultRelativeTolerance;
  m.attr("DEFAULT_ATOL") = kDefaultAbsoluteTolerance;
  // The longest name a record holds, in UTF-8 bytes (record.hpp): Python's argument checks refuse
  // a longer one before the core would.
  m.attr("MAX_NAME_BYTES") = kMaxNameBytes;
  m.def("host_clock_samples", &python::host_clock_samples, nb::arg("call"),
        nb::arg("comparison_pass"), nb::arg("estimate_ns") = nb::none(),
        "The synchronized wall clock of call() by the core's driver on the host clock: "
        "calibrated, warmed up and counted by the core's budget (halved for one pass of two), "
        "or counted from estimate_ns (the first pass's). Returns (samples_ns, estimate_ns).\n\n"
        "Raises:\n    UserCodeError: the call raised (its exception the cause).");
  m.def(
      "read_record",
      [](const std::string& path) {
        return RecordRef{std::make_shared<const Record>(read_record(path))};
      },
      nb::arg("path"),
      "Reads a record file strictly.\n\nRaises:\n    InvalidRecord: naming the file and the "
      "problem.");
  m.def(
      "write_record",
      [](const RecordRef& record, const std::string& directory) {
        std::string text;
        const std::string path = write_record(*record.record, directory, &text).string();
        // B11: the report carries the digest of the very bytes written.
        channel_record_written(path, text);
        return path;
      },
      nb::arg("record"), nb::arg("directory"),
      "Writes a record under its run-unique name, never overwriting; returns the path.");
  m.def(
      "release_cupti",
      [] {
#ifdef GPUMETER_HAVE_CUDA
        release_cupti_subscription();
#endif
      },
      "Gives CUPTI's subscription back until the next measurement claims it again.");
  nb::class_<CompareConclusion>(m, "CompareConclusion",
                                "What two records compared conclude, the gate included (the "
                                "core's conclusion, the same `gpumeter compare` reaches).")
      .def_ro("exit_code", &CompareConclusion::exit_code,
              "0; 1 the gate failed; 2 a row could not be compared.")
      .def_ro("why", &CompareConclusion::why, "One line when exit_code is not 0.")
      .def_ro("regressions", &CompareConclusion::regressions,
              "Each row slower beyond the gate, with its words.")
      .def_ro("notes", &CompareConclusion::notes, "What the gate sees less finely.")
      .def_prop_ro("gate_fails", &CompareConclusion::gate_fails,
                   "Whether a gate was asked and the records did not pass it (a regression, "
                   "what it could not see, or a row that could not be compared).");
  // The gate as `--fail-on-regression FRACTION [--allow-missing]` asks it, by the core's rule:
  // none without a threshold (a fraction, read from its text by the rule "gate_threshold"),
  // ConfigError for one the gate cannot judge by.
  const auto gate_of = [](std::optional<double> threshold, bool allow_missing) {
    return gate_options(threshold, allow_missing, "fail_on_regression", "allow_missing");
  };
  m.def(
      "gate_problem",
      [](std::optional<double> threshold, bool allow_missing, const std::string& threshold_name,
         const std::string& allow_missing_name) {
        try {
          (void)gate_options(threshold, allow_missing, threshold_name, allow_missing_name);
        } catch (const ConfigError& e) {
          return std::string(e.what());
        }
        return std::string();
      },
      nb::arg("threshold"), nb::arg("allow_missing"), nb::arg("threshold_name"),
      nb::arg("allow_missing_name"),
      "Why the gate's options (a threshold, a fraction or None; allow_missing) cannot be asked, "
      "in the front end's names of them, by the core's rule (gate_options), or '' when they "
      "can.");
  m.def("gate_threshold_text", &gate_threshold_text, nb::arg("threshold"),
        "The gate's threshold (a fraction) as the reports show it: '5%'.");
  m.def(
      "compare_record_files",
      [gate_of](const std::string& base, const std::string& next, std::optional<double> threshold,
                bool allow_missing) {
        // The gate's options before any file, as `gpumeter compare` checks them.
        const std::optional<GateOptions> gate = gate_of(threshold, allow_missing);
        const std::vector<Record> records = read_records({base, next});
        ComparedRecords compared = compare_and_report(records[0], records[1], gate);
        return std::make_tuple(std::move(compared.report), std::move(compared.conclusion));
      },
      nb::arg("base"), nb::arg("new"), nb::arg("fail_on_regression") = nb::none(),
      nb::arg("allow_missing") = false,
      "Every row of the record at `new` against the same row of the one at `base`, as `gpumeter "
      "compare` does: (its report, the conclusion). Raises InvalidRecord for a record that "
      "cannot be read.");
  m.def(
      "conclude_missing",
      [gate_of](const std::string& what, std::optional<double> threshold, bool allow_missing) {
        return conclude_missing(gate_of(threshold, allow_missing), what);
      },
      nb::arg("what"), nb::arg("fail_on_regression") = nb::none(), nb::arg("allow_missing") = false,
      "The conclusion where the baseline holds no record of a row (`what` says so): the gate "
      "cannot see it, so it fails unless allow_missing.");
  m.def(
      "conclude_unreadable",
      [gate_of](const std::string& why, std::optional<double> threshold, bool allow_missing) {
        return conclude_unreadable(gate_of(threshold, allow_missing), why);
      },
      nb::arg("why"), nb::arg("fail_on_regression") = nb::none(), nb::arg("allow_missing") = false,
      "The conclusion where a record cannot be read (`why`): no pass, with a gate or without.");
  m.def(
      "cli",
      [](const std::vector<std::string>& args) {
        std::vector<const char*> argv{"gpumeter"};
        for (const std::string& a : args) argv.push_back(a.c_str());
        std::ostringstream out;
        std::ostringstream err;
        const int rc = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
        return std::make_tuple(rc, out.str(), err.str());
      },
      nb::arg("args"), "Runs the gpumeter command; returns (exit code, stdout, stderr).");
}
