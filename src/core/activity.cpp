#include "gpumeter/backend/trace.hpp"

namespace gpumeter {

const char* to_string(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kernel:
      return "kernel";
    case ActivityKind::memcpy:
      return "memcpy";
    case ActivityKind::memset:
      return "memset";
    case ActivityKind::region:
      return "region";
  }
  return "unknown";
}

}  // namespace gpumeter

namespace gpumeter {

std::uint64_t harness_id(HarnessRole role) {
  switch (role) {
    case HarnessRole::own:
      return kPrepareId;
    case HarnessRole::inputs:
      return kInputsId;
    case HarnessRole::reset:
      return kResetId;
    case HarnessRole::check:
      return kCheckId;
  }
  return kPrepareId;
}

std::optional<HarnessRole> harness_role(std::uint64_t id) {
  for (const HarnessRole role :
       {HarnessRole::own, HarnessRole::inputs, HarnessRole::reset, HarnessRole::check}) {
    if (harness_id(role) == id) return role;
  }
  return std::nullopt;
}

const char* to_string(HarnessRole role) {
  switch (role) {
    case HarnessRole::own:
      return "gpumeter's own";
    case HarnessRole::inputs:
      return "fresh inputs";
    case HarnessRole::reset:
      return "reset";
    case HarnessRole::check:
      return "check";
  }
  return "unknown";
}

}  // namespace gpumeter
