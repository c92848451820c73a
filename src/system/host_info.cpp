#include "gpumeter/host_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

namespace gpumeter {
namespace {

std::string first_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The commit HEAD names: HEAD itself when detached, else its ref, looked up as a loose ref
// and then in packed-refs (both under `common`, which differs from `git_dir` in worktrees).
std::string head_commit(const std::filesystem::path& git_dir, const std::filesystem::path& common) {
  const std::string head = trim(first_line(git_dir / "HEAD"));
  if (head.rfind("ref: ", 0) != 0) return head;  // detached HEAD holds the sha itself
  const std::string ref = head.substr(5);
  if (std::string sha = trim(first_line(common / ref)); !sha.empty()) return sha;
  std::ifstream packed(common / "packed-refs");
  for (std::string line; std::getline(packed, line);) {
    const auto space = line.find(' ');
    if (space != std::string::npos && line.substr(space + 1) == ref) return line.substr(0, space);
  }
  return "";  // a repository with no commit yet
}

}  // namespace

HostIdentity read_host_identity() {
  HostIdentity h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      h.cpu_model = trim(line.substr(line.find(':') + 1));
      break;
    }
  }
  const unsigned n = std::thread::hardware_concurrency();
  if (n > 0) h.logical_cores = static_cast<int>(n);
  utsname u{};
  if (uname(&u) == 0) h.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  return h;
}

std::string utc_now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string project_commit(const std::filesystem::path& start) {
  if (const char* env = std::getenv("GPUMETER_PROJECT_COMMIT"); env && *env) return env;
  std::error_code ec;
  auto dir = std::filesystem::absolute(start, ec);
  if (ec) return "";
  for (; !dir.empty(); dir = dir.parent_path()) {
    const auto dot_git = dir / ".git";
    std::error_code missing;  // a directory without .git is the normal case, not an error
    if (std::filesystem::is_directory(dot_git, missing)) return head_commit(dot_git, dot_git);
    if (std::filesystem::is_regular_file(dot_git, missing)) {
      // A worktree or submodule: .git names its git directory ("gitdir: <path>"), whose
      // "commondir" (worktrees) holds the shared refs. The nearest .git is the project's;
      // an enclosing repository's HEAD would be another project's commit.
      const std::string line = trim(first_line(dot_git));
      if (line.rfind("gitdir: ", 0) != 0) return "";
      std::filesystem::path git_dir = line.substr(8);
      if (git_dir.is_relative()) git_dir = dir / git_dir;
      std::filesystem::path common = git_dir;
      if (const std::string c = trim(first_line(git_dir / "commondir")); !c.empty()) {
        common = std::filesystem::path(c).is_relative() ? git_dir / c : std::filesystem::path(c);
      }
      return head_commit(git_dir, common);
    }
    if (dir == dir.root_path()) break;
  }
  return "";
}

}  // namespace gpumeter
