#pragma once
// What the collector injected by `gpumeter run` writes for each process it ran in, and where: the
// one definition both sides read (the collector writes it, program_run.cpp reads it). A part
// is JSON:
//   {"schema": kSchema, "version": kVersion, "pid", "parent_pid", "origin" ("exec" | "fork"),
//    "cupti" (whether device records were collected), "cupti_problem" (why not, else ""),
//    "dropped_host_events", "dropped_device_records" (null when CUPTI's counter could not be
//    read), "lost_device_records" (records CUPTI handed over untimed or cut short),
//    "threads": {tid: name}, "ranges": [[kind, host_ns, tid, id, name, domain]...],
//    "foreign_cupti_clients": ["library (function)"...] (other CUPTI clients the guard saw),
//    "launches": [[tid, correlation_id, enclosing_runtime_id, host_ns, api, capturing]...],
//    "device": [[kind, start_ns, end_ns, correlation_id, device, stream, graph_node, name]...]}
// Host times are CLOCK_MONOTONIC nanoseconds of the process; device times are CUPTI's.
#include <string>

namespace gpumeter::program_part {

inline constexpr const char* kSchema = "gpumeter.program-part";
inline constexpr int kVersion = 1;

// The directory parts go to; a process without it (not under `gpumeter run`) records nothing.
inline constexpr const char* kDirEnv = "GPUMETER_RUN_PARTS";

// The guard `gpumeter run` preloads exports this: the other CUPTI clients it saw.
inline constexpr const char* kGuardSymbol = "gpumeter_cupti_guard_clients";

// A process that loaded the collector itself (the command, or a program it started), and a child
// forked from one (it inherits the collector, not the parent's records).
inline constexpr const char* kOriginExec = "exec";
inline constexpr const char* kOriginFork = "fork";

enum class RangeKind { push, pop, start, end };
enum class DeviceKind { kernel, memcpy, memset };

inline const char* to_string(RangeKind kind) {
  switch (kind) {
    case RangeKind::push:
      return "push";
    case RangeKind::pop:
      return "pop";
    case RangeKind::start:
      return "start";
    case RangeKind::end:
      return "end";
  }
  return "?";
}

inline const char* to_string(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kernel:
      return "kernel";
    case DeviceKind::memcpy:
      return "memcpy";
    case DeviceKind::memset:
      return "memset";
  }
  return "?";
}

// A process writes its marker when it starts owing a part (the collector loaded, or a forked
// child's first event), and its part at exit: a marker without a part is a missing part.
inline std::string marker_name(long pid) {
  return "started-" + std::to_string(pid);
}
inline std::string part_name(long pid) {
  return "part-" + std::to_string(pid) + ".json";
}

}  // namespace gpumeter::program_part
