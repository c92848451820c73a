#pragma once
// --isolate: each case in a fresh process of the same program, so a fault or a hang ends that
// case, not the sweep, and a sticky CUDA error dies with its process.
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/summary.hpp"
#include "gpumeter/record.hpp"
#include "options.hpp"

namespace gpumeter::program {

struct ChildResult {
  std::optional<Record> record;
  std::string failure_error;    // when no record: Crashed, Timeout
  std::string failure_message;  //
};

// Runs one case in a fresh process of this program (`args`), its record written to an unnamed
// file in `dir` and its output to another, so a kill of either process leaves no file behind.
// The process dies with this one (a hung case is not left running on the device) and holds a
// copy of `lock_fd` (when >= 0), so the device lock is held until it has exited even when this
// process is killed first. `track` is told the process's pid once it runs and 0 once it is
// reaped (an interruption kills it first). `timeout_s` > 0 stops it after that long.
ChildResult run_child(const std::vector<std::string>& args, const std::filesystem::path& dir,
                      int lock_fd, double timeout_s, const std::function<void(pid_t)>& track);

// The arguments a child gets: the parent's, less what only the parent does, plus its case.
std::vector<std::string> child_args(const std::vector<std::string>& argv, std::size_t k,
                                    bool with_lock, const Ceilings& ceilings);

// A case's process keeps the descriptors its parent gave it to itself: a program the case's
// own code starts does not get them (and so cannot hold the device lock past the case).
void keep_child_descriptors(const Options& o);

// A child hands its record to the parent through the descriptor it was given.
void write_child_record(int fd, const std::string& text);

bool has_ceilings(const Ceilings& c);

}  // namespace gpumeter::program
