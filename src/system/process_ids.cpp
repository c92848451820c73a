#include "gpumeter/process_ids.hpp"

#include <unistd.h>

#include <cstddef>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "procfs.hpp"

namespace gpumeter {

std::set<long> pids_in_status(std::string_view status, long own_pid) {
  std::set<long> pids{own_pid};
  const std::optional<std::string_view> field = detail::status_field(status, "NSpid:");
  if (!field) return pids;
  std::istringstream values{std::string(*field)};
  std::vector<long> found;
  long p = 0;
  while (values >> p) found.push_back(p);
  // Every field a pid, or none used: a line that stops parsing before its end is no evidence.
  if (!values.eof()) return pids;
  for (const long q : found) {
    if (q > 0) pids.insert(q);
  }
  return pids;
}

std::set<long> own_pids() {
  return pids_in_status(detail::self_status(), static_cast<long>(::getpid()));
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
