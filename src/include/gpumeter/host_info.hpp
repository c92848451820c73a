#pragma once
// What the host is, read at run time (P2). Anything unreadable stays empty / nullopt.
#include <filesystem>
#include <string>

#include "gpumeter/record.hpp"

namespace gpumeter {

HostIdentity read_host_identity();

// Now, as ISO 8601 UTC with a Z ("2026-11-29T11:26:38Z").
std::string utc_now_iso();

// The measured project's commit: GPUMETER_PROJECT_COMMIT if set, else the HEAD of the git
// repository holding `start` (read from .git without running git), else "".
std::string project_commit(const std::filesystem::path& start = std::filesystem::current_path());

}  // namespace gpumeter
