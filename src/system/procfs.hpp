#pragma once
// What gpumeter reads of another process, or of itself, in /proc (Linux), in one place: a file's
// text (bounded), a status file's field, a process's state and parent, and its line of
// ancestors. Nothing here throws: what cannot be read is empty.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumeter::detail {

// At most `max_bytes` of the file at `path`; "" when it cannot be opened. A /proc file is made
// as it is read and has no size to ask first, hence the bound.
std::string read_bounded(const std::string& path, std::size_t max_bytes);

// /proc/self/status, whole (bounded only against a kernel gone wrong: a long Groups line is the
// most it holds before the fields gpumeter reads).
std::string self_status();

// The text after `key` ("NSpid:", "VmHWM:") on the line of `status` that starts with it, or
// nullopt when no line does.
std::optional<std::string_view> status_field(std::string_view status, std::string_view key);

// The host's 1-minute load average (the first field of /proc/loadavg); nullopt when it cannot
// be read or is not a number >= 0.
std::optional<double> load_average();

// A process's state letter ('R', 'S', 'Z' for a zombie, ...) and its parent's pid, from
// /proc/<pid>/stat; nullopt when it cannot be read (gone, or another PID namespace's).
struct ProcStat {
  char state = '?';
  long ppid = 0;
  long pgrp = 0;
  long session = 0;  // the process's session: the pid of its session leader
};
std::optional<ProcStat> read_stat(long pid);

// How far up the process tree a walk goes: far deeper than any real chain of shells and
// launchers, and a bound should /proc ever show a loop.
inline constexpr int kMaxAncestry = 128;

// A command line as records and messages show it, at most this long.
inline constexpr std::size_t kMaxCommandChars = 300;

// The command line of "self" or a pid of this PID namespace, on one line (its name in brackets
// for a kernel thread, which has none), or "" when it cannot be read.
std::string command_of(const std::string& process);

// A process of this PID namespace that has not exited: a zombie (exited, not yet reaped) holds
// no lock and no CUDA context any more.
bool process_exists(long pid);

// `pid`, its parent, their parent, ... up to init (left out), as far as /proc shows them.
std::vector<long> lineage(long pid);

}  // namespace gpumeter::detail
