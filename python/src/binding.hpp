#pragma once
// What the files of the Python extension share: the handles through which Python sees a record,
// and the two directions of error translation.
#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
// The watched names, hooks and registrations changed since the capture (watch_changes without the
// settings), or nullopt where nothing was captured: what the compiled report adds of its own, so
// no Python object a candidate reaches stands between the capture and the parent.
std::optional<std::vector<std::string>> watched_names_changed();

// gpumeter's C++ errors raised in Python as the classes of gpumeter._errors, with their fields.
void register_error_translator();
// error_catalogue(): every error of the core's catalogue, for gpumeter._errors to make classes of.
void register_error_catalogue(nb::module_& m);

// A Python exception raised in a callable, in the core's terms: one of gpumeter's own classes
// keeps its cause; anything else is UserCodeError with the exception's type as Python names it.
[[noreturn]] void rethrow_in_core_terms(const nb::python_error& e);

// A failed case raised as the error that failed it (with its fields where the process caught
// it, else by its name and message).
[[noreturn]] void raise_failure(const Failure& failure);

// For the binding's tests, which have no GPU to make most errors happen: throws the C++ error
// `name` with known fields, as the core would.
[[noreturn]] void raise_example_error(const std::string& name);

// The report channel of a candidate's process of `gpumeter evaluate` (evaluation_channel.cpp):
// its functions in the module, and what the rest of the binding tells it.
void bind_evaluation_channel(nb::module_& m);
// Whether this process opened the channel.
bool channel_open();
// A measurement starting, for as long as it lives: counted, its stack checked (a violation is
// sent at once), and no report while it runs. Nothing when the channel is not open.
class ChannelMeasurement {
 public:
  ChannelMeasurement();
  ~ChannelMeasurement();
  ChannelMeasurement(const ChannelMeasurement&) = delete;
  ChannelMeasurement& operator=(const ChannelMeasurement&) = delete;

 private:
  bool counted_ = false;
};
// The driver's check of one call's answer (Call::check), for as long as it lives (B11, issue 50):
// while it runs, and only then, gpumeter's own code may ask for the one tag the checker accepts
// for that implementation and seed (evaluation_check_tag); the capture's hooks are read at its
// start and end (watch_at_check). Nothing when the channel is not open.
class ChannelCheck {
 public:
  ChannelCheck(const std::string& implementation, std::uint64_t seed);
  ~ChannelCheck();
  ChannelCheck(const ChannelCheck&) = delete;
  ChannelCheck& operator=(const ChannelCheck&) = delete;

 private:
  bool open_ = false;
};
// The capture's hooks and levers (its probes) read again while an answer is checked: each that
// differs from the capture is recorded as changed while gpumeter checked an answer (watch.cpp).
void watch_at_check();
// A record written at `path` as the bytes `text`: its digest goes into the report.
void channel_record_written(const std::string& path, const std::string& text);
// SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104), raw 32 bytes.
std::string sha256(std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data);

}  // namespace gpumeter::python
