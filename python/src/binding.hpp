#pragma once
// What the files of the Python extension share: the handles through which Python sees a record,
// and the two directions of error translation.
#include <nanobind/nanobind.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/record.hpp"

namespace gpumeter::python {

namespace nb = nanobind;

// A record as Python holds it. Every object Python has of one record (the record, its results,
// a comparison's result) shares it: nothing is copied, and nothing of it can be changed, since
// a record is evidence.
struct RecordRef {
  std::shared_ptr<const Record> record;
};

// One result of a record (gpumeter.Result): its fields, its record's, and the record itself.
struct ResultRef {
  std::shared_ptr<const Record> record;
  std::size_t index = 0;

  const Result& get() const { return record->results[index]; }
};

// What compare() returns (gpumeter.CompareResult): a record of one case, its results by name.
struct CompareRef {
  std::shared_ptr<const Record> record;
};

// The typed classes of the record model (Record, Result, Summary, Comparison...).
void bind_record(nb::module_& m);
// The phases, total(N), crossovers and growth (phases.cpp); bound before the Record that
// returns them.
void bind_phase_types(nb::module_& m);

// The tamper check of `gpumeter evaluate` kept in compiled memory (watch.cpp): watch_capture,
// watch_changes, watch_dispatch_keys.
void bind_watch(nb::module_& m);
// What changed since the capture, for C++ that reports it without going through Python (the
// same list _gpumeter.watch_changes returns).
std::vector<std::string> watch_changes(const std::map<std::string, std::string>& settings_after);

// gpumeter's C++ errors raised in Python as the classes of gpumeter._errors, with their fields.
void register_error_translator();

// A Python exception raised in a callable, in the core's terms: one of gpumeter's own classes
// keeps its cause; anything else is UserCodeError with the exception's type as Python names it.
[[noreturn]] void rethrow_in_core_terms(const nb::python_error& e);

// A failed case raised as the error that failed it (with its fields where the process caught
// it, else by its name and message).
[[noreturn]] void raise_failure(const Failure& failure);

// For the binding's tests, which have no GPU to make most errors happen: throws the C++ error
// `name` with known fields, as the core would.
[[noreturn]] void raise_example_error(const std::string& name);

}  // namespace gpumeter::python
