#pragma once
// Records, the only source of every table: written and read (strict, versioned, never
// overwritten), the shards of one sweep merged, two records compared row by row, records over
// commits, and the verdict on a candidate against its reference, all made from records alone.
#include "gpumeter/detail/candidate_verdict.hpp"
#include "gpumeter/detail/history.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/record.hpp"
