#pragma once
// Records, the only source of every table: written and read (strict, versioned, never
// overwritten), the shards of one sweep merged, two records compared row by row, all made from
// records alone. (The history site's model of records over commits and `gpumeter evaluate`'s
// verdicts on a candidate are the front ends' and not installed.)
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/record.hpp"
