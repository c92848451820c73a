#include "gpumeter/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpumeter {
namespace {

std::string loss_note(bool loss_ruled_out) {
  if (loss_ruled_out) return "";
  return " The dropped-record counter is not proven live on this system, so lost records "
         "cannot be ruled out either.";
}

}  // namespace

RecordsLost::RecordsLost(std::uint64_t dropped, int attempts)
    : Error("CUPTI dropped " + std::to_string(dropped) + " activity record(s) in the last of " +
            std::to_string(attempts) +
            " attempt(s): the iterations ran but their readings are lost, so no number is "
            "reported. Lower the host load, or raise the activity buffer size."),
      dropped_(dropped),
      attempts_(attempts) {}

OffThreadLaunch::OffThreadLaunch(std::size_t n_orphans, const std::string& example_name,
                                 bool loss_ruled_out)
    : Error(std::to_string(n_orphans) + " kernel(s) (e.g. '" + example_name +
            "') carry no iteration id of this measurement: they were launched from a thread "
            "gpumeter did not tag (autograd engine, a library worker, another thread using "
            "the GPU). Launch the work from the calling thread (for PyTorch backward: "
            "torch.autograd.set_multithreading_enabled(False)), stop other GPU threads, or, if "
            "your code uses the same external-correlation kind, configure another one." +
            loss_note(loss_ruled_out)),
      n_orphans_(n_orphans) {}

AttributionError::AttributionError(std::size_t iteration, const std::string& why,
                                   bool loss_ruled_out)
    : Error("iteration " + std::to_string(iteration) + ": " + why + loss_note(loss_ruled_out)),
      iteration_(iteration) {}

WrongDevice::WrongDevice(std::size_t iteration, const std::string& name, std::uint32_t ran_on,
                         std::uint32_t measured)
    : Error("iteration " + std::to_string(iteration) + ": '" + name + "' ran on device " +
            std::to_string(ran_on) + ", but device " + std::to_string(measured) +
            " is the one measured (flushed, drained and named in the record); no number is "
            "reported. Measure the device the call's data lives on, or move the data.") {}

const char* error_name(const std::exception& error) {
  // Most derived first; the order only matters for classes that derive from one another.
  if (dynamic_cast<const RecordsLost*>(&error)) return "RecordsLost";
  if (dynamic_cast<const OffThreadLaunch*>(&error)) return "OffThreadLaunch";
  if (dynamic_cast<const AttributionError*>(&error)) return "AttributionError";
  if (dynamic_cast<const WrongDevice*>(&error)) return "WrongDevice";
  if (dynamic_cast<const CuptiUnavailable*>(&error)) return "CuptiUnavailable";
  if (dynamic_cast<const InputsModified*>(&error)) return "InputsModified";
  if (dynamic_cast<const VerificationFailed*>(&error)) return "VerificationFailed";
  if (dynamic_cast<const MixedTimingMethods*>(&error)) return "MixedTimingMethods";
  if (dynamic_cast<const IncomparableStatistics*>(&error)) return "IncomparableStatistics";
  if (dynamic_cast<const TimestampUnitMismatch*>(&error)) return "TimestampUnitMismatch";
  if (dynamic_cast<const DeviceError*>(&error)) return "DeviceError";
  if (dynamic_cast<const DeviceBusy*>(&error)) return "DeviceBusy";
  if (dynamic_cast<const InvalidRecord*>(&error)) return "InvalidRecord";
  if (dynamic_cast<const ConfigError*>(&error)) return "ConfigError";
  if (dynamic_cast<const Error*>(&error)) return "Error";
  return "std::exception";
}

InvalidRecord::InvalidRecord(const std::string& path, const std::string& problem)
    : Error(path + ": " + problem) {}

}  // namespace gpumeter
