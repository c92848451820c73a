#pragma once
// The command line every benchmark program shares (B1): its options, how they are checked, and
// what they ask of a Session.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpumeter/device_lock.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/session.hpp"
#include "table_format_option.hpp"

namespace gpumeter::program {

struct Options {
  bool list = false;
  std::string filter;
  // --shard K/N or all; not given (nullopt): the scheduler's index, if any.
  std::optional<std::string> shard;
  int device = 0;
  // --devices 0,1,...|all: one process per device; not given (nullopt): this process only.
  std::optional<std::string> devices;
  std::vector<std::string> axes;
  std::string timing;
  bool allow_events_fallback = false;
  std::string budget;
  std::string precision;  // --precision 1% (or 0.01): run every case to this precision
  std::string max_time;   // --max-time 10s: the cap of a run to a precision
  std::string out = "gpumeter-results";
  bool md = false;
  TableFormatFlags table;  // --csv, --wide
  bool quiet = false;
  bool isolate = false;
  double timeout_s = 0;
  bool no_lock = false;
  bool allow_contended = false;
  double lock_timeout_s = kDefaultLockTimeoutS;
  // Hidden: a child of --isolate runs one case and writes its record to a descriptor it
  // inherited; it holds the parent's lock descriptor (when there is one) for as long as it lives.
  long child_case = -1;
  int child_record_fd = -1;
  int child_lock_fd = -1;
  std::string child_ceilings;
  // Hidden: what a process of --devices is told of its shard (which device, of which task), for
  // its record's shard section.
  std::string shard_origin;
};

// The program's name as the user ran it, for its messages.
std::string program_name(const char* argv0);

// One line for the user, controls shown, never obeyed.
void say(const std::string& program, const std::string& message);

// --budget WARMUP_MS,MEASURE_MS, each part by the rule every numeric option follows. Throws
// ConfigError.
Budget parse_budget(const std::string& text);

// --precision P (a fraction, "1%" or "0.01") and --max-time T (a duration, "10s", "500ms" or bare
// seconds), read by the rules every front end reads them by (option_spec.hpp): the target of
// every case's measurement, or nullopt when neither was given. Throws ConfigError naming the option
// for a value outside its range, --max-time without --precision, and --precision with --budget (a
// run to a precision has no fixed budget).
std::optional<PrecisionTarget> parse_precision(const Options& o);

// Registers every option on `app`, into `o`: each with its entry of the benchmark programs' option
// table (option_table.hpp), whose name, value-ness and help it takes. Throws std::logic_error
// when an option registered has no entry or CLI11 takes its value otherwise than the table says.
void add_options(CLI::App& app, Options& o, const std::string& program);

// Whether CLI11 reads a value after `option` (false: a flag).
bool cli_takes_value(const CLI::Option& option);

// What the options ask of the session: the timing, the device, the lock. `parent` is false in a
// case's process under --isolate, which runs under its parent's lock.
SessionOptions session_options(const Options& o, bool parent);

}  // namespace gpumeter::program
