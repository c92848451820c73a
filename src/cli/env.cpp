// `gpumeter env`: what a record made now would say about this machine.
#include "env.hpp"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command_options.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/device_state.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/host_info.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/version.hpp"
#ifdef GPUMETER_HAVE_CUDA
#include "gpumeter/cuda.hpp"
#include "gpumeter/cuda_environment.hpp"
#endif

namespace gpumeter::cli {

Environment read_environment(int device) {
  Environment env;
  env.record.run_id = "env";
  env.record.created_utc = utc_now_iso();
  env.record.gpumeter_version = version();
  env.record.host = read_host_identity();
  env.record.project_commit = project_commit();
#ifdef GPUMETER_HAVE_CUDA
  const CudaAvailability gpu = cuda_availability(device);
  if (gpu.usable) {
    env.device_found = true;
    env.record.device = cuda_device_identity(device);
    const DeviceStateReading reading = read_cuda_device_state(env.record.device);
    env.record.device_state = reading.state;
    env.unavailable = reading.unavailable;
    const CuptiStatus cupti = cupti_status();
    env.cupti = {
        {"usable", cupti.usable},
        {"version", cupti.version ? nlohmann::ordered_json(*cupti.version) : nullptr},
        {"library", cupti.library.empty() ? nullptr : nlohmann::ordered_json(cupti.library)},
        {"cause", cupti.cause.empty() ? nullptr : nlohmann::ordered_json(cupti.cause)},
        {"drop_counter_live",
         cupti.drop_counter_live ? nlohmann::ordered_json(*cupti.drop_counter_live) : nullptr}};
    return env;
  }
  env.device_cause = gpu.reason;
#else
  env.device_cause = "this gpumeter was built without the CUDA backend";
#endif
  // No CUDA device to name: NVML may still see one by its own index.
  const DeviceStateReading reading = read_device_state("", device);
  env.record.device_state = reading.state;
  env.unavailable = reading.unavailable;
#ifdef GPUMETER_HAVE_CUDA
  // The runtime's version (and the driver's and CUPTI's where they answer) need no device.
  for (std::string& why : add_cuda_versions(env.record.device_state)) {
    env.unavailable.push_back(std::move(why));
  }
#endif
  return env;
}

Command add_env_command(CLI::App& app) {
  struct Options {
    bool json = false;
    int device = 0;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "env", "Print the host, the device and its state as a record made now would hold them.");
  add_command_flag(*sub, "--json", options->json);
  add_command_option(*sub, "--device", options->device);
  sub->footer(exit_codes_help({{kExitOk, "printed (a machine without a GPU is described as it is)"},
                               {kExitUsage, "bad arguments"},
                               {kExitInternal}}));
  return {
      sub, [options](Io& io) {
        const Environment env = read_environment(options->device);
        // The record's own serializer gives the field names and the nulls.
        const nlohmann::ordered_json full = nlohmann::ordered_json::parse(serialize(env.record));
        if (options->json) {
          nlohmann::ordered_json j;
          j["gpumeter_version"] = full["gpumeter_version"];
          j["created_utc"] = full["created_utc"];
          j["project_commit"] = full["project_commit"];
          j["host"] = full["host"];
          j["device"] = env.device_found ? full["device"] : nlohmann::ordered_json(nullptr);
          j["device_unavailable"] = env.device_found ? nlohmann::ordered_json(nullptr)
                                                     : nlohmann::ordered_json(env.device_cause);
          j["device_state"] = full["device_state"];
          j["cupti"] = env.cupti;
          j["not_available"] = env.unavailable;
          io.out << j.dump(2) << "\n" << std::flush;
          return kExitOk;
        }
        std::string out = "gpumeter " + std::string(version()) + "\n";
        const HostIdentity& h = env.record.host;
        out += "host: " + inert_text(h.hostname) + ", " + inert_text(h.cpu_model) + ", " +
               (h.logical_cores ? std::to_string(*h.logical_cores) : "not available") +
               " logical cores, " + inert_text(h.os) + "\n";
        if (env.device_found) {
          const DeviceIdentity& d = env.record.device;
          out += "device: " + inert_text(device_label(d)) + ", " + inert_text(d.uuid) + ", " +
                 d.arch + "\n";
        } else {
          out += "device: not available: " + inert_text(env.device_cause) + "\n";
        }
        for (const auto& [key, value] : full["device_state"].items()) {
          out += "  " + key + ": " +
                 (value.is_null()     ? std::string("not available")
                  : value.is_string() ? inert_text(value.get<std::string>())
                                      : value.dump()) +
                 "\n";
        }
        if (!env.cupti.is_null()) {
          out +=
              "cupti: " + std::string(env.cupti["usable"].get<bool>() ? "usable" : "not usable") +
              (env.cupti["cause"].is_null()
                   ? std::string()
                   : ": " + inert_text(env.cupti["cause"].get<std::string>())) +
              "\n";
        }
        for (const std::string& why : env.unavailable)
          out += "not available: " + inert_text(why) + "\n";
        io.out << out << std::flush;
        return kExitOk;
      }};
}

}  // namespace gpumeter::cli
