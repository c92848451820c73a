#pragma once
// This process's ids (P1, P7). In a PID namespace (a container, most CI runners) a process has
// one pid per namespace it lives in, and NVML lists a process by the one its driver sees: the
// host's, or, with drivers that translate, the container's. The device lock (is a listed process
// this one?) and the memory reading (which listed entry is this one's?) match against one set.
#include <cstddef>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace gpumeter {

// `own_pid` and the pids of the "NSpid:" line of a /proc/<pid>/status text (one per namespace,
// from the namespace of that /proc's mount inward). A text without the line (kernels before 4.1)
// gives `own_pid` alone; a malformed line adds nothing of itself.
std::set<long> pids_in_status(std::string_view status, long own_pid);

// This process's: getpid() and the NSpid line of /proc/self/status. Where /proc is the
// container's own mount (Docker's default), that line holds only the container's pid, and a
// driver that lists host pids lists this process under a pid no file here names.
std::set<long> own_pids();

// Of the pids NVML lists, the index of this process's entry: the one whose pid is in `own`.
// nullopt when none is, or when two are: one number can be this process's pid in one namespace
// and another process's in another, and which entry is this one's cannot be told.
std::optional<std::size_t> own_entry(const std::vector<long>& listed, const std::set<long>& own);

}  // namespace gpumeter
