#pragma once
// What gpumeter watches through NVML while it measures one device: the SM clock and throttle
// reasons between iterations (B4), and this process's memory on the device (P7). NVML stays
// initialized while this lives, so a reading costs a query or two, not a library load.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpumeter/detail/clock_state.hpp"
#include "nvml_library.hpp"

namespace gpumeter::detail {

class NvmlWatch {
 public:
  // Loads NVML (GPUMETER_NVML_LIBRARY when set, else the driver's) and finds the device by its
  // uuid ("GPU-..."): no other device is ever read in its place. Never throws: what cannot be
  // read gives nullopt, and why_not() says why (the clock and the memory each read on their
  // own, whichever of them the library serves).
  explicit NvmlWatch(const std::string& gpu_uuid);
  ~NvmlWatch();
  NvmlWatch(const NvmlWatch&) = delete;
  NvmlWatch& operator=(const NvmlWatch&) = delete;

  // The SM clock and the clock-event reasons now; nullopt when either cannot be read.
  std::optional<ClockReading> read_clock() const;
  // The device memory NVML counts now, in its own granularity, for the one process it lists
  // under a pid of `pids` (this process's, own_pids(): one per PID namespace it lives in);
  // nullopt when NVML cannot say: none listed (a driver that lists host pids, which a container
  // with its own /proc cannot know), two listed (which is this one cannot be told), or the count
  // unavailable.
  std::optional<long long> process_memory(const std::set<long>& pids) const;
  // The pids of every process with a compute context on the device now, as NVML lists them;
  // nullopt when the list cannot be read.
  std::optional<std::vector<long>> device_pids() const;
  // "" when both can be read.
  const std::string& why_not() const { return why_not_; }

 private:
  std::optional<nvml::Session> session_;
  const nvml::Library* lib_ = nullptr;  // set once the device is found
  nvml::Device device_ = nullptr;
  bool clock_ = false;  // the clock and reasons queries are both exported
  std::string why_not_;
};

}  // namespace gpumeter::detail
