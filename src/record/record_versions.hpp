#pragma once
// Schema versions in the record's reader (record_versions.cpp): which version a record is, the
// fields each later version added (refused in an older record, whose rules would drop them), and
// what an older record becomes once read. Internal to gpumeter_record.
#include <string>

#include "gpumeter/record.hpp"
#include "record_fields.hpp"

namespace gpumeter::record_read {

// Where a field sits in a record, for the table of fields added by later versions.
enum class Scope { top, config, ceilings, result, samples };

// The schema_version of a record's document: InvalidRecord for a file of another schema or of a
// version this gpumeter does not read.
int schema_version_of(const Reader& r, const Doc& doc);

// Refuses a field of `object` (at `scope`) that a later version than `version` added.
void refuse_newer_fields(const Reader& r, const Doc& object, const std::string& where, Scope scope,
                         int version);
// The same for the summary values, which the column list dates.
void refuse_newer_summary_values(const Reader& r, const Doc& summary, const std::string& where,
                                 int version);

// Gives the rows of a record of a version before 10 their origins (how each was measured) and the
// record whether it merged program runs, from what its version said of them; a record read from
// before version 8 whose CUPTI rows hold no ledger also says so in a deviation
// (kBeforeLedgersMark).
void assign_row_origins(Record& record, int version);

}  // namespace gpumeter::record_read
