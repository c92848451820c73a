#pragma once
// Times calls that run on the CPU with the host's steady clock (method host-clock). It runs
// the whole pipeline (calibrate, warm up, measure, compare) where there is no GPU, as in CI.
#include <memory>

#include "gpumeter/backend/backend.hpp"

namespace gpumeter {

std::unique_ptr<Backend> make_host_backend();

// The host clock under a device id of its own, standing in for device `index` where there is no
// GPU (tests of spreading a sweep over the devices of a host): its device is the host CPU with
// index `index` and the uuid "stand-in-<index>", so each stand-in is a board of its own.
std::unique_ptr<Backend> make_host_stand_in_backend(int index);

}  // namespace gpumeter
