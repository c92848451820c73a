#include "gpumeter/process_ids.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gpumeter {

std::set<long> pids_in_status(std::string_view status, long own_pid) {
  std::set<long> pids{own_pid};
  constexpr std::string_view kKey = "NSpid:";
  std::size_t at = 0;
  while (at < status.size()) {
    const std::size_t end = std::min(status.find('\n', at), status.size());
    const std::string_view line = status.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, kKey.size()) != kKey) continue;
    std::istringstream values{std::string(line.substr(kKey.size()))};
    std::vector<long> found;
    long p = 0;
    while (values >> p) found.push_back(p);
    // Every field a pid, or none used: a line that stops parsing before its end is no evidence.
    if (!values.eof()) continue;
    for (const long q : found) {
      if (q > 0) pids.insert(q);
    }
  }
  return pids;
}

std::set<long> own_pids() {
  std::ifstream in("/proc/self/status");
  const std::string status((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return pids_in_status(status, static_cast<long>(::getpid()));
}

std::optional<std::size_t> own_entry(const std::vector<long>& listed, const std::set<long>& own) {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    if (own.count(listed[i]) == 0) continue;
    if (found) return std::nullopt;
    found = i;
  }
  return found;
}

}  // namespace gpumeter
