#pragma once
// gpumeter's user API in one include: everything README.md and examples/ show.
//   - measure a call, compare implementations:       measure.hpp, call.hpp, comparison.hpp
//   - benchmark programs (GPUMETER_BENCHMARK, GPUMETER_MAIN; link gpumeter::benchmark):
//                                                     benchmark.hpp
//   - run cases into a record, write and read it:    runner.hpp, record.hpp, record_io.hpp
//   - reports from records (tables, two records compared, shards merged):
//                                                     table.hpp, record_comparison.hpp,
//                                                     compare_table.hpp, merge.hpp,
//                                                     escape.hpp (record text made inert)
//   - per-range statistics of a program's NVTX ranges (the core's bookkeeping; its collector is
//     not built yet):                                ranges.hpp
//   - errors, each named by its cause, and their classes: errors.hpp, error_class.hpp
//   - the verdict on a candidate, from records:      candidate_verdict.hpp
// A backend to measure with: make_host_backend() (host_backend.hpp, included here) or, for GPU
// work, the CUDA backends of gpumeter/cuda.hpp (when built with CUDA; link gpumeter::cuda). Writing
// a backend of your own is the extension layer: gpumeter/backend/*.hpp.
#include "gpumeter/benchmark.hpp"
#include "gpumeter/board.hpp"
#include "gpumeter/calibration.hpp"
#include "gpumeter/call.hpp"
#include "gpumeter/candidate_verdict.hpp"
#include "gpumeter/ceilings.hpp"
#include "gpumeter/clock_state.hpp"
#include "gpumeter/compare_table.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/device.hpp"
#include "gpumeter/difference.hpp"
#include "gpumeter/duration.hpp"
#include "gpumeter/error_class.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/escape.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/format.hpp"
#include "gpumeter/growth.hpp"
#include "gpumeter/history.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/ledger.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/measurement.hpp"
#include "gpumeter/merge.hpp"
#include "gpumeter/phases.hpp"
#include "gpumeter/precision.hpp"
#include "gpumeter/program.hpp"
#include "gpumeter/ranges.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/record_comparison.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/reporter.hpp"
#include "gpumeter/row.hpp"
#include "gpumeter/run_recorder.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/sample.hpp"
#include "gpumeter/shard.hpp"
#include "gpumeter/summary.hpp"
#include "gpumeter/table.hpp"
#include "gpumeter/timestamp_check.hpp"
#include "gpumeter/timing_method.hpp"
#include "gpumeter/tolerance.hpp"
#include "gpumeter/total_n.hpp"
#include "gpumeter/verdict.hpp"
#include "gpumeter/version.hpp"
#include "gpumeter/wording.hpp"
