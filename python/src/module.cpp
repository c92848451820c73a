// gpumeter's Python extension (B3): the same C++ core, driven from Python. It exposes one
// operation, run(cases, options) -> record JSON, plus the record I/O, the environment and the
// gpumeter command; the typed Python API (python/gpumeter/) is built on it. No rule is
// implemented twice: summaries, comparisons and records come from the C++ core.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/device_lock.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/version.hpp"
#ifdef GPUMETER_HAVE_CUDA
#include "gpumeter/cuda_backend.hpp"
#endif

namespace nb = nanobind;

namespace gpumeter::python {
namespace {

// gpumeter.Error, the Python class of the core's errors (set when the module is made).
nb::handle error_class;

// gpumeter's errors whose Python classes a callable may raise with a message alone (the default
// check raises VerificationFailed), by class name.
template <class E>
[[noreturn]] void throw_as(const std::string& message) {
  throw E(message);
}
const std::map<std::string, void (*)(const std::string&)>& raisable_errors() {
  static const std::map<std::string, void (*)(const std::string&)> by_name{
      {"CuptiUnavailable", &throw_as<CuptiUnavailable>},
      {"InputsModified", &throw_as<InputsModified>},
      {"VerificationFailed", &throw_as<VerificationFailed>},
      {"MixedTimingMethods", &throw_as<MixedTimingMethods>},
      {"IncomparableStatistics", &throw_as<IncomparableStatistics>},
      {"DeviceError", &throw_as<DeviceError>},
      {"DeviceBusy", &throw_as<DeviceBusy>},
      {"ConfigError", &throw_as<ConfigError>}};
  return by_name;
}

// A Python exception raised in a callable, in the core's terms (run_user_code's rule): one of
// gpumeter's errors keeps its cause; anything else is UserCodeError with the exception's type as
// Python names it and str() of it, the step named by the core. The Python side raises the
// original exception (as the cause of UserCodeError), which it keeps itself.
[[noreturn]] void rethrow_in_core_terms(const nb::python_error& e) {
  const nb::handle type = e.type();
  const std::string name = nb::cast<std::string>(nb::str(type.attr("__qualname__")));
  std::string message;
  try {
    message = nb::cast<std::string>(nb::str(e.value()));
  } catch (const nb::python_error&) {
    message = "(its str() raised)";
  }
  if (error_class.is_valid() && PyType_Check(type.ptr()) &&
      PyObject_IsSubclass(type.ptr(), error_class.ptr()) == 1) {
    // The nearest of gpumeter's classes: a user's subclass of VerificationFailed is one too.
    const auto& named = raisable_errors();
    for (nb::handle base : nb::borrow<nb::tuple>(type.attr("__mro__"))) {
      const auto it = named.find(nb::cast<std::string>(nb::str(base.attr("__name__"))));
      if (it != named.end()) it->second(message);
    }
    throw Error(name + ": " + message);
  }
  const std::string module = nb::cast<std::string>(nb::str(type.attr("__module__")));
  throw UserCodeError(module == "builtins" ? name : module + "." + name, message);
}

// A Python callable as a C++ call. The GIL is held by the caller (run() keeps it), so calling
// back into Python needs no acquire.
std::function<void()> as_call(nb::handle fn) {
  if (fn.is_none()) return {};
  nb::object f = nb::borrow(fn);
  return [f] {
    try {
      f();
    } catch (const nb::python_error& e) {
      rethrow_in_core_terms(e);
    }
  };
}

struct Options {
  int device = 0;
  std::string timing = "auto";  // auto, cupti, events, host
  bool allow_events_fallback = false;
  std::optional<double> warmup_ms;
  std::optional<double> measure_ms;
  std::vector<std::string> argv;
  bool ceilings = false;
  bool share_cupti = false;  // see CudaBackendOptions::share_cupti_with_idle_client
  bool lock = true;          // hold the device lock for the call (P1)
  bool allow_contended = false;
};

// The device lock for one call (P1), taken before the backend touches the device. Waiting
// (up to the lock's timeouts) lets other Python threads run and answers Ctrl-C.
std::unique_ptr<DeviceLock> take_lock(const Options& o) {
  DeviceLockOptions lo;
  lo.allow_contended = o.allow_contended;
  lo.while_waiting = [] {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  };
  nb::gil_scoped_release released;
  return std::make_unique<DeviceLock>(o.device, cuda_device_uuid(o.device), lo);
}

// One backend per (device, timing) for the life of the process: CUPTI allows one subscription
// per process, and creating it (loading CUPTI, proving the drop counter) costs ~150 ms.
struct Backends {
  std::mutex mutex;
  std::map<std::pair<int, std::string>, std::unique_ptr<Backend>> by_key;
};
Backends& backends() {
  static Backends* b = new Backends();  // never destroyed: CUDA tears itself down at exit
  return *b;
}

struct Chosen {
  Backend* backend = nullptr;
  std::vector<std::string> deviations;
};

Chosen choose(const Options& o) {
  Backends& all = backends();
  std::lock_guard<std::mutex> lock(all.mutex);
  Chosen c;
  std::string timing = o.timing;
#ifdef GPUMETER_HAVE_CUDA
  const CudaAvailability gpu = cuda_availability(o.device);
  if (timing == "auto") timing = gpu.usable ? "cupti" : "host";
  if (timing != "host" && !gpu.usable) throw DeviceError(gpu.reason);
  if (o.timing == "auto" && !gpu.usable) {
    c.deviations.push_back("host backend instead of a GPU: " + gpu.reason);
  }
#else
  if (timing == "auto") timing = "host";
  if (timing != "host") {
    throw ConfigError("timing '" + timing +
                      "' needs the CUDA backend, and this gpumeter was built without it");
  }
  if (o.timing == "auto") {
    c.deviations.push_back("host backend: this gpumeter was built without the CUDA backend");
  }
#endif
  const std::pair<int, std::string> key{o.device, timing + (o.allow_events_fallback ? "+fb" : "")};
  auto it = all.by_key.find(key);
  if (it == all.by_key.end()) {
    std::unique_ptr<Backend> made;
    if (timing == "host") {
#ifdef GPUMETER_HAVE_CUDA
      // A GPU present: the synchronized wall clock, so GPU work is inside the time.
      if (gpu.usable) {
        CudaBackendOptions options;
        options.device = o.device;
        made = make_cuda_wall_backend(options);
      }
#endif
      if (!made) made = make_host_backend();
    } else {
#ifdef GPUMETER_HAVE_CUDA
      CudaBackendOptions options;
      options.device = o.device;
      options.allow_events_fallback = o.allow_events_fallback;
      options.share_cupti_with_idle_client = o.share_cupti;
      // CUPTI is given back after every phase, so a profiler started between two calls (PyTorch's)
      // records the GPU without the user knowing of release_cupti (a graph measured across
      // releases kept every kernel on the H200: tests/gpu).
      options.release_cupti_after_each_phase = true;
      made = timing == "events"
                 ? make_cuda_events_backend(options, "CUDA events chosen with timing='events'")
                 : make_cuda_backend(options);
#endif
    }
    it = all.by_key.emplace(key, std::move(made)).first;
  }
  c.backend = it->second.get();
  return c;
}

std::optional<double> optional_double(const nb::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return nb::cast<double>(d[key]);
}

// cases: [{"name", "params", "count_copies", "flops", "bytes", "implementations":
// [(name, run, reset, verify[, scaled])], "inputs_fingerprint"}]
std::vector<Case> to_cases(const nb::list& cases) {
  std::vector<Case> out;
  for (nb::handle h : cases) {
    nb::dict d = nb::cast<nb::dict>(h);
    Case c;
    c.name = nb::cast<std::string>(d["name"]);
    if (d.contains("params")) c.params = nb::cast<std::map<std::string, std::string>>(d["params"]);
    if (d.contains("count_copies")) c.count_copies = nb::cast<bool>(d["count_copies"]);
    c.workload.flops = optional_double(d, "flops");
    c.workload.bytes = optional_double(d, "bytes");
    for (nb::handle impl : nb::cast<nb::list>(d["implementations"])) {
      nb::tuple t = nb::cast<nb::tuple>(impl);
      Implementation i;
      i.name = nb::cast<std::string>(t[0]);
      i.call.run = as_call(t[1]);
      i.call.reset = as_call(t[2]);
      i.verify = as_call(t[3]);
      if (t.size() > 4 && !t[4].is_none()) {  // the null test's hook: scaled(k)
        nb::object f = nb::borrow(t[4]);
        i.scaled = [f](int k) {
          try {
            f(k);
          } catch (const nb::python_error& e) {
            rethrow_in_core_terms(e);
          }
        };
      }
      c.implementations.push_back(std::move(i));
    }
    if (d.contains("inputs_fingerprint") && !d["inputs_fingerprint"].is_none()) {
      nb::object f = nb::borrow(d["inputs_fingerprint"]);
      c.inputs_fingerprint = [f] {
        try {
          return nb::cast<std::size_t>(f());
        } catch (const nb::python_error& e) {
          rethrow_in_core_terms(e);
        }
      };
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string run(const nb::list& py_cases, const nb::dict& py_options) {
  Options o;
  if (py_options.contains("device")) o.device = nb::cast<int>(py_options["device"]);
  if (py_options.contains("timing")) o.timing = nb::cast<std::string>(py_options["timing"]);
  if (py_options.contains("allow_events_fallback")) {
    o.allow_events_fallback = nb::cast<bool>(py_options["allow_events_fallback"]);
  }
  o.warmup_ms = optional_double(py_options, "warmup_ms");
  o.measure_ms = optional_double(py_options, "measure_ms");
  if (py_options.contains("argv")) o.argv = nb::cast<std::vector<std::string>>(py_options["argv"]);
  if (py_options.contains("ceilings")) o.ceilings = nb::cast<bool>(py_options["ceilings"]);
  if (py_options.contains("share_cupti")) o.share_cupti = nb::cast<bool>(py_options["share_cupti"]);
  if (py_options.contains("lock")) o.lock = nb::cast<bool>(py_options["lock"]);
  if (py_options.contains("allow_contended")) {
    o.allow_contended = nb::cast<bool>(py_options["allow_contended"]);
  }
  if (o.timing != "auto" && o.timing != "cupti" && o.timing != "events" && o.timing != "host") {
    throw ConfigError("timing must be 'auto', 'cupti', 'events' or 'host', not '" + o.timing + "'");
  }

  const std::vector<Case> cases = to_cases(py_cases);
  std::unique_ptr<DeviceLock> lock;
  std::vector<std::string> deviations;
  if (o.lock) {
    lock = take_lock(o);
    deviations = lock->deviations();
  } else {
    deviations.push_back(
        "device lock not taken (lock=False): nothing kept other runs off the device");
  }
  const Chosen chosen = choose(o);
  RunOptions run_options;
  run_options.argv = o.argv;
  run_options.deviations = deviations;
  run_options.deviations.insert(run_options.deviations.end(), chosen.deviations.begin(),
                                chosen.deviations.end());
  if (o.warmup_ms || o.measure_ms) {
    const double w = o.warmup_ms.value_or(to_ms(kMeasureBudget.warmup_ns));
    const double m = o.measure_ms.value_or(to_ms(kMeasureBudget.measure_ns));
    if (!(w > 0) || !(m > 0))
      throw ConfigError("budget: warm-up and measure must be positive milliseconds");
    run_options.budget.warmup_ns = static_cast<Nanos>(w * 1e6);
    run_options.budget.measure_ns = static_cast<Nanos>(m * 1e6);
  }
#ifdef GPUMETER_HAVE_CUDA
  // This call's word on sharing CUPTI, should it claim CUPTI again (after release_cupti): the
  // backend may have been made by an earlier call that said otherwise.
  set_cupti_sharing(o.share_cupti);
  // Timed by the backend that times the rows, after the word on sharing CUPTI (the ceilings may
  // be what claims it again); measured once per process, device and way of timing. Without
  // them only the percentages are missing, and the record says why.
  if (o.ceilings && chosen.backend->device().kind == "cuda") {
    try {
      run_options.ceilings = measure_ceilings(*chosen.backend);
    } catch (const Error& e) {
      run_options.deviations.push_back(std::string("ceilings not measured (no percent of peak): ") +
                                       e.what());
    }
  }
#endif
  // Also when the call fails before its first phase ends (a verification that throws): CUPTI is
  // never left claimed after a call returns.
  struct ReleaseCupti {
    ~ReleaseCupti() {
#ifdef GPUMETER_HAVE_CUDA
      release_cupti_subscription();
#endif
    }
  } release;
  Record record = run_cases(*chosen.backend, cases, run_options);
  record.run_id = new_run_id();
  return serialize(record);
}

// A record as the reader sees it (checked, derived values recomputed), back as JSON text.
std::string read_record_text(const std::string& text, const std::string& name) {
  return serialize(parse_record(text, name));
}

// The same from a file, read as `gpumeter report` reads one: a regular file of at most
// kMaxRecordBytes, opened without blocking (a FIFO is refused, not waited on).
std::string read_record_file(const std::string& path) {
  return serialize(read_record(path));
}

std::string write_record_text(const std::string& text, const std::string& directory) {
  return write_record(parse_record(text, "(record to write)"), directory).string();
}

std::string describe_record(const std::string& text) {
  const Record r = parse_record(text, "(record)");
  std::ostringstream out;
  for (const Comparison& c : r.comparisons) out << describe(c) << "\n";
  return out.str();
}

}  // namespace
}  // namespace gpumeter::python

NB_MODULE(_gpumeter, m) {
  using namespace gpumeter;
  m.doc() = "gpumeter's C++ core. Use the gpumeter package, not this module.";

  // Errors named by cause, all under gpumeter.Error, with the core's messages. Registered base
  // first: nanobind tries the most recently registered translator first, so each exception
  // lands on its own class.
  static nb::exception<Error> error(m, "Error");
  static nb::exception<RecordsLost> records_lost(m, "RecordsLost", error);
  static nb::exception<OffThreadLaunch> off_thread(m, "OffThreadLaunch", error);
  static nb::exception<AttributionError> attribution(m, "AttributionError", error);
  static nb::exception<CuptiUnavailable> cupti(m, "CuptiUnavailable", error);
  static nb::exception<InputsModified> inputs(m, "InputsModified", error);
  static nb::exception<VerificationFailed> verification(m, "VerificationFailed", error);
  static nb::exception<MixedTimingMethods> mixed(m, "MixedTimingMethods", error);
  static nb::exception<IncomparableStatistics> incomparable(m, "IncomparableStatistics", error);
  static nb::exception<WrongDevice> wrong_device(m, "WrongDevice", error);
  static nb::exception<DeviceError> device_error(m, "DeviceError", error);
  static nb::exception<TimestampUnitMismatch> timestamp_unit(m, "TimestampUnitMismatch", error);
  static nb::exception<DeviceBusy> device_busy(m, "DeviceBusy", error);
  static nb::exception<InvalidRecord> invalid_record(m, "InvalidRecord", error);
  static nb::exception<ConfigError> config_error(m, "ConfigError", error);
  // Its __cause__ is the exception the user's callable raised (set by the gpumeter package).
  static nb::exception<UserCodeError> user_code(m, "UserCodeError", error);
  python::error_class = error;

  m.def("version", [] { return std::string(version()); });
  m.def("has_cuda", [] {
#ifdef GPUMETER_HAVE_CUDA
    return true;
#else
    return false;
#endif
  });
  m.def("run", &python::run, nb::arg("cases"), nb::arg("options"),
        "Runs cases (A B C C B A per case) and returns the record as JSON text.");
  m.def("read_record", &python::read_record_text, nb::arg("text"), nb::arg("name"),
        "Parses a record strictly and returns it as the reader sees it (JSON text).");
  m.def("read_record_file", &python::read_record_file, nb::arg("path"),
        "Reads a record file strictly, as gpumeter report does; returns it as JSON text.");
  m.def("write_record", &python::write_record_text, nb::arg("text"), nb::arg("directory"),
        "Writes a record under its run-unique name, never overwriting; returns the path.");
  m.def(
      "release_cupti",
      [] {
#ifdef GPUMETER_HAVE_CUDA
        release_cupti_subscription();
#endif
      },
      "Gives CUPTI's subscription back until the next measurement claims it again.");
  m.def("describe_comparisons", &python::describe_record, nb::arg("text"),
        "The comparisons of a record, one sentence a line.");
  m.def(
      "cli",
      [](const std::vector<std::string>& args) {
        std::vector<const char*> argv{"gpumeter"};
        for (const std::string& a : args) argv.push_back(a.c_str());
        std::ostringstream out;
        std::ostringstream err;
        const int rc = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
        return nb::make_tuple(rc, out.str(), err.str());
      },
      nb::arg("args"), "Runs the gpumeter command; returns (exit code, stdout, stderr).");
}
