#pragma once
// What a backend's collector hands back for one measurement phase (extension layer: the user API
// never sees it): the device activities it saw and, for each, the identity that says which
// iteration caused it (docs/rules.md, "attribution by identity"). The core attributes the
// activities to iterations from this alone.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/timestamp_check.hpp"

namespace gpumeter {

enum class ActivityKind {
  kernel,  // a CUPTI concurrent-kernel record (graph kernel nodes included)
  memcpy,  // a copy: uncounted unless the case counts copies
  memset,  // a fill: treated like a copy (an engine operation, not a kernel)
  region,  // a whole call timed as one interval (CUDA events, host clock): no kernel count
};

const char* to_string(ActivityKind kind);

struct Activity {
  ActivityKind kind = ActivityKind::kernel;
  Nanos start_ns = 0;
  Nanos end_ns = 0;
  std::uint64_t correlation_id = 0;  // the API call that launched it (CUPTI correlation id)
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::uint64_t graph_node = 0;  // 0 when not launched from a graph
  std::string name;
};

// The external correlation ids a collector labels the harness's work with, so the core can tell
// it from an iteration's work and never time it. Iteration ids are 0..n-1, so these largest ids
// can never collide with one. Each role has its own: the ledger then says how much device
// work the fresh inputs and the checks did, and work a call moves into one of them shows there.
inline constexpr std::uint64_t kPrepareId = UINT64_MAX;     // gpumeter's own: canaries, flush
inline constexpr std::uint64_t kInputsId = UINT64_MAX - 2;  // the call's fresh inputs
inline constexpr std::uint64_t kResetId = UINT64_MAX - 3;   // the call's reset
inline constexpr std::uint64_t kCheckId = UINT64_MAX - 4;   // the check of the call's answer

enum class HarnessRole { own, inputs, reset, check };
std::uint64_t harness_id(HarnessRole role);
// The role of an id that is one of the four above; nullopt for any other.
std::optional<HarnessRole> harness_role(std::uint64_t id);
const char* to_string(HarnessRole role);  // "gpumeter's own", "fresh inputs", "reset", "check"

// A kernel-launch API call the collector saw succeed: every one must have left a kernel record.
struct KernelLaunch {
  std::uint64_t correlation_id = 0;
  bool runtime_api = true;  // through the runtime API (else the driver API)
  // When the launch call returned, on the activities' clock; 0: unknown. A kernel that starts
  // long after it while nothing recorded runs was waiting for work gpumeter has no record of.
  Nanos returned_ns = 0;
};

// How a user knows the collector, for the messages that say its records were lost or switched
// off: the core names no vendor's tool, the backend that made the trace does.
struct CollectorNames {
  std::string tool = "the collector";  // "CUPTI"
  // What switches its records off, as a user searches the code for it; "" when nothing is known.
  std::string switched_off_by;  // "cuptiActivityDisable, cuptiUnsubscribe, cuptiFinalize..."
};

struct Trace {
  std::vector<Activity> activities;
  // CUPTI correlation id -> external correlation id pushed around the launching API call.
  std::unordered_map<std::uint64_t, std::uint64_t> external_id_of;
  // Records CUPTI reported as dropped; nullopt when the counter has not been proven live, so a zero
  // reading could not be trusted.
  std::optional<std::uint64_t> dropped_records;
  // False for backends that time a whole call as one region (events, host clock).
  bool counts_kernels = true;
  // The device being measured, as the backend numbers devices in Activity::device. Work of an
  // iteration that ran on another device is refused: that device was neither flushed nor drained,
  // and the record would name the wrong card. nullopt: not checked (host).
  std::optional<std::uint32_t> measured_device;
  // How the timestamps were checked against the device's own clock; nullopt for a backend whose
  // readings need no check (CUDA events, the host clock).
  std::optional<TimestampUnit> timestamp_unit;
  // Canaries (ledger.hpp): the kernel the backend launched under the prepare label before every
  // iteration and after the last, and how many it launched; 0 for a backend without them (the host
  // clock, CUDA events). A canary missing from the records proves collection stopped.
  std::string canary_name;
  std::size_t canaries_launched = 0;
  // The kernel launches the collector saw succeed, where it reports them; nullopt: not reported.
  std::optional<std::vector<KernelLaunch>> kernel_launches;
  // Other processes may use the device (a contended run): their work delays the call's
  // kernels, so a delay is not evidence of hidden work in this process.
  bool device_shared = false;
  CollectorNames names;
};

}  // namespace gpumeter
