// Errors across the language boundary, both ways. gpumeter's C++ errors become the Python classes
// of gpumeter/_errors.py (typed, documented, with their fields); a Python exception raised in a
// callable becomes the core's error for it, so the record names it as the core would.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <exception>
#include <map>
#include <stdexcept>
#include <string>

#include "binding.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::python {
namespace {

// The classes live in Python, imported when first needed: the extension also loads without the
// package around it (the stub generator imports it alone).
nb::object errors_module() {
  return nb::module_::import_("gpumeter._errors");
}

// Sets the Python error `name` of gpumeter._errors, made from the message and the fields.
template <class... Fields>
void set_python_error(const char* name, const std::exception& e, Fields&&... fields) {
  try {
    nb::object cls = errors_module().attr(name);
    nb::object error = cls(e.what(), std::forward<Fields>(fields)...);
    PyErr_SetObject(cls.ptr(), error.ptr());
  } catch (nb::python_error& failed) {
    failed.restore();  // the package is missing or broken: that is what Python sees
  }
}

nb::object text_or_none(const std::string& s) {
  return s.empty() ? nb::none() : nb::object(nb::str(s.c_str(), s.size()));
}

void translate(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const RecordsLost& e) {
    set_python_error("RecordsLost", e, nb::arg("dropped") = e.dropped(),
                     nb::arg("attempts") = e.attempts());
  } catch (const OffThreadLaunch& e) {
    set_python_error("OffThreadLaunch", e, nb::arg("n_kernels") = e.n_orphans(),
                     nb::arg("example_kernel") = e.example_kernel(),
                     nb::arg("loss_ruled_out") = e.loss_ruled_out());
  } catch (const AttributionError& e) {
    set_python_error("AttributionError", e, nb::arg("iteration") = e.iteration(),
                     nb::arg("why") = e.why(), nb::arg("loss_ruled_out") = e.loss_ruled_out());
  } catch (const WrongDevice& e) {
    set_python_error("WrongDevice", e, nb::arg("iteration") = e.iteration(),
                     nb::arg("kernel") = e.kernel(), nb::arg("ran_on") = e.ran_on(),
                     nb::arg("measured") = e.measured());
  } catch (const OtherProcessOnDevice& e) {
    set_python_error("OtherProcessOnDevice", e, nb::arg("own_session") = e.own_session());
  } catch (const InvalidRecord& e) {
    set_python_error("InvalidRecord", e, nb::arg("path") = e.path(),
                     nb::arg("problem") = e.problem());
  } catch (const ConfigError& e) {
    set_python_error("ConfigError", e, nb::arg("argument") = text_or_none(e.argument()));
  } catch (const UserCodeError& e) {
    set_python_error("UserCodeError", e, nb::arg("step") = e.step(),
                     nb::arg("exception_type") = e.type(),
                     nb::arg("exception_message") = e.message());
  } catch (const Error& e) {
    // The classes whose message is all they carry, by the name a record gives them.
    set_python_error(error_name(e), e);
  }
  // Anything else is not gpumeter's: it goes on to nanobind's own translation.
}

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
      {"AnswerNotPlain", &throw_as<AnswerNotPlain>},
      {"MixedTimingMethods", &throw_as<MixedTimingMethods>},
      {"IncomparableStatistics", &throw_as<IncomparableStatistics>},
      {"DeviceError", &throw_as<DeviceError>},
      {"DeviceBusy", &throw_as<DeviceBusy>},
      {"ConfigError", &throw_as<ConfigError>}};
  return by_name;
}

}  // namespace

void register_error_translator() {
  nb::register_exception_translator(&translate);
}

void rethrow_in_core_terms(const nb::python_error& e) {
  const nb::handle type = e.type();
  const std::string name = nb::cast<std::string>(nb::str(type.attr("__qualname__")));
  std::string message;
  try {
    message = nb::cast<std::string>(nb::str(e.value()));
  } catch (const nb::python_error&) {
    message = "(its str() raised)";
  }
  nb::object error_class;
  try {
    error_class = errors_module().attr("Error");
  } catch (const nb::python_error&) {
    // No package: every exception is the user's.
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

void raise_example_error(const std::string& name) {
  if (name == "RecordsLost") throw RecordsLost(7, 3);
  if (name == "OffThreadLaunch") throw OffThreadLaunch(2, "void axpy<float>(int, float*)", true);
  if (name == "AttributionError") throw AttributionError(5, "no kernel was attributed", false);
  if (name == "WrongDevice") throw WrongDevice(4, "copy_kernel", 1, 0);
  if (name == "InvalidRecord") throw InvalidRecord("run.json", "truncated");
  if (name == "ConfigError") throw ConfigError("budget", "must be positive");
  if (name == "UserCodeError")
    throw UserCodeError("iteration 3, the measured call", "KeyError", "'k'");
  if (name == "DeviceBusy") throw DeviceBusy("CUDA device 0 is locked by another run");
  if (name == "OtherProcessOnDevice")
    throw OtherProcessOnDevice("another process held a compute context on the measured device",
                               true);
  if (name == "Error") throw Error("an error");
  throw std::invalid_argument("no example of " + name);
}

void raise_failure(const Failure& failure) {
  if (failure.thrown) std::rethrow_exception(failure.thrown);
  throw Error(failure.error + ": " + failure.message);
}

}  // namespace gpumeter::python
