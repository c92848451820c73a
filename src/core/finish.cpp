// A record's derived parts from its raw ones (record.hpp): the one place the summary, the null
// test, the row flags and the comparison rules are called for a record. Every front end reads what
// these set (tests/structure/one_of_each.sh fails on a second caller).
#include <algorithm>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {

void summarize_result(Result& result, const Ceilings& ceilings) {
  const Measurement& m = result.measurement;
  result.summary = summarize(m.samples, m.method, m.retries, result.workload, ceilings);
  // P6: from the scaled samples and the median just summarized.
  result.null_test_outcome = null_test_of(result);
}

void finish_record(Record& record, int schema_version) {
  // B4: low_clock is judged against the highest clock of the record's rows, so a row's flags are
  // the record's to set, once its rows are all in (a merge sets them again).
  const int record_mhz = highest_clock(record);
  for (Result& r : record.results) r.flags = row_flags(r, record_mhz);
  // A record of a later version than this build's rules is read by the rules it knows: the reader
  // refuses versions it cannot read before this is reached.
  record.comparisons =
      compare_results(record.results, std::min(schema_version, kComparisonRulesVersion));
}

void finish(Record& record, int schema_version) {
  for (Result& r : record.results) summarize_result(r, record.ceilings);
  finish_record(record, schema_version);
}

}  // namespace gpumeter
