#include "procfs.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpumeter/detail/escape.hpp"

namespace gpumeter::detail {
namespace {

// "pid (comm) state ppid ...": comm is at most 64 bytes, so the fields read come well within.
constexpr std::size_t kStatBytes = 1024;
// A status file is about 1.5 KB; a process in thousands of groups makes it longer.
constexpr std::size_t kStatusBytes = 1 << 20;

}  // namespace

std::string read_bounded(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string text(max_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max_bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::optional<double> load_average() {
  // "6.93 5.10 3.02 3/412 8812": the first field is the last minute's.
  const std::string text = read_bounded("/proc/loadavg", 128);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

std::string self_status() {
  return read_bounded("/proc/self/status", kStatusBytes);
}

std::optional<std::string_view> status_field(std::string_view status, std::string_view key) {
  std::size_t at = 0;
  while (at < status.size()) {
    const std::size_t end = std::min(status.find('\n', at), status.size());
    const std::string_view line = status.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, key.size()) == key) return line.substr(key.size());
  }
  return std::nullopt;
}

std::optional<ProcStat> read_stat(long pid) {
  const std::string stat = read_bounded("/proc/" + std::to_string(pid) + "/stat", kStatBytes);
  // comm may itself hold spaces and parentheses: the fields start after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  ProcStat s;
  if (!(fields >> s.state >> s.ppid >> s.pgrp >> s.session)) return std::nullopt;
  return s;
}

std::string command_of(const std::string& process) {
  constexpr std::size_t kMaxReadBytes = 8192;
  const std::string proc = "/proc/" + process;
  std::string cmd = one_line(read_bounded(proc + "/cmdline", kMaxReadBytes), kMaxCommandChars);
  if (cmd.empty()) {
    const std::string comm =
        one_line(read_bounded(proc + "/comm", kMaxReadBytes), kMaxCommandChars);
    if (!comm.empty()) cmd = "[" + comm + "]";
  }
  return cmd;
}

bool process_exists(long pid) {
  constexpr long kPidMaxLimit = 4194304;  // PID_MAX_LIMIT: no pid of this kernel is larger
  if (pid <= 0 || pid > kPidMaxLimit) return false;  // never kill(-1, 0) for a huge NVML pid
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  const std::optional<ProcStat> stat = read_stat(pid);
  return !stat || stat->state != 'Z';
}

std::vector<long> lineage(long pid) {
  std::vector<long> out;
  for (int depth = 0; depth < kMaxAncestry && pid > 1; ++depth) {
    out.push_back(pid);
    const std::optional<ProcStat> s = read_stat(pid);
    pid = s ? s->ppid : 0;
  }
  return out;
}

}  // namespace gpumeter::detail
