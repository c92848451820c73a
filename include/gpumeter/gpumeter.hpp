#pragma once
// gpumeter's user API in one include: the user layer, one header per concept.
//   - measure a call, compare implementations:          measure.hpp
//   - benchmark programs (GPUMETER_BENCHMARK, GPUMETER_MAIN; link gpumeter::benchmark):
//                                                        benchmark.hpp
//   - run cases into a record:                           runner.hpp, record.hpp
//   - records written, read, merged, compared, judged:   records.hpp
//   - reports and tables from records:                   report.hpp
//   - errors, each named by its cause, and their classes: errors.hpp; exit codes: exit_codes.hpp
//   - the library's version:                             version.hpp
// A backend to measure with: make_host_backend() (host_backend.hpp, included here) or, for GPU
// work, the CUDA backends of gpumeter/cuda.hpp (when built with CUDA; link gpumeter::cuda). Writing
// a backend of your own is the extension layer: gpumeter/backend/*.hpp. The headers under
// gpumeter/detail/ hold the types and functions these include; include them through these.
#include "gpumeter/benchmark.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/records.hpp"
#include "gpumeter/report.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/version.hpp"
