// Errors across the language boundary, both ways. gpumeter's C++ errors become the Python classes
// of gpumeter/_errors.py (typed, documented, with their fields); a Python exception raised in a
// callable becomes the core's error for it, so the record names it as the core would.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "gpumeter/detail/error_class.hpp"
#include "gpumeter/error_catalogue.hpp"
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

// A field's value as Python sees it: an optional argument's "" (none given) is None.
template <class T>
nb::object python_value(const T& value, const char* /*type*/) {
  return nb::cast(value);
}
nb::object python_value(const std::string& value, const char* type) {
  return std::string_view(type).rfind("Optional[", 0) == 0 ? text_or_none(value) : nb::cast(value);
}

void translate(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  }
  // Each error of the catalogue as its Python class, made from the message and its fields.
#define GPUMETER_FIELD(name, expression, type) , nb::arg(#name) = python_value(expression, type)
#define GPUMETER_TRANSLATE(Name, error_class, exit_code, base, fields, doc) \
  catch (const Name& e) {                                                   \
    set_python_error(#Name, e fields);                                      \
  }
  GPUMETER_ERRORS(GPUMETER_TRANSLATE, GPUMETER_FIELD, )
#undef GPUMETER_TRANSLATE
#undef GPUMETER_FIELD
  catch (const Error& e) {
    set_python_error("Error", e);
  }
  // Anything else is not gpumeter's: it goes on to nanobind's own translation.
}

// gpumeter's errors whose Python classes a callable may raise with a message alone (the default
// check raises VerificationFailed), by class name: every error of the catalogue that a message
// alone makes (an error with fields needs them, so a message alone cannot stand for it).
template <class E>
[[noreturn]] void throw_as(const std::string& message) {
  throw E(message);
}
using Thrower = void (*)(const std::string&);
const std::map<std::string, Thrower>& raisable_errors() {
  static const std::map<std::string, Thrower> by_name = [] {
    std::map<std::string, Thrower> out;
#define GPUMETER_RAISABLE(Name, error_class, exit_code, base, fields, doc) \
  if constexpr (std::is_constructible_v<Name, const std::string&>)         \
    out.emplace(#Name, &throw_as<Name>);
    GPUMETER_ERRORS(GPUMETER_RAISABLE, , )
#undef GPUMETER_RAISABLE
    return out;
  }();
  return by_name;
}

}  // namespace

void register_error_translator() {
  nb::register_exception_translator(&translate);
}

// One error of the catalogue, as Python reads it.
struct CatalogueEntry {
  std::string name;
  std::string error_class;
  int exit_code = 0;
  std::string base;
  std::vector<std::pair<std::string, std::string>> fields;  // (Python name, Python type)
  std::string doc;
};

void register_error_catalogue(nb::module_& m) {
  nb::class_<CatalogueEntry>(m, "ErrorCatalogueEntry",
                             "One error of the core's catalogue: its name, its class (wrong, "
                             "refused, not measured, failed), the exit code of a program it "
                             "ends, its Python base, its fields as (name, Python type) and its "
                             "documentation.")
      .def_ro("name", &CatalogueEntry::name)
      .def_ro("error_class", &CatalogueEntry::error_class)
      .def_ro("exit_code", &CatalogueEntry::exit_code)
      .def_ro("base", &CatalogueEntry::base)
      .def_ro("fields", &CatalogueEntry::fields)
      .def_ro("doc", &CatalogueEntry::doc);
  m.def(
      "error_catalogue",
      [] {
        std::vector<CatalogueEntry> out;
#define GPUMETER_FIELD(name, expression, type) entry.fields.emplace_back(#name, type);
#define GPUMETER_ENTRY(Name, error_class_, exit_code_, base_, field_list, doc_) \
  {                                                                             \
    CatalogueEntry entry;                                                       \
    entry.name = #Name;                                                         \
    entry.error_class = std::string(to_string(ErrorClass::error_class_));       \
    entry.exit_code = exit_code_;                                               \
    entry.base = base_;                                                         \
    field_list entry.doc = doc_;                                                \
    out.push_back(std::move(entry));                                            \
  }
        GPUMETER_ERRORS(GPUMETER_ENTRY, GPUMETER_FIELD, )
#undef GPUMETER_ENTRY
#undef GPUMETER_FIELD
        return out;
      },
      "gpumeter's errors, each once (the core's catalogue), in its order: gpumeter._errors makes "
      "every Python error class from it.");
  m.def(
      "exit_code_of_error",
      [](const std::string& name) { return exit_code_of_error(std::string_view(name)); },
      nb::arg("name"),
      "The exit code a gpumeter program returns when the error of this name ends it (the "
      "catalogue's).");
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
  // One of each error of the catalogue, with known fields (tests/python/test_api.py).
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
  if (name == "MergeRefused") throw MergeRefused("a row in two records", 1);
  if (name == "CollectorRecordsLost") throw CollectorRecordsLost("range and launch events", 12);
  if (name == "RangeNotOpen") throw RangeNotOpen(77, "app", true, 9, 1000);
  if (name == "RangeLeftOpen") throw RangeLeftOpen("forward", "", 78, false, 2);
  if (name == "LaunchNotFound") throw LaunchNotFound(41, "gemm_kernel", 3);
  if (name == "ProgramProcessError") throw ProgramProcessError(4242, "CorruptTrace", "a bad trace");
    // The errors whose message is all they carry.
#define GPUMETER_MESSAGE_ONLY(Name) \
  if (name == #Name) throw Name("an example of " #Name);
  GPUMETER_MESSAGE_ONLY(VerificationFailed)
  GPUMETER_MESSAGE_ONLY(InputsModified)
  GPUMETER_MESSAGE_ONLY(CollectionStopped)
  GPUMETER_MESSAGE_ONLY(UnaccountedWork)
  GPUMETER_MESSAGE_ONLY(AnswerNotPlain)
  GPUMETER_MESSAGE_ONLY(CuptiUnavailable)
  GPUMETER_MESSAGE_ONLY(TimestampUnitMismatch)
  GPUMETER_MESSAGE_ONLY(MixedTimingMethods)
  GPUMETER_MESSAGE_ONLY(IncomparableStatistics)
  GPUMETER_MESSAGE_ONLY(CorruptTrace)
  GPUMETER_MESSAGE_ONLY(KernelRecordsMissing)
  GPUMETER_MESSAGE_ONLY(PartsMissing)
  GPUMETER_MESSAGE_ONLY(DeviceError)
  GPUMETER_MESSAGE_ONLY(NoRangesFound)
  GPUMETER_MESSAGE_ONLY(ProgramRunsDiffer)
#undef GPUMETER_MESSAGE_ONLY
  if (name == "Error") throw Error("an error");
  throw std::invalid_argument("no example of " + name);
}

void raise_failure(const Failure& failure) {
  if (failure.thrown) std::rethrow_exception(failure.thrown);
  throw Error(failure.error + ": " + failure.message);
}

}  // namespace gpumeter::python
