#pragma once
// The part of a Session that depends on the build: which backends exist, how one is made and how
// the ceilings are measured. choice_cuda.cpp or choice_host.cpp, chosen by GPUMETER_HAVE_CUDA.
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/session.hpp"

namespace gpumeter::session_detail {

void check_timing_is_built(const SessionOptions& options);
std::string unusable_device(const SessionOptions& options);
// Throws ConfigError where this build cannot spread a sweep over GPUs (no CUDA backend).
void check_devices_are_built(const SessionOptions& options);

struct Chosen {
  std::unique_ptr<Backend> backend;
  // What the backend cache tells apart: two sessions of the same key share one backend.
  std::string key;
  // Where the choice departs from the protocol (the host clock taken for want of a GPU).
  std::vector<std::string> deviations;
};
// The backend the options ask for. Made only when `make` (the cache may hold it already); the
// key and the deviations always.
Chosen choose_backend(const SessionOptions& options, bool make);

// Measured by the backend that times the rows; throws whatever measuring throws.
Ceilings measure_device_ceilings(Backend& backend);
// The caller's word on sharing CUPTI with an idle client, given before each session uses it.
void set_cupti_sharing(bool share) noexcept;
void release_cupti() noexcept;

}  // namespace gpumeter::session_detail
