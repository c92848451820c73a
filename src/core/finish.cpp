// A record's derived parts from its raw ones (record.hpp): the one place the summary and
// comparison rules are called for a record.
#include <algorithm>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

void summarize_result(Result& result, const Ceilings& ceilings) {
  const Measurement& m = result.measurement;
  result.summary = summarize(m.samples, m.method, m.retries, result.workload, ceilings);
}

void finish_comparisons(Record& record, int schema_version) {
  // A record of a later version than this build's rules is read by the rules it knows: the reader
  // refuses versions it cannot read before this is reached.
  record.comparisons =
      compare_results(record.results, std::min(schema_version, kComparisonRulesVersion));
}

void finish(Record& record, int schema_version) {
  for (Result& r : record.results) summarize_result(r, record.ceilings);
  finish_comparisons(record, schema_version);
}

}  // namespace gpumeter
