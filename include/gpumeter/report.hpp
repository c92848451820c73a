#pragma once
// Reports from records: the reporters (markdown, CSV, two records compared) and the tables they
// print, every cell transcribed from a record and every record's text made inert.
#include "gpumeter/detail/compare_table.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/records.hpp"
