#include "gpumeter/version.hpp"

namespace gpumeter {
const char* version() {
  return GPUMETER_VERSION;
}
}  // namespace gpumeter
