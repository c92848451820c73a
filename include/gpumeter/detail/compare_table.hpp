#pragma once
// `gpumeter compare`'s report: two records row by row (record_comparison.hpp), in markdown, every
// text that came from a record made inert for markdown (a record's text adds no markup to the
// table).
#include <optional>
#include <string>

#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// The records' identities and a note for each thing that limits what the table can say
// (different devices, a partial record); a table of every row in both records (statistic, both
// medians, the change and what it is found to be, by the rule of its statistic); the geometric
// mean of the device-time changes; the rows on one side only, each with why; the cases either
// record could not measure; and with a gate, the regressions beyond its threshold and its
// verdict (the conclusion's: conclude() judges the gate, the report words it), naming everything it
// could not see. Rendered whole, so a caller prints all or nothing.
std::string render_record_comparison(const Record& base, const Record& next,
                                     const RecordComparison& comparison,
                                     const CompareConclusion& conclusion);

}  // namespace gpumeter
