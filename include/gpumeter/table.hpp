#pragma once
// Tables rendered from records only (SPEC P10): every cell is transcribed from a record, and a
// cell with no data reads "not measured".
#include <string>
#include <vector>

#include "gpumeter/record.hpp"

namespace gpumeter {

inline constexpr const char* kNotMeasured = "not measured";

// Times in tables carry 3 significant figures: enough to read a difference the 1.5x
// resolution (P5) could call, without pretending to more precision than a shared machine has.
inline constexpr int kTableTimeDigits = 3;

// `value` to `digits` significant figures in fixed notation, trailing zeros kept because they
// are significant: 12.0, 0.00123, 123000, -4.57. Non-finite values read "not measured".
std::string format_significant(double value, int digits);

// One row per result of every record, in order, then the deviations, per-row notes (fallback
// reasons, an unproven drop counter) and the source of every record (run id, device, device
// state, configuration). Times share one unit, named in the header (us, or ms when the
// largest median device_busy reaches 10 ms).
std::string render_markdown(const std::vector<Record>& records);

// The same rows for machines: RFC 4180 quoting, times in us at full precision, one column per
// number, "not measured" where a record has no data. No notes; the run_id column names the
// record of each row.
std::string render_csv(const std::vector<Record>& records);

}  // namespace gpumeter
