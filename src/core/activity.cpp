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
