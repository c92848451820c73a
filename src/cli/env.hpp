#pragma once
// `gpumeter env [--json] [--device N]`: the host, the device and its state, as a record made now
// would hold them; "not available" (null in JSON) for what cannot be read, exit 0 without a GPU.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter::cli {

struct Environment {
  Record record;  // host, device and device state as a record holds them
  bool device_found = false;
  std::string device_cause;              // why no device, when none
  std::vector<std::string> unavailable;  // what could not be read, and why
  nlohmann::ordered_json cupti = nullptr;
};

// The host, device `device` and its state, read now (also the header of `gpumeter run`'s record).
Environment read_environment(int device);

Command add_env_command(CLI::App& app);

}  // namespace gpumeter::cli
