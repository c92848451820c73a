#pragma once
// The record reader's cross-checks (record_verify.cpp): a value a record derives is recomputed
// from what it derives from and must be what is stored, and the parts of a record must agree
// (rows, failures, phases, ledgers, the program and shard sections). Each refuses with
// InvalidRecord. Internal to gpumeter_record.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/record.hpp"
#include "record_fields.hpp"

namespace gpumeter::record_read {

// A stored derived number and the one recomputed agree (within kDerivedTolerance of the larger).
bool same(double a, double b);
// A number or null, as a message shows it.
std::string shown(const std::optional<double>& v);

// Of one row, as it is read: its summary (recomputed from its samples and kept) and its null test.
void check_summary(const Reader& r, Result& result, const Doc& js, const Ceilings& ceilings,
                   const std::string& where, int version);
void check_null_test(const Reader& r, const Doc& j, const std::string& where, const Result& result);

// Of sections, once read.
void check_config(const Reader& r, const RunConfig& c);
void check_program(const Reader& r, const ProgramRun& p, const std::vector<Result>& results);
void check_precision(const Reader& r, const std::vector<Result>& results, int version);
void check_statable(const Reader& r, const std::vector<Comparison>& derived);
// `results` finished (finish_record) against the flags their record stored, in their order.
void check_row_flags(const Reader& r, const std::vector<Result>& results,
                     const std::vector<RowFlags>& stored);
void check_comparisons(const Reader& r, const Doc& doc, const std::vector<Comparison>& derived,
                       int version);
// `where`: where each row was read, for a row twice.
void check_rows_unique(const Reader& r, const std::vector<Result>& results,
                       const std::vector<std::string>& where);

// Of the whole record.
void check_results_not_failed(const Reader& r, const Record& record);
void check_phase_rows(const Reader& r, const Record& record);
// `complete`: the record is not partial, so it accounts for each of its shard's cases.
void check_shard_rows(const Reader& r, const Record& record, bool complete);
void check_rows_measurable(const Reader& r, const Record& record);
// Each row's origin against the record's version and the rest of the record (B11): which rows
// need a ledger follows from these, never from a deviation.
void check_row_origins(const Reader& r, const Record& record, int version);

// A CUPTI row with samples and no ledger.
bool cupti_row_without_ledger(const Result& row);

}  // namespace gpumeter::record_read
