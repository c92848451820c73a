#include "gpumeter/option_table.hpp"

#include "gpumeter/option_spec.hpp"

namespace gpumeter {
namespace {

using enum OptionRole;

// --timeout is a wait, not the identity: two shards run with different limits are one sweep (the
// case processes and the sweep once read two lists, and merge refused such shards).
constexpr ProgramOption kProgramOptions[] = {
    // A run with --version or --list measures nothing: what they are to a sweep does not matter.
    {"--version", identity, {false, "Display program version information and exit"}},
    {"--list", identity, {false, "List the cases the other options select, and exit"}},
    {"--filter", identity, {true, "Only cases whose label matches this regular expression"}},
    {"--shard", task, kShardOption},
    {"--device", task, kDeviceIndexOption},
    {"--devices",
     task,
     {true,
      "0,1,...|all: spread the sweep over these devices of this host, one process and one device "
      "lock each, the cases dealt as for --shard, the parts merged into one record "
      "(docs/cluster.md)"}},
    {"--axis",
     identity,
     {true,
      "Override an axis: name=v1,v2, name=start:stop[:step], or on an integer axis "
      "name=2^a:2^b[:factor] (repeatable)"}},
    {"--timing",
     identity,
     {true,
      "cupti (short for kernel-records: device time, the default with CUDA; without a usable GPU "
      "the program exits 5), events (short for device-events: device event pairs) or host (short "
      "for host-clock: synchronized wall clock, for host work; the default without CUDA); the "
      "full names are taken too"}},
    {"--allow-events-fallback", identity, kAllowEventsFallbackOption},
    // The run's target: the options every front end shares (option_spec.hpp).
    {"--budget", identity, kBudgetOption},
    {"--precision", identity, kPrecisionOption},
    {"--max-time", identity, kMaxTimeOption},
    {"--out", output, kRecordDirectoryOption},  // its default: Options{}.out
    {"--md", output, {false, "Print the markdown table (the default)"}},
    {"--csv", output, kCsvOption},
    {"--wide", output, kWideOption},
    {"--quiet", output, {false, "Print nothing but errors (no progress, no table)"}},
    {"--isolate",
     conditions,
     {false, "Run each case in a fresh process: a fault or a hang fails that case only"}},
    {"--timeout",
     wait,
     {true, "Seconds a case may run before it is stopped (needs --isolate)", &kLimitSeconds}},
    {"--no-lock",
     conditions,
     {false,
      "Do not take the device's exclusive lock (the record says so); by default the sweep holds "
      "it, after checking that no other process uses the device"}},
    {"--allow-contended", conditions, kAllowContendedOption},
    {"--lock-timeout", wait, kLockWaitOption},
    // Given by a program to the processes it starts, always as --name=value.
    {"--gpumeter-child", internal, {true, ""}},
    {"--gpumeter-child-record-fd", internal, {true, ""}},
    {"--gpumeter-child-lock-fd", internal, {true, ""}},
    {"--gpumeter-child-ceilings", internal, {true, ""}},
    {"--gpumeter-shard-origin", internal, {true, ""}},
};

}  // namespace

std::span<const ProgramOption> program_options() {
  return kProgramOptions;
}

const ProgramOption* find_program_option(std::string_view argument) {
  if (argument.rfind("--", 0) != 0) return nullptr;  // a value, or a short option
  const std::string_view name = argument.substr(0, argument.find('='));
  for (const ProgramOption& o : kProgramOptions) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

OptionRole option_role(std::string_view argument) {
  // Any --gpumeter-* is a program's to its processes, whether this build's table lists it or not.
  if (argument.rfind("--gpumeter-", 0) == 0) return internal;
  const ProgramOption* o = find_program_option(argument);
  return o ? o->role : identity;
}

bool option_takes_value(std::string_view name) {
  const ProgramOption* o = find_program_option(name);
  return o && o->meaning.takes_value && name.find('=') == std::string_view::npos;
}

bool parent_only(OptionRole role) {
  return role == output || role == wait || role == conditions;
}

}  // namespace gpumeter
