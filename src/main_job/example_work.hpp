#pragma once
// The bundled example work that gpumeter's main job measures: two implementations of one
// operation compared, and a null test (the same work at 1x and 4x, P6).
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/record.hpp"
#include "gpumeter/runner.hpp"

namespace gpumeter::example {

// Params that mark the two halves of a null test, so reports can find the pair in a record.

struct ExampleWork {
  std::string description;
  std::vector<Case> cases;
  std::shared_ptr<void> owner;  // keeps the buffers the calls use alive
};

// CPU work for the host backend: a reduction with one dependency chain against four.
ExampleWork host_example_work();

#ifdef GPUMETER_HAVE_CUDA
// GPU work for the CUDA backend on `device`.
ExampleWork cuda_example_work(int device);
#endif

}  // namespace gpumeter::example
