#pragma once
// The record reader's decoding (record_decode.cpp): each section of a record's document into its
// types, by the rules of the record's schema version, every value in its range; a value the
// section derives is checked as it is read (record_verify.hpp). Each refuses with InvalidRecord.
// Internal to gpumeter_record.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/device.hpp"
#include "gpumeter/record.hpp"
#include "record_fields.hpp"

namespace gpumeter::record_read {

// A row's params (an object of strings), the member "params" of `j`.
Params read_params(const Reader& r, const Doc& j, const std::string& where);

// The top level's sections, each from the document `doc`.
HostIdentity read_host(const Reader& r, const Doc& doc);
DeviceIdentity read_device(const Reader& r, const Doc& doc);
DeviceState read_device_state(const Reader& r, const Doc& doc);
RunConfig read_config(const Reader& r, const Doc& doc, int version);
std::vector<PhaseReading> read_phases(const Reader& r, const Doc& doc);
std::vector<MeasuredTotal> read_totals(const Reader& r, const Doc& doc);
std::vector<CandidateRuntime> read_runtimes(const Reader& r, const Doc& doc);
// nullopt where the record has no such section.
std::optional<ProgramRun> read_program(const Reader& r, const Doc& doc,
                                       const std::vector<Result>& results);
std::optional<ShardPlan> read_shard(const Reader& r, const Doc& doc);

// The ceilings object `j` (a record's, a journal line's or a ceilings file's).
Ceilings read_ceilings(const Reader& r, const Doc& j, int version);

// One row `j`, its summary checked against `ceilings`; one failure `jf`. `stored_flags`: the row
// holds its flags (a record's row from version 12; a journal's line holds none), read into
// Result::flags as stored, for check_row_flags once the record is finished.
Result read_result(const Reader& r, const Doc& j, const std::string& where,
                   const Ceilings& ceilings, int version, bool stored_flags = true);
Failure read_failure(const Reader& r, const Doc& jf, const std::string& where);

}  // namespace gpumeter::record_read
