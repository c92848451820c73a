#pragma once
// gpumeter's public surface in one include: measure calls, compare implementations, run cases
// into a record, write and read records, render tables and comparisons from records.
// Backends: gpumeter/host_backend.hpp (always, included here) and gpumeter/cuda_backend.hpp
// (when built with CUDA; link gpumeter::cuda).
#include "gpumeter/backend.hpp"
#include "gpumeter/calibration.hpp"
#include "gpumeter/ceilings.hpp"
#include "gpumeter/columns.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/device.hpp"
#include "gpumeter/difference.hpp"
#include "gpumeter/duration.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/format.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/measurement.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/record_io.hpp"
#include "gpumeter/row.hpp"
#include "gpumeter/runner.hpp"
#include "gpumeter/sample.hpp"
#include "gpumeter/summary.hpp"
#include "gpumeter/table.hpp"
#include "gpumeter/timing_method.hpp"
#include "gpumeter/verdict.hpp"
#include "gpumeter/version.hpp"
