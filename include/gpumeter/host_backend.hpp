#pragma once
// Times calls that run on the CPU with the host's steady clock (method host-wall). It runs
// the whole pipeline (calibrate, warm up, measure, compare) where there is no GPU, as in CI.
#include <memory>

#include "gpumeter/backend/backend.hpp"

namespace gpumeter {

std::unique_ptr<Backend> make_host_backend();

}  // namespace gpumeter
