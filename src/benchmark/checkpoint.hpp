#pragma once
// The sweep's checkpoint is the run's journal (run_recorder.hpp): what is left here is the header
// of a record no case has contributed to.
#include "gpumeter/record.hpp"

namespace gpumeter::program {

// A record no case has contributed to yet (every case failed, or none finished) still says when
// and by what it was made.
void complete_header(Record& run);

}  // namespace gpumeter::program
