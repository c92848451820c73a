// Backend choice in a build without the CUDA backend: the host clock only.
#include "backend_choice.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"

namespace gpumeter {

void check_timing_is_built(const BackendChoice& choice) {
  if (choice.timing == "cupti" || choice.timing == "events") {
    throw ConfigError("--timing " + choice.timing +
                      " needs the CUDA backend, and this program was built without it; "
                      "--timing host times with the host clock");
  }
}

std::string unusable_device(const BackendChoice&) {
  return "";  // the host clock, the only choice check_timing_is_built lets through
}

ChosenBackend choose_backend(const BackendChoice& choice, bool) {
  check_timing_is_built(choice);
  ChosenBackend out;
  out.backend = make_host_backend();
  if (choice.timing.empty()) {
    out.deviations.push_back("host backend: this program was built without the CUDA backend");
  }
  return out;
}

}  // namespace gpumeter
