// The record's reader: strict, bounded and linear in the text (record_io.hpp, parse_record), with
// the cross-checks that recompute every derived value from the raw samples; and the reader of a
// run's journal (run_journal.hpp), which gives the record of the cases it holds, marked partial.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/precision_width.hpp"
#include "gpumeter/row_checks.hpp"
#include "json_scan.hpp"
#include "record_json.hpp"

namespace gpumeter {
namespace record_json {

// Record text quoted in a message: control characters escaped, at most 80 characters, so a
// message about a forged record stays one harmless line.
std::string record_text(std::string_view text) {
  return quoted_text(text, 80);
}

// A relative difference is a ratio of times less one: finite and above -1. Passes 10^15 apart
// with a wide interval round a bound to exactly -1 (a factor of infinity: "infx faster") or
// overflow it; no measurement gives passes that far apart, and no sentence can state it.
std::string unstatable_comparison(const std::vector<Comparison>& derived) {
  for (std::size_t i = 0; i < derived.size(); ++i) {
    if (!derived[i].difference) continue;
    const RelativeDifference& d = *derived[i].difference;
    const auto ratio = [](double v) { return std::isfinite(v) && v > -1; };
    if (!ratio(d.estimate) || !ratio(d.low) || !ratio(d.high) ||
        !std::isfinite(d.smallest_detectable)) {
      return fmt::format(
          "the results of {} and {} give a relative difference beyond what a number can state "
          "(estimate {}, interval {} to {}, smallest detectable {}); no measurement gives "
          "passes that far apart",
          record_text(derived[i].baseline.implementation),
          record_text(derived[i].candidate.implementation), d.estimate, d.low, d.high,
          d.smallest_detectable);
    }
  }
  return {};
}

}  // namespace record_json

namespace {

using namespace record_json;

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& problem) const { throw InvalidRecord(path_, problem); }

  const Doc& field(const Doc& object, const std::string& where, std::string_view key) const {
    if (!object.is_object())
      fail(fmt::format("{} is not an object", where.empty() ? "top level" : where));
    auto it = object.find(key);
    if (it == object.end()) fail("missing field " + join(where, key));
    return *it;
  }

  static std::string join(const std::string& where, std::string_view key) {
    return where.empty() ? std::string(key) : where + "." + std::string(key);
  }

  void expect(bool ok, const Doc& value, const std::string& name, std::string_view wanted) const {
    if (!ok) {
      fail(fmt::format("field {}: expected {}, found {}", name, wanted, value.type_name()));
    }
  }

  // A string of at most kind.most bytes.
  std::string text_value(const Doc& v, const std::string& name, TextKind kind) const {
    expect(v.is_string(), v, name, "a string");
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > kind.most) {
      fail(fmt::format("field {}: {} bytes, more than the {} {} may hold", name, s.size(),
                       kind.most, kind.what));
    }
    return s;
  }

  std::string text(const Doc& object, const std::string& where, std::string_view key,
                   TextKind kind) const {
    return text_value(field(object, where, key), join(where, key), kind);
  }

  // A string where null means "not available" and reads as "".
  std::string text_or_empty(const Doc& object, const std::string& where, std::string_view key,
                            TextKind kind) const {
    return optional_text(object, where, key, kind).value_or(std::string());
  }

  std::optional<std::string> optional_text(const Doc& object, const std::string& where,
                                           std::string_view key, TextKind kind) const {
    const Doc& v = field(object, where, key);
    if (v.is_null()) return std::nullopt;
    expect(v.is_string(), v, join(where, key), "a string or null");
    return text_value(v, join(where, key), kind);
  }

  bool boolean(const Doc& object, const std::string& where, std::string_view key) const {
    const Doc& v = field(object, where, key);
    expect(v.is_boolean(), v, join(where, key), "true or false");
    return v.get<bool>();
  }

  template <typename Int>
  Int integer_value(const Doc& v, const std::string& name, Int lo = std::numeric_limits<Int>::min(),
                    Int hi = std::numeric_limits<Int>::max()) const {
    expect(v.is_number_integer(), v, name, "an integer");
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (std::cmp_less(u, lo) || std::cmp_greater(u, hi)) fail(out_of_range(name, u, lo, hi));
      return static_cast<Int>(u);
    }
    const auto s = v.get<std::int64_t>();
    if (std::cmp_less(s, lo) || std::cmp_greater(s, hi)) fail(out_of_range(name, s, lo, hi));
    return static_cast<Int>(s);
  }

  // Element i of an array, named (a string formatted) only when it is refused: a record holds
  // millions of elements.
  template <typename Int>
  Int integer_at(const Doc& array, std::size_t i, std::string_view array_name, Int lo,
                 Int hi) const {
    const Doc& v = array[i];
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (!std::cmp_less(u, lo) && !std::cmp_greater(u, hi)) return static_cast<Int>(u);
    }
    return integer_value<Int>(v, fmt::format("{}[{}]", array_name, i), lo, hi);
  }

  template <typename Int>
  Int integer(const Doc& object, const std::string& where, std::string_view key,
              Int lo = std::numeric_limits<Int>::min(),
              Int hi = std::numeric_limits<Int>::max()) const {
    return integer_value<Int>(field(object, where, key), join(where, key), lo, hi);
  }

  template <typename Int>
  std::optional<Int> optional_integer(const Doc& object, const std::string& where,
                                      std::string_view key,
                                      Int lo = std::numeric_limits<Int>::min(),
                                      Int hi = std::numeric_limits<Int>::max()) const {
    const Doc& v = field(object, where, key);
    if (v.is_null()) return std::nullopt;
    return integer_value<Int>(v, join(where, key), lo, hi);
  }

  // A finite number in [lo, hi]. The parser refuses numbers beyond a double's range; this
  // refuses the ones beyond the field's.
  double real_value(const Doc& v, const std::string& name, double lo, double hi) const {
    expect(v.is_number(), v, name, "a number");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi) {
      fail(fmt::format("field {}: {} is out of range [{}, {}]", name, x, lo, hi));
    }
    return x;
  }

  double real(const Doc& object, const std::string& where, std::string_view key, double lo,
              double hi) const {
    return real_value(field(object, where, key), join(where, key), lo, hi);
  }

  std::optional<double> optional_real(const Doc& object, const std::string& where,
                                      std::string_view key, double lo, double hi) const {
    const Doc& v = field(object, where, key);
    if (v.is_null()) return std::nullopt;
    return real_value(v, join(where, key), lo, hi);
  }

  // A duration in ms at the edge, back to integer ns inside.
  Nanos millis_as_nanos(const Doc& object, const std::string& where, std::string_view key) const {
    const double ms = real(object, where, key, 0, ms_of(kMaxNanos));
    return static_cast<Nanos>(std::round(ns_of(ms)));
  }

  const Doc& array(const Doc& object, const std::string& where, std::string_view key) const {
    const Doc& v = field(object, where, key);
    expect(v.is_array(), v, join(where, key), "an array");
    return v;
  }

  const Doc& object(const Doc& parent, const std::string& where, std::string_view key) const {
    const Doc& v = field(parent, where, key);
    expect(v.is_object(), v, join(where, key), "an object");
    return v;
  }

 private:
  template <typename Value, typename Int>
  static std::string out_of_range(const std::string& name, Value value, Int lo, Int hi) {
    return fmt::format("field {}: {} is out of range [{}, {}]", name, value, lo, hi);
  }

  const std::string& path_;
};

std::vector<Nanos> read_nanos(const Reader& r, const Doc& parent, const std::string& where,
                              std::string_view key) {
  const Doc& a = r.array(parent, where, key);
  const std::string name = Reader::join(where, key);
  std::vector<Nanos> values;
  values.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    values.push_back(r.integer_at<Nanos>(a, i, name, 0, static_cast<Nanos>(kMaxNanos)));
  }
  return values;
}

// A row's params: an object of strings.
Params read_params(const Reader& r, const Doc& j, const std::string& where) {
  Params params;
  // Members come in key order, so each goes at the end; each key, a name, is held to a name's
  // length by the parser; a value is named only when it is refused.
  for (const auto& [key, value] : r.object(j, where, "params").items()) {
    if (!value.is_string() || value.get_ref<const std::string&>().size() > kName.most) {
      r.text_value(value, Reader::join(where, "params") + "." + key, kName);  // throws
    }
    params.emplace_hint(params.end(), key, value.get_ref<const std::string&>());
  }
  return params;
}

RowKey read_row(const Reader& r, const Doc& j, const std::string& where) {
  RowKey row;
  row.case_name = r.text(j, where, "case", kName);
  row.implementation = r.text(j, where, "implementation", kName);
  row.params = read_params(r, j, where);
  return row;
}

// Where a field sits in a record, for the table of fields added by later versions.
enum class Scope { top, config, ceilings, result, samples };

// The fields each schema version added (record.hpp says why each was a new version), beyond the
// summary values, which the column list dates (Column::since_schema).
struct AddedField {
  Scope scope;
  std::string_view key;
  int since;
};
constexpr AddedField kAddedFields[] = {
    {Scope::top, "comparisons", 2},
    {Scope::result, "pass_sizes", 2},
    {Scope::result, "timestamp_tick_ns", 2},
    {Scope::config, "launch_cost_ns", 3},
    {Scope::result, "null_test", 3},
    {Scope::result, "memory", 3},
    {Scope::samples, "sm_clock_mhz", 3},
    {Scope::samples, "throttle_reasons", 3},
    {Scope::ceilings, "timing_method", 4},
    {Scope::ceilings, "statistic", 4},
    {Scope::ceilings, "rule", 4},
    {Scope::ceilings, "runs", 4},
    {Scope::result, "timestamp_check", 4},
    {Scope::result, "precision", 5},
    {Scope::top, "phases", 6},
    {Scope::top, "totals", 6},
    {Scope::top, "runtimes", 6},
    {Scope::top, "program", 7},
    {Scope::top, "shard", 7},
    {Scope::result, "board", 8},
};

// An older version is read by its own rules, which know nothing of what later versions added:
// such a field in it would be dropped unread (a version 3 row whose null test failed, relabelled
// version 2, read as a good row without its null test and memory). A record holding one is
// refused. Fields no version has are still ignored (adding one does not bump the version).
void refuse_newer_field(const Reader& r, const Doc& object, const std::string& where,
                        std::string_view key, int since, int version) {
  if (version >= since || !object.is_object() || !object.contains(key)) return;
  r.fail(fmt::format(
      "{} is a field of schema version {} in a record of schema_version {}, whose reading "
      "would drop it (a newer record relabelled?)",
      Reader::join(where, key), since, version));
}

void refuse_newer_fields(const Reader& r, const Doc& object, const std::string& where, Scope scope,
                         int version) {
  for (const AddedField& f : kAddedFields) {
    if (f.scope == scope) refuse_newer_field(r, object, where, f.key, f.since, version);
  }
}

// The summary values later versions added, dated by the column list.
void refuse_newer_summary_values(const Reader& r, const Doc& summary, const std::string& where,
                                 int version) {
  for (const Column& c : result_columns()) {
    if (c.summary_key.empty() || c.since_schema <= version) continue;
    if (c.summary_object.empty()) {
      refuse_newer_field(r, summary, where, c.summary_key, c.since_schema, version);
    } else if (summary.is_object()) {
      const auto holder = summary.find(c.summary_object);
      if (holder == summary.end()) continue;
      if (!holder->is_object()) {
        refuse_newer_field(r, summary, where, c.summary_object, c.since_schema, version);
      }
      refuse_newer_field(r, *holder, Reader::join(where, c.summary_object), c.summary_key,
                         c.since_schema, version);
    }
  }
}

// A stored derived number agrees with the one recomputed when they differ by at most
// kDerivedTolerance of the larger, a relative bound at every size (zero agrees only with zero).
// Non-finite values never agree: nothing the reader accepts is one.
bool same(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  return std::fabs(a - b) <= kDerivedTolerance * std::max(std::fabs(a), std::fabs(b));
}

std::string shown(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string("null");
}

// The raw samples are the evidence (P10): every summary value is recomputed from them (and the
// declared workload and ceilings) through the column list, compared with what is stored, and
// the recomputed summary is the one kept. A stored value the samples do not give means an
// altered record, or one written by a faulty tool.
void check_summary(const Reader& r, Result& result, const Doc& js, const Ceilings& ceilings,
                   const std::string& where, int version) {
  // The recomputed summary is the one kept; the stored values are only checked against it.
  summarize_result(result, ceilings);
  const Result& derived = result;
  const std::string sw = where + ".summary";
  for (const Column& c : result_columns()) {
    if (c.summary_key.empty()) continue;
    if (c.since_schema > version) continue;  // an older record has no such value
    const std::string object_where =
        c.summary_object.empty() ? sw : Reader::join(sw, c.summary_object);
    const Doc& holder = c.summary_object.empty() ? js : r.object(js, sw, c.summary_object);
    const std::string name = Reader::join(object_where, c.summary_key);
    const Doc& v = r.field(holder, object_where, c.summary_key);
    // As the record stores it: a time in ms, the unit its field names.
    std::optional<double> stored;
    if (c.kind == ColumnKind::flag && !v.is_null()) {
      r.expect(v.is_boolean(), v, name, c.nullable ? "true, false or null" : "true or false");
      stored = v.get<bool>() ? 1.0 : 0.0;
    } else if (!v.is_null()) {
      r.expect(v.is_number(), v, name, c.nullable ? "a number or null" : "a number");
      // In its column's range: 1e308 ms would be an infinite number of ns, which no comparison
      // can judge. (A gap may be a rounding below zero.)
      const double most = c.kind == ColumnKind::time    ? ms_of(kMaxNanos)
                          : c.kind == ColumnKind::count ? static_cast<double>(kMaxCount)
                                                        : std::numeric_limits<double>::max();
      stored = r.real_value(v, name, c.kind == ColumnKind::time ? -most : 0, most);
    } else if (!c.nullable) {
      r.expect(false, v, name, "a number");
    }
    // A value whose rule changed is checked by the rule its record was written under.
    const bool older = version < c.rule_since_schema && c.older_rule != nullptr;
    std::optional<double> want = older ? c.older_rule(derived) : number_of(c, derived);
    if (want && !std::isfinite(*want)) {
      r.fail(
          fmt::format("{}: the record's samples and declared workload give a value that is not "
                      "a finite number",
                      name));
    }
    if (want && c.kind == ColumnKind::time) want = ms_of(*want);
    if (stored.has_value() != want.has_value() || (stored && !same(*stored, *want))) {
      const auto text = [&](const std::optional<double>& x) {
        if (c.kind != ColumnKind::flag || !x) return shown(x);
        return std::string(*x != 0 ? "true" : "false");
      };
      r.fail(
          fmt::format("{} is {} but the record's samples give {}: the summary does not "
                      "describe the raw samples (altered record?)",
                      name, text(stored), text(want)));
    }
  }
}

// T14 (version 4): the phases whose timestamp unit was checked, and those converted. A scale
// is a foreign clock's units per ns: a converted phase's is never 1, an unconverted
// measurement's bounds are exactly 1.
void read_timestamp_check(const Reader& r, const Doc& j, const std::string& where, Measurement& m) {
  const Doc& tc = r.field(j, where, "timestamp_check");
  if (tc.is_null()) return;
  const std::string tw = where + ".timestamp_check";
  r.expect(tc.is_object(), tc, tw, "an object or null");
  TimestampCheck check;
  check.phases = r.integer<std::size_t>(tc, tw, "phases", 0, kMaxCount);
  check.converted = r.integer<std::size_t>(tc, tw, "converted", 0, check.phases);
  // A clock from microseconds to a 10 GHz counter: what a registered timestamp callback gives.
  constexpr double kLeast = 1e-4;
  constexpr double kMost = 1e4;
  check.min_scale = r.real(tc, tw, "min_scale", kLeast, kMost);
  check.max_scale = r.real(tc, tw, "max_scale", check.min_scale, kMost);
  if (check.converted == 0 && (check.min_scale != 1.0 || check.max_scale != 1.0)) {
    r.fail(fmt::format("{}: no phase was converted, yet the scales are {} to {} (altered record?)",
                       tw, check.min_scale, check.max_scale));
  }
  m.timestamp_check = check;
}

// B11: the ledger of a row (optional here: rows measured before it have none; a version 8 CUPTI
// row of gpumeter's own must have one, check_cupti_ledgers). A row with numbers has
// no unaccounted record and every canary it launched; fresh inputs and checks are of its
// iterations.
void read_ledger(const Reader& r, const Doc& j, const std::string& where, Measurement& m,
                 int version) {
  if (!j.is_object() || !j.contains("ledger")) return;
  const std::string lw = where + ".ledger";
  const Doc& lj = r.object(j, where, "ledger");
  Ledger l;
  l.iteration_records = r.integer<std::size_t>(lj, lw, "iteration_records", 0, kMaxCount);
  l.harness_records = r.integer<std::size_t>(lj, lw, "harness_records", 0, kMaxCount);
  l.unaccounted_records = r.integer<std::size_t>(lj, lw, "unaccounted_records", 0, 0);
  l.canaries_launched = r.integer<std::size_t>(lj, lw, "canaries_launched", 0, kMaxCount);
  l.canaries_seen =
      r.integer<std::size_t>(lj, lw, "canaries_seen", l.canaries_launched, l.canaries_launched);
  l.iterations = r.integer<std::size_t>(lj, lw, "iterations", 0, kMaxCount);
  l.fresh_inputs = r.integer<std::size_t>(lj, lw, "fresh_inputs", 0, l.iterations);
  l.checked_iterations = r.integer<std::size_t>(lj, lw, "checked_iterations", 0, l.iterations);
  if (l.iterations < m.samples.size()) {
    r.fail(
        fmt::format("{}.iterations: {} iterations in all phases, fewer than the row's {} "
                    "samples (altered record?)",
                    lw, l.iterations, m.samples.size()));
  }
  if (l.iteration_records < m.samples.size()) {
    r.fail(
        fmt::format("{}.iteration_records: {} records for {} samples, each of which is made "
                    "of at least one (altered record?)",
                    lw, l.iteration_records, m.samples.size()));
  }
  if (version >= 8) {
    // The harness's work by role: a part of its records, each role's time only with records, and
    // inputs and checks only where there were some.
    const auto role = [&](const char* records_key, const char* busy_key, std::size_t occurrences,
                          std::size_t& records, std::int64_t& busy) {
      records = r.integer<std::size_t>(lj, lw, records_key, 0, occurrences > 0 ? kMaxCount : 0);
      busy = r.integer<std::int64_t>(lj, lw, busy_key, 0,
                                     records > 0 ? static_cast<std::int64_t>(kMaxNanos) : 0);
    };
    role("inputs_records", "inputs_busy_ns", l.fresh_inputs, l.inputs_records, l.inputs_busy_ns);
    role("reset_records", "reset_busy_ns", l.iterations, l.reset_records, l.reset_busy_ns);
    role("check_records", "check_busy_ns", l.checked_iterations, l.check_records, l.check_busy_ns);
    if (l.inputs_records + l.reset_records + l.check_records > l.harness_records) {
      r.fail(
          fmt::format("{}.harness_records: {} records, fewer than those of its roles (altered "
                      "record?)",
                      lw, l.harness_records));
    }
    // B11: CUPTI's rows launch a canary before every iteration and check and after every phase;
    // a row with fewer proves nothing about collection being on while it ran.
    if (m.method == TimingMethod::cupti &&
        l.canaries_launched < l.iterations + l.checked_iterations + 1) {
      r.fail(fmt::format(
          "{}.canaries_launched: {} canaries for {} iterations and {} checks, where CUPTI's "
          "timing launches one before each and one after every phase: nothing proves collection "
          "was on while the row ran (altered record?)",
          lw, l.canaries_launched, l.iterations, l.checked_iterations));
    }
  }
  m.ledger = l;
}

// Version 5: a measurement run to a target precision. Its passes must be those the result holds
// (rounds of two), and the width it reached is checked against the passes once the whole case has
// been read (check_precision).
void read_precision(const Reader& r, const Doc& j, const std::string& where, Measurement& m) {
  const Doc& pj = r.field(j, where, "precision");
  if (pj.is_null()) return;
  const std::string pw = where + ".precision";
  r.expect(pj.is_object(), pj, pw, "an object or null");
  PrecisionOutcome p;
  p.target = r.real(pj, pw, "target", kMinPrecisionTarget, kMaxPrecisionTarget);
  p.max_time_ns = r.integer<Nanos>(pj, pw, "max_time_ns", kMinPrecisionTime, kMaxPrecisionTime);
  // No bound but a finite one: one pass a side at 99% gives widths of 10^8 (the stored figure is
  // checked against its passes below).
  p.reached = r.real(pj, pw, "reached", 0, std::numeric_limits<double>::max());
  p.passes = r.integer<int>(pj, pw, "passes", 2, static_cast<int>(kMaxCount));
  const std::string stopped = r.text(pj, pw, "stopped", kName);
  const std::optional<StopReason> reason = parse_stop_reason(stopped);
  if (!reason) r.fail(fmt::format("{}.stopped: unknown reason '{}'", pw, record_text(stopped)));
  p.stopped = *reason;
  p.elapsed_ns = r.integer<Nanos>(pj, pw, "elapsed_ns", 0, static_cast<Nanos>(kMaxNanos));
  if (p.passes % 2 != 0)
    r.fail(fmt::format("{}.passes: {} is not whole rounds of two", pw, p.passes));
  if (p.stopped == StopReason::target_reached && !(p.reached <= p.target)) {
    r.fail(fmt::format("{}: stopped on its target {} yet reached {} (altered record?)", pw,
                       p.target, p.reached));
  }
  m.precision = p;
}

// Every row of a case run to a target precision holds the same outcome, its pass count is the
// row's, and the width reached is what the rows' passes give (precision_width.hpp).
void check_precision(const Reader& r, const std::vector<Result>& results, int version) {
  std::map<std::string, std::vector<std::size_t>> cases;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RowKey& row = results[i].row;
    std::string key = row.case_name + '\x1f' + format_params(row.params);
    if (cases.find(key) == cases.end()) order.push_back(key);
    cases[key].push_back(i);
  }
  for (const std::string& key : order) {
    const std::vector<std::size_t>& rows = cases[key];
    const std::optional<PrecisionOutcome>& first = results[rows.front()].measurement.precision;
    std::vector<const Measurement*> ms;
    for (const std::size_t i : rows) {
      const Measurement& m = results[i].measurement;
      const std::string where = fmt::format("results[{}].precision", i);
      if (m.precision.has_value() != first.has_value()) {
        r.fail(
            fmt::format("{}: one row of a case ran to a target precision and another did not "
                        "(altered record?)",
                        where));
      }
      if (!m.precision) continue;
      const PrecisionOutcome& p = *m.precision;
      const PrecisionOutcome& f = *first;
      if (p.target != f.target || p.max_time_ns != f.max_time_ns || p.reached != f.reached ||
          p.passes != f.passes || p.stopped != f.stopped || p.elapsed_ns != f.elapsed_ns) {
        r.fail(fmt::format("{}: the rows of one case state different outcomes (altered record?)",
                           where));
      }
      if (static_cast<std::size_t>(p.passes) != m.pass_sizes.size()) {
        r.fail(fmt::format("{}.passes: {} stated, but the row holds {} passes (altered record?)",
                           where, p.passes, m.pass_sizes.size()));
      }
      ms.push_back(&m);
    }
    if (!first) continue;
    const IntervalRules rules = interval_rules_of(version);
    const std::optional<double> width = precision_reached(ms, rules);
    const double stored = first->reached;
    if (!width || std::fabs(*width - stored) > 1e-9 * std::max(1.0, std::fabs(stored))) {
      r.fail(
          fmt::format("results[{}].precision.reached: {} stated, but its passes give {} "
                      "(altered record?)",
                      rows.front(), stored, width ? fmt::format("{}", *width) : "none"));
    }
    // The outcome a table states ("target reached after 64 passes", "the time cap") is what the
    // stop rule gives for these passes, and its elapsed time what they can have taken.
    if (const std::string problem = precision_outcome_problem(ms, *first, rules);
        !problem.empty()) {
      r.fail(fmt::format("results[{}].precision.{} (altered record?)", rows.front(), problem));
    }
  }
}

// Samples' clock state (B4), the null test's samples (P6) and the case's memory (P7).
void read_version_3_fields(const Reader& r, const Doc& j, const std::string& where,
                           Result& result) {
  Measurement& m = result.measurement;
  const std::string pw = where + ".samples";
  const Doc& samples = r.object(j, where, "samples");
  const Doc& mhz = r.field(samples, pw, "sm_clock_mhz");
  const Doc& reasons = r.field(samples, pw, "throttle_reasons");
  if (mhz.is_null() != reasons.is_null()) {
    r.fail(fmt::format("{}: sm_clock_mhz and throttle_reasons must both be null or both be lists",
                       pw));
  }
  if (!mhz.is_null()) {
    r.expect(mhz.is_array(), mhz, pw + ".sm_clock_mhz", "an array or null");
    r.expect(reasons.is_array(), reasons, pw + ".throttle_reasons", "an array or null");
    if (mhz.size() != m.samples.size() || reasons.size() != m.samples.size()) {
      r.fail(fmt::format("{}: the clock readings number {} and {}, the samples {}", pw, mhz.size(),
                         reasons.size(), m.samples.size()));
    }
    for (std::size_t i = 0; i < m.samples.size(); ++i) {
      ClockReading c;
      c.sm_mhz = r.integer_at<int>(mhz, i, pw + ".sm_clock_mhz", 0, 1'000'000);
      c.throttle_reasons = r.integer_at<std::uint64_t>(reasons, i, pw + ".throttle_reasons", 0,
                                                       std::numeric_limits<std::uint64_t>::max());
      m.samples[i].clock = c;
    }
  }

  const Doc& nt = r.field(j, where, "null_test");
  if (!nt.is_null()) {
    const std::string nw = where + ".null_test";
    r.expect(nt.is_object(), nt, nw, "an object or null");
    NullTestSamples n;
    n.scale = r.integer<int>(nt, nw, "scale", 1, 1'000'000);
    n.scaled_ns = read_nanos(r, nt, nw, "scaled_ns");
    m.null_test = std::move(n);
  }

  const std::string mw = where + ".memory";
  const Doc& memory = r.object(j, where, "memory");
  const long long most = std::numeric_limits<long long>::max();
  result.memory.gpu_context_floor_bytes =
      r.optional_integer<long long>(memory, mw, "gpu_context_floor_bytes", 0, most);
  result.memory.gpu_after_case_bytes =
      r.optional_integer<long long>(memory, mw, "gpu_after_case_bytes", 0, most);
  result.memory.host_peak_rss_bytes =
      r.optional_integer<long long>(memory, mw, "host_peak_rss_bytes", 0, most);
  result.memory.own_process = r.boolean(memory, mw, "own_process");
  result.memory.host_peak_reset = r.boolean(memory, mw, "host_peak_reset");
}

// B10 (version 8): the board a row ran on, its clocks as read when its run began (whole MHz as
// NVML reads them, as the device state's).
Board read_board(const Reader& r, const Doc& j, const std::string& where) {
  const std::string bw = where + ".board";
  const Doc& board = r.object(j, where, "board");
  Board b;
  b.uuid = r.text_or_empty(board, bw, "uuid", kName);
  b.name = r.text(board, bw, "name", kName);
  b.sm_clock_mhz = r.optional_integer<int>(board, bw, "sm_clock_mhz", 0, kMaxClockMhz);
  b.sm_clock_max_mhz = r.optional_integer<int>(board, bw, "sm_clock_max_mhz", 0, kMaxClockMhz);
  b.memory_clock_mhz = r.optional_integer<int>(board, bw, "memory_clock_mhz", 0, kMaxClockMhz);
  return b;
}

// The stored ratio and pass of a null test are derived: they must be what its samples give.
void check_null_test(const Reader& r, const Doc& j, const std::string& where,
                     const Result& result) {
  const std::optional<NullTestOutcome> n = null_test_of(result);
  if (!n) return;
  const std::string nw = where + ".null_test";
  const Doc& nt = r.object(j, where, "null_test");
  const std::optional<double> ratio =
      r.optional_real(nt, nw, "ratio", 0, std::numeric_limits<double>::max());
  const bool pass = r.boolean(nt, nw, "pass");
  const bool ratio_ok = n->verdict ? ratio && same(*ratio, n->verdict->observed_ratio) : !ratio;
  if (!ratio_ok || pass == n->failed()) {
    r.fail(fmt::format("{} does not match what its samples give ({}) (altered record?)", nw,
                       describe(*n)));
  }
}

Result read_result(const Reader& r, const Doc& j, const std::string& where,
                   const Ceilings& ceilings, int version) {
  if (!j.is_object()) {
    r.fail(fmt::format("field {}: expected an object, found {}", where, j.type_name()));
  }
  refuse_newer_fields(r, j, where, Scope::result, version);
  Result result;
  result.row = read_row(r, j, where);

  result.count_copies = r.boolean(j, where, "count_copies");
  Measurement& m = result.measurement;
  const std::string method_text = r.text(j, where, "timing_method", kName);
  const std::optional<TimingMethod> method = parse_timing_method(method_text);
  if (!method) {
    r.fail(
        fmt::format("field {}.timing_method: unknown method {}", where, record_text(method_text)));
  }
  m.method = *method;
  const std::string statistic_text = r.text(j, where, "statistic", kName);
  const std::string_view expected_statistic = to_string(statistic_of(m.method));
  if (statistic_text != expected_statistic) {
    r.fail(fmt::format(
        "field {}.statistic: {} does not belong to timing_method \"{}\" (expected \"{}\")", where,
        record_text(statistic_text), to_string(m.method), expected_statistic));
  }
  m.reason = r.text(j, where, "reason", kText);
  m.retries = r.integer<int>(j, where, "retries", 0, static_cast<int>(kMaxCount));
  m.warmup_iterations = r.integer<std::size_t>(j, where, "warmup_iterations", 0, kMaxCount);
  m.measure_iterations = r.integer<std::size_t>(j, where, "measure_iterations", 0, kMaxCount);
  m.estimate_ns = r.millis_as_nanos(j, where, "estimate_ms");
  m.drop_counter_live = r.boolean(j, where, "drop_counter_live");

  const std::string workload_where = where + ".workload";
  const Doc& workload = r.object(j, where, "workload");
  result.workload.flops = r.optional_real(workload, workload_where, "flops", 0, kMaxWork);
  result.workload.bytes = r.optional_real(workload, workload_where, "bytes", 0, kMaxWork);

  const std::string pw = where + ".samples";
  const Doc& samples = r.object(j, where, "samples");
  refuse_newer_fields(r, samples, pw, Scope::samples, version);
  const std::vector<Nanos> busy = read_nanos(r, samples, pw, "device_busy_ns");
  const std::vector<Nanos> latency = read_nanos(r, samples, pw, "latency_ns");
  const std::vector<Nanos> copies = read_nanos(r, samples, pw, "uncounted_copy_ns");
  const Doc& kernels = r.field(samples, pw, "n_kernels");
  r.expect(kernels.is_null() || kernels.is_array(), kernels, pw + ".n_kernels", "an array or null");

  const std::string sw = where + ".summary";
  const Doc& js = r.object(j, where, "summary");
  refuse_newer_summary_values(r, js, sw, version);
  const std::size_t n = r.integer<std::size_t>(js, sw, "n_samples", 0, kMaxCount);
  if (n == 0) r.fail(fmt::format("{} has no samples (summary.n_samples is 0)", where));
  auto check_length = [&](std::size_t length, std::string_view name) {
    if (length != n) {
      r.fail(fmt::format("{}.{} holds {} samples but {}.n_samples is {}", pw, name, length, sw, n));
    }
  };
  check_length(busy.size(), "device_busy_ns");
  check_length(latency.size(), "latency_ns");
  check_length(copies.size(), "uncounted_copy_ns");
  if (kernels.is_array()) check_length(kernels.size(), "n_kernels");

  m.samples.resize(n);
  const std::string kernels_name = pw + ".n_kernels";
  for (std::size_t i = 0; i < n; ++i) {
    Sample& sample = m.samples[i];
    sample.device_busy_ns = busy[i];
    sample.latency_ns = latency[i];
    sample.uncounted_copy_ns = copies[i];
    if (kernels.is_array() && !kernels[i].is_null()) {
      sample.n_kernels =
          r.integer_at<int>(kernels, i, kernels_name, 0, static_cast<int>(kMaxCount));
    }
    if (sample.latency_ns < sample.device_busy_ns) {
      r.fail(
          fmt::format("{}: sample {} has latency {} ns below its device_busy {} ns, which no "
                      "measurement gives",
                      pw, i, sample.latency_ns, sample.device_busy_ns));
    }
  }

  if (version >= 3) read_version_3_fields(r, j, where, result);
  if (version >= 4) read_timestamp_check(r, j, where, m);
  if (version >= 5) read_precision(r, j, where, m);
  if (version >= 7) read_ledger(r, j, where, m, version);
  if (version >= 8) result.board = read_board(r, j, where);

  if (version >= 2) {
    m.timestamp_tick_ns = r.integer<Nanos>(j, where, "timestamp_tick_ns", 1, 1'000'000);
    const Doc& sizes = r.array(j, where, "pass_sizes");
    const std::string sizes_name = where + ".pass_sizes";
    std::size_t total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto size = r.integer_at<std::size_t>(sizes, i, sizes_name, 1, kMaxCount);
      m.pass_sizes.push_back(size);
      total += size;
    }
    if (total != n) {
      r.fail(fmt::format("{}.pass_sizes add up to {} samples but the result holds {}", where, total,
                         n));
    }
  } else {
    // Version 1 kept no pass boundaries: one pass of unknown tick, which the interval rule
    // refuses rather than guesses.
    m.pass_sizes = {n};
  }

  check_summary(r, result, js, ceilings, where, version);
  if (version >= 3) check_null_test(r, j, where, result);
  return result;
}

void check_statable(const Reader& r, const std::vector<Comparison>& derived) {
  if (const std::string problem = unstatable_comparison(derived); !problem.empty()) r.fail(problem);
}

// Stored comparisons must be exactly the ones the results give (they are derived values).
void check_comparisons(const Reader& r, const Doc& doc, const std::vector<Comparison>& derived,
                       int version) {
  const Doc& stored = r.array(doc, "", "comparisons");
  if (stored.size() != derived.size()) {
    r.fail(
        fmt::format("the record stores {} comparisons but its results give {} (altered "
                    "record?)",
                    stored.size(), derived.size()));
  }
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const std::string where = fmt::format("comparisons[{}]", i);
    const Doc& j = stored[i];
    r.expect(j.is_object(), j, where, "an object");
    const Comparison& want = derived[i];
    const auto mismatch = [&](std::string_view what) {
      r.fail(fmt::format("{}.{} does not match what the record's results give (altered record?)",
                         where, what));
    };
    if (r.text(j, where, "case", kName) != want.baseline.case_name) mismatch("case");
    if (read_params(r, j, where) != want.baseline.params) mismatch("params");
    if (r.text(j, where, "baseline", kName) != want.baseline.implementation) mismatch("baseline");
    if (r.text(j, where, "candidate", kName) != want.candidate.implementation)
      mismatch("candidate");
    if (r.text(j, where, "statistic", kName) != to_string(want.statistic)) mismatch("statistic");
    if (r.text(j, where, "rule", kName) != to_string(want.rule)) mismatch("rule");
    if (r.text(j, where, "refusal", kText) != want.refusal) mismatch("refusal");
    const Doc& d = r.field(j, where, "difference");
    if (d.is_null() != !want.difference.has_value()) mismatch("difference");
    if (want.difference) {
      const std::string dw = where + ".difference";
      const RelativeDifference& w = *want.difference;
      const double inf = std::numeric_limits<double>::max();
      if (!same(r.real(d, dw, "estimate", -1, inf), w.estimate)) mismatch("difference.estimate");
      if (!same(r.real(d, dw, "low", -1, inf), w.low)) mismatch("difference.low");
      if (!same(r.real(d, dw, "high", -1, inf), w.high)) mismatch("difference.high");
      if (!same(r.real(d, dw, "confidence", 0, 1), w.confidence)) mismatch("difference.confidence");
      if (!same(r.real(d, dw, "smallest_detectable", 0, inf), w.smallest_detectable)) {
        mismatch("difference.smallest_detectable");
      }
      if (r.integer<int>(d, dw, "degrees_of_freedom", 0, 1'000'000) != w.degrees_of_freedom) {
        mismatch("difference.degrees_of_freedom");
      }
      if (r.integer<Nanos>(d, dw, "timestamp_tick_ns", 1, 1'000'000) != w.timestamp_tick_ns) {
        mismatch("difference.timestamp_tick_ns");
      }
    }
    if (version >= kMovedWorkRulesSince) {
      const double most = std::numeric_limits<double>::max();
      if (!same(r.real(j, where, "baseline_mean_ns", 0, most), want.baseline_mean_ns)) {
        mismatch("baseline_mean_ns");
      }
      if (!same(r.real(j, where, "candidate_mean_ns", 0, most), want.candidate_mean_ns)) {
        mismatch("candidate_mean_ns");
      }
      const Doc& inputs = r.field(j, where, "inputs");
      const std::string want_inputs =
          want.fresh_inputs ? (*want.fresh_inputs ? "fresh" : "fixed") : "";
      if (inputs.is_null() != want_inputs.empty()) mismatch("inputs");
      if (!want_inputs.empty() && r.text(j, where, "inputs", kName) != want_inputs) {
        mismatch("inputs");
      }
    }
    const Doc& ratio = r.field(j, where, "ratio");
    if (ratio.is_null() != !want.ratio.has_value()) mismatch("ratio");
    if (want.ratio) {
      const std::string rw = where + ".ratio";
      if (!same(r.real(ratio, rw, "speedup", 0, std::numeric_limits<double>::max()),
                want.ratio->speedup)) {
        mismatch("ratio.speedup");
      }
      if (r.text(ratio, rw, "resolution", kName) != to_string(want.ratio->resolution)) {
        mismatch("ratio.resolution");
      }
    }
  }
}

// The ceilings (T8). From version 4 they carry the method, statistic and rule that timed them
// and each run's samples; the values are recomputed from those and must be what is stored.
// Older records hold the values alone (event-timed, the best of 10 runs), kept as read.
Ceilings read_ceilings(const Reader& r, const Doc& j, int version) {
  const std::string w = "ceilings";
  Ceilings c;
  // A ceiling of zero would make every percentage infinite: a ceiling is positive or absent.
  c.flops_per_s = r.optional_real(j, w, "flops_per_s", 1e-300, kMaxWork);
  c.bytes_per_s = r.optional_real(j, w, "bytes_per_s", 1e-300, kMaxWork);
  refuse_newer_fields(r, j, w, Scope::ceilings, version);
  if (version < 4) return c;

  const std::optional<std::string> method_text = r.optional_text(j, w, "timing_method", kName);
  const std::optional<std::string> statistic = r.optional_text(j, w, "statistic", kName);
  const std::optional<std::string> rule = r.optional_text(j, w, "rule", kName);
  const Doc& runs = r.array(j, w, "runs");
  if (!method_text) {
    // Ceilings carried over from an older record (a merge, a record read and written back).
    if (statistic || rule || !runs.empty()) {
      r.fail("ceilings: a statistic, rule or runs without the timing_method that timed them");
    }
    return c;
  }
  const std::optional<TimingMethod> method = parse_timing_method(*method_text);
  if (!method) {
    r.fail(
        fmt::format("field ceilings.timing_method: unknown method {}", record_text(*method_text)));
  }
  const std::string_view want_statistic = to_string(statistic_of(*method));
  if (statistic != want_statistic) {
    r.fail(fmt::format(
        "field ceilings.statistic: {} does not belong to timing_method \"{}\" (expected \"{}\")",
        statistic ? record_text(*statistic) : "null", to_string(*method), want_statistic));
  }
  if (rule != kCeilingRule) {
    r.fail(fmt::format("field ceilings.rule: {} is not a rule this gpumeter knows (\"{}\")",
                       rule ? record_text(*rule) : "null", kCeilingRule));
  }
  std::vector<CeilingRun> read_runs;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string rw = fmt::format("ceilings.runs[{}]", i);
    const Doc& jr = runs[i];
    r.expect(jr.is_object(), jr, rw, "an object");
    CeilingRun run;
    const std::string kind = r.text(jr, rw, "ceiling", kName);
    const std::optional<CeilingKind> k = parse_ceiling_kind(kind);
    if (!k) r.fail(fmt::format("field {}.ceiling: unknown ceiling {}", rw, record_text(kind)));
    run.kind = *k;
    run.work = r.text(jr, rw, "work", kText);
    // At least a byte or an operation per call: the rate stays finite, and so does every
    // percentage of it.
    run.per_call = r.real(jr, rw, "per_call", 1, kMaxWork);
    run.samples_ns = read_nanos(r, jr, rw, "samples_ns");
    if (run.samples_ns.empty()) r.fail(fmt::format("{} has no samples", rw));
    if (*std::min_element(run.samples_ns.begin(), run.samples_ns.end()) <= 0) {
      r.fail(fmt::format("{}.samples_ns holds a sample of 0 ns, which gives no rate", rw));
    }
    read_runs.push_back(std::move(run));
  }
  const Ceilings derived = ceilings_from_runs(*method, std::move(read_runs));
  const auto check = [&](std::string_view key, const std::optional<double>& stored,
                         const std::optional<double>& want) {
    if (stored.has_value() != want.has_value() || (stored && !same(*stored, *want))) {
      r.fail(
          fmt::format("ceilings.{} is {} but its runs give {} ({}: the fastest sample of the "
                      "best run; altered record?)",
                      key, shown(stored), shown(want), kCeilingRule));
    }
  };
  check("flops_per_s", c.flops_per_s, derived.flops_per_s);
  check("bytes_per_s", c.bytes_per_s, derived.bytes_per_s);
  return derived;
}

Failure read_failure(const Reader& r, const Doc& jf, const std::string& where) {
  r.expect(jf.is_object(), jf, where, "an object");
  Failure f;
  f.row = read_row(r, jf, where);
  f.error = r.text(jf, where, "error", kName);
  f.message = r.text(jf, where, "message", kText);
  return f;
}

// A name the record spells as one of a fixed set (a phase, a setting, a statistic).
template <typename T>
T read_named(const Reader& r, const Doc& j, const std::string& where, std::string_view key,
             std::optional<T> (*parse)(std::string_view), std::string_view what) {
  const std::string text = r.text(j, where, key, kName);
  const std::optional<T> value = parse(text);
  if (!value) {
    r.fail(
        fmt::format("field {}: {} is not {}", Reader::join(where, key), record_text(text), what));
  }
  return *value;
}

std::vector<Nanos> read_samples(const Reader& r, const Doc& j, const std::string& where) {
  std::vector<Nanos> samples = read_nanos(r, j, where, "samples_ns");
  if (samples.empty()) r.fail(fmt::format("{}.samples_ns is empty: a phase with no sample", where));
  return samples;
}

// The phases a user waits for (version 6): each in a statistic and a setting it may be taken in,
// each (row, phase, setting, statistic) once, so no reader has to choose between two.
std::vector<PhaseReading> read_phases(const Reader& r, const Doc& doc) {
  std::vector<PhaseReading> phases;
  std::set<std::tuple<RowKey, int, int, int>> seen;
  const Doc& a = r.array(doc, "", "phases");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string w = fmt::format("phases[{}]", i);
    r.expect(a[i].is_object(), a[i], w, "an object");
    PhaseReading p;
    p.row = read_row(r, a[i], w);
    p.phase = read_named<Phase>(r, a[i], w, "phase", parse_phase, "a phase gpumeter knows");
    p.statistic = read_named<Statistic>(r, a[i], w, "statistic", parse_statistic, "a statistic");
    p.setting = read_named<PhaseSetting>(r, a[i], w, "setting", parse_phase_setting,
                                         "fresh_cold, fresh_cached or warm_process");
    if (!phase_allows(p.phase, p.setting) || !phase_allows(p.phase, p.statistic)) {
      r.fail(fmt::format("{}: phase {} cannot be taken as {} in setting {}", w, to_string(p.phase),
                         to_string(p.statistic), to_string(p.setting)));
    }
    p.samples_ns = read_samples(r, a[i], w);
    p.recaptures = r.optional_integer<int>(a[i], w, "recaptures", 1);
    if (p.recaptures && p.phase != Phase::graph_capture) {
      r.fail(fmt::format("{}.recaptures: only a graph capture has recaptures", w));
    }
    if (!seen.emplace(p.row, static_cast<int>(p.phase), static_cast<int>(p.setting),
                      static_cast<int>(p.statistic))
             .second) {
      r.fail(fmt::format("{}: {} of {} appears twice", w, to_string(p.phase),
                         record_text(row_label(p.row))));
    }
    phases.push_back(std::move(p));
  }
  return phases;
}

std::vector<MeasuredTotal> read_totals(const Reader& r, const Doc& doc) {
  std::vector<MeasuredTotal> totals;
  std::set<std::tuple<RowKey, int, int>> seen;
  const Doc& a = r.array(doc, "", "totals");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string w = fmt::format("totals[{}]", i);
    r.expect(a[i].is_object(), a[i], w, "an object");
    MeasuredTotal t;
    t.row = read_row(r, a[i], w);
    t.calls = r.integer<int>(a[i], w, "calls", 1, kMaxTotalCalls);
    t.setting = read_named<PhaseSetting>(r, a[i], w, "setting", parse_phase_setting,
                                         "fresh_cold or fresh_cached");
    if (t.setting == PhaseSetting::warm_process) {
      r.fail(fmt::format("{}.setting: a measured total starts in a fresh process", w));
    }
    t.samples_ns = read_samples(r, a[i], w);
    if (!seen.emplace(t.row, t.calls, static_cast<int>(t.setting)).second) {
      r.fail(fmt::format("{}: the total of {} calls of {} appears twice", w, t.calls,
                         record_text(row_label(t.row))));
    }
    totals.push_back(std::move(t));
  }
  return totals;
}

std::vector<CandidateRuntime> read_runtimes(const Reader& r, const Doc& doc) {
  std::vector<CandidateRuntime> runtimes;
  std::set<std::string> seen;
  const Doc& a = r.array(doc, "", "runtimes");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string w = fmt::format("runtimes[{}]", i);
    r.expect(a[i].is_object(), a[i], w, "an object");
    CandidateRuntime c;
    c.implementation = r.text(a[i], w, "implementation", kName);
    c.runtime = r.text(a[i], w, "runtime", kName);
    c.version = r.text(a[i], w, "version", kName);
    c.device_alias = r.text(a[i], w, "device_alias", kName);
    c.arch = r.text(a[i], w, "arch", kName);
    c.synchronized_by = r.text(a[i], w, "synchronized_by", kName);
    const Doc& notes = r.array(a[i], w, "notes");
    for (std::size_t k = 0; k < notes.size(); ++k) {
      c.notes.push_back(r.text_value(notes[k], fmt::format("{}.notes[{}]", w, k), kText));
    }
    if (!seen.insert(c.implementation).second) {
      r.fail(fmt::format("{}: the runtime of {} appears twice", w, record_text(c.implementation)));
    }
    runtimes.push_back(std::move(c));
  }
  return runtimes;
}

// What the program section states is what its parts can give (docs/records.md): every run had a
// process that wrote a part, and every kernel group or launch is of a process of its run; a group
// outside the ranges holds a kernel (copies and fills only when they were counted); and every
// instance of a range was opened and closed by two of the range events its processes recorded.
void check_program(const Reader& r, const ProgramRun& p, const std::vector<Result>& results) {
  std::set<std::pair<std::size_t, long>> known;
  std::vector<bool> run_seen(p.runs + 1, false);
  std::size_t events = 0;
  for (const ProgramProcess& q : p.processes) {
    known.emplace(q.run, q.pid);
    run_seen[q.run] = true;
    events += q.range_events;
  }
  for (std::size_t run = 1; run <= p.runs; ++run) {
    if (!run_seen[run]) {
      r.fail(
          fmt::format("program.processes: no process of run {} of {}, whose parts the rows "
                      "were read from (altered record?)",
                      run, p.runs));
    }
  }
  const bool copies_counted =
      std::any_of(results.begin(), results.end(), [](const Result& x) { return x.count_copies; });
  for (const Result& x : results) {
    if (x.count_copies != copies_counted) {
      r.fail(
          fmt::format("results: the row {} counts copies and another does not, in one run of "
                      "one program (altered record?)",
                      record_text(row_label(x.row))));
    }
  }
  for (std::size_t i = 0; i < p.outside.size(); ++i) {
    const ProgramOutsideKernels& o = p.outside[i];
    if (known.count({o.run, o.pid}) == 0) {
      r.fail(fmt::format("program.outside[{}].pid: {} is no process of run {} (altered record?)", i,
                         o.pid, o.run));
    }
    if (o.n_kernels < 1 && !copies_counted) {
      r.fail(
          fmt::format("program.outside[{}].n_kernels: 0; a group outside the ranges holds at "
                      "least one kernel (copies and fills only when counted; altered record?)",
                      i));
    }
  }
  for (std::size_t i = 0; i < p.launches_without_work.size(); ++i) {
    const ProgramLaunchesWithoutWork& l = p.launches_without_work[i];
    if (known.count({l.run, l.pid}) == 0) {
      r.fail(fmt::format(
          "program.launches_without_work[{}].pid: {} is no process of run {} (altered record?)", i,
          l.pid, l.run));
    }
  }
  std::size_t instances = 0;
  for (const ProgramRange& g : p.ranges) instances += g.instances;
  if (instances > events / 2) {
    r.fail(
        fmt::format("program.ranges: {} instances, but the processes recorded {} range events, "
                    "and each instance is two (its opening and its closing; altered record?)",
                    instances, events));
  }
}

// A program timed by its NVTX ranges (version 7): its rows are its ranges, so each range row has
// its entry in `ranges`, and a process, range, or outside-kernel group appears once.
std::optional<ProgramRun> read_program(const Reader& r, const Doc& doc,
                                       const std::vector<Result>& results) {
  // Only a program's record has the section (the writer leaves it out of every other record).
  if (!doc.contains("program")) return std::nullopt;
  const Doc& j = r.field(doc, "", "program");
  r.expect(j.is_object(), j, "program", "an object");
  const std::string w = "program";
  ProgramRun p;
  const Doc& command = r.array(j, w, "command");
  for (std::size_t i = 0; i < command.size(); ++i) {
    p.command.push_back(r.text_value(command[i], fmt::format("{}.command[{}]", w, i), kArgument));
  }
  if (p.command.empty()) r.fail("program.command: empty (a run has a command)");
  p.range_regex = r.optional_text(j, w, "range_regex", kText);
  p.domain = r.optional_text(j, w, "domain", kName);
  p.engine_threads = r.text(j, w, "engine_threads", kText);
  p.runs = r.integer<std::size_t>(j, w, "runs", 1, kMaxProgramRuns);
  constexpr long kMaxPid = 1L << 22;  // Linux's pid_max limit
  const Doc& processes = r.array(j, w, "processes");
  std::set<std::pair<std::size_t, long>> pids;  // a pid is unique within its run
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const std::string pw = fmt::format("{}.processes[{}]", w, i);
    r.expect(processes[i].is_object(), processes[i], pw, "an object");
    ProgramProcess q;
    q.pid = r.integer<long>(processes[i], pw, "pid", 1, kMaxPid);
    q.parent_pid = r.integer<long>(processes[i], pw, "parent_pid", 0, kMaxPid);
    q.origin = read_named<ProcessOrigin>(r, processes[i], pw, "origin", parse_process_origin,
                                         "command, exec or fork");
    q.range_events = r.integer<std::size_t>(processes[i], pw, "range_events", 0, kMaxCount);
    q.launches = r.integer<std::size_t>(processes[i], pw, "launches", 0, kMaxCount);
    q.device_records = r.integer<std::size_t>(processes[i], pw, "device_records", 0, kMaxCount);
    q.run = r.integer<std::size_t>(processes[i], pw, "run", 1, p.runs);
    if (!pids.emplace(q.run, q.pid).second) {
      r.fail(fmt::format("{}: pid {} appears twice in run {}", pw, q.pid, q.run));
    }
    p.processes.push_back(q);
  }
  const Doc& ranges = r.array(j, w, "ranges");
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const std::string rw = fmt::format("{}.ranges[{}]", w, i);
    r.expect(ranges[i].is_object(), ranges[i], rw, "an object");
    ProgramRange g;
    g.domain = r.text(ranges[i], rw, "domain", kName);
    g.name = r.text(ranges[i], rw, "name", kName);
    g.instances = r.integer<std::size_t>(ranges[i], rw, "instances", 1, kMaxCount);
    g.with_device_work = r.integer<std::size_t>(ranges[i], rw, "with_device_work", 0, g.instances);
    if (!seen.emplace(g.domain, g.name).second) {
      r.fail(fmt::format("{}: range {} appears twice", rw, record_text(g.name)));
    }
    p.ranges.push_back(std::move(g));
  }
  // Each row is a range the program section lists, with as many samples as its instances with
  // device work: a row the section does not account for was not made by `gpumeter run`.
  for (const Result& result : results) {
    const auto domain = result.row.params.find("domain");
    const std::string d = domain != result.row.params.end() ? domain->second : "";
    const auto it = std::find_if(p.ranges.begin(), p.ranges.end(), [&](const ProgramRange& g) {
      return g.domain == d && g.name == result.row.case_name;
    });
    if (it == p.ranges.end() || it->with_device_work != result.measurement.samples.size()) {
      r.fail(fmt::format("program.ranges: no range with {} instances holds the row {}",
                         result.measurement.samples.size(), record_text(row_label(result.row))));
    }
    // Each run is one pass of every row: a row with other passes was not made by `gpumeter run`,
    // and a comparison would judge it by units that are not runs.
    if (result.measurement.pass_sizes.size() != p.runs) {
      r.fail(fmt::format("program: the row {} has {} passes, not one per run ({})",
                         record_text(row_label(result.row)), result.measurement.pass_sizes.size(),
                         p.runs));
    }
  }
  const Doc& outside = r.array(j, w, "outside");
  for (std::size_t i = 0; i < outside.size(); ++i) {
    const std::string ow = fmt::format("{}.outside[{}]", w, i);
    r.expect(outside[i].is_object(), outside[i], ow, "an object");
    ProgramOutsideKernels o;
    o.pid = r.integer<long>(outside[i], ow, "pid", 1, kMaxPid);
    o.thread = r.integer<std::uint64_t>(outside[i], ow, "thread", 0);
    o.thread_name = r.text(outside[i], ow, "thread_name", kName);
    o.kernel = r.text(outside[i], ow, "kernel", kText);
    // 0: a group of copies or fills outside every range, listed when copies are counted.
    o.n_kernels = r.integer<int>(outside[i], ow, "n_kernels", 0, static_cast<int>(kMaxCount));
    o.total_ns = r.integer<Nanos>(outside[i], ow, "total_ns", 0, static_cast<Nanos>(kMaxNanos));
    o.device_busy_ns = r.integer<Nanos>(outside[i], ow, "device_busy_ns", 0, o.total_ns);
    o.run = r.integer<std::size_t>(outside[i], ow, "run", 1, p.runs);
    p.outside.push_back(std::move(o));
  }
  const Doc& without = r.array(j, w, "launches_without_work");
  for (std::size_t i = 0; i < without.size(); ++i) {
    const std::string lw = fmt::format("{}.launches_without_work[{}]", w, i);
    r.expect(without[i].is_object(), without[i], lw, "an object");
    ProgramLaunchesWithoutWork l;
    l.pid = r.integer<long>(without[i], lw, "pid", 1, kMaxPid);
    l.thread = r.integer<std::uint64_t>(without[i], lw, "thread", 0);
    l.api = r.text(without[i], lw, "api", kName);
    l.n = r.integer<std::size_t>(without[i], lw, "n", 1, kMaxCount);
    l.kernel_launch_api = r.boolean(without[i], lw, "kernel_launch_api");
    l.run = r.integer<std::size_t>(without[i], lw, "run", 1, p.runs);
    p.launches_without_work.push_back(std::move(l));
  }
  check_program(r, p, results);
  return p;
}

// The configuration as its writers make it (a table prints it: "iterations [10, 0]"): budgets a
// user may give (calibration.hpp), at least one iteration and no more below than above.
void check_config(const Reader& r, const RunConfig& c) {
  const auto budget = [&](std::string_view key, Nanos ns) {
    if (static_cast<double>(ns) > ns_of(kMaxBudgetMs)) {
      r.fail(fmt::format("field config.{}: {} ms, more than the {} ms a budget may be", key,
                         ms_of(static_cast<double>(ns)), kMaxBudgetMs));
    }
  };
  budget("warmup_ms", c.budget.warmup_ns);
  budget("measure_ms", c.budget.measure_ns);
  if (c.budget.max_iterations < 1 || c.budget.min_iterations > c.budget.max_iterations) {
    r.fail(
        fmt::format("field config.max_iterations: {} with min_iterations {}; a run takes at "
                    "least one iteration and no fewer at most than at least (altered record?)",
                    c.budget.max_iterations, c.budget.min_iterations));
  }
}

// A row is measured once in a record: a row twice would be listed twice and counted twice by a
// comparison's mean (a case line of a journal repeated).
void check_rows_unique(const Reader& r, const std::vector<Result>& results,
                       const std::vector<std::string>& where) {
  std::map<RowKey, std::size_t> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto [at, fresh] = seen.emplace(results[i].row, i);
    if (!fresh) {
      r.fail(fmt::format("{}: the row {} appears twice (also at {}; altered record?)", where[i],
                         record_text(row_label(results[i].row)), where[at->second]));
    }
  }
}

// B11: a row is a result or a failure, never both: a failure beside a result of the same row (or
// of its whole case) would let a reader take the numbers and a verdict take the failure, or the
// other way round.
void check_results_not_failed(const Reader& r, const Record& record) {
  std::set<RowKey> rows;
  std::set<std::pair<std::string, Params>> cases;
  for (const Result& x : record.results) {
    rows.insert(x.row);
    cases.insert({x.row.case_name, x.row.params});
  }
  for (std::size_t i = 0; i < record.failures.size(); ++i) {
    const RowKey& row = record.failures[i].row;
    const bool whole_case = row.implementation.empty();
    if (whole_case ? cases.count({row.case_name, row.params}) != 0 : rows.count(row) != 0) {
      r.fail(
          fmt::format("failures[{}]: {} is also a result of the record: a row is measured or "
                      "failed, not both (altered record?)",
                      i, record_text(row_label(row))));
    }
  }
}

// Phases and totals are of the candidates a record measured: each names a row the record holds
// (its warm call's result, or the failure that took its place). A phase of no row would be read
// as a candidate of its own, first of its case and the one the others are read against.
void check_phase_rows(const Reader& r, const Record& record) {
  std::set<RowKey> rows;
  for (const Result& x : record.results) rows.insert(x.row);
  for (const Failure& f : record.failures) rows.insert(f.row);
  for (std::size_t i = 0; i < record.phases.size(); ++i) {
    if (rows.count(record.phases[i].row) == 0) {
      r.fail(
          fmt::format("phases[{}]: {} is no row of the record (a candidate it did not measure; "
                      "altered record?)",
                      i, record_text(row_label(record.phases[i].row))));
    }
  }
  for (std::size_t i = 0; i < record.totals.size(); ++i) {
    if (rows.count(record.totals[i].row) == 0) {
      r.fail(
          fmt::format("totals[{}]: {} is no row of the record (a candidate it did not measure; "
                      "altered record?)",
                      i, record_text(row_label(record.totals[i].row))));
    }
  }
  // A runtime is a candidate's: one of the record's rows, or of a case that failed whole (whose
  // candidates have no row of their own). One naming no candidate was added after the run.
  std::set<std::string> candidates;
  bool case_failed_whole = false;
  for (const RowKey& row : rows) {
    candidates.insert(row.implementation);
    case_failed_whole = case_failed_whole || row.implementation.empty();
  }
  for (std::size_t i = 0; i < record.runtimes.size(); ++i) {
    if (!case_failed_whole && candidates.count(record.runtimes[i].implementation) == 0) {
      r.fail(fmt::format("runtimes[{}]: {} is no candidate of the record (altered record?)", i,
                         record_text(record.runtimes[i].implementation)));
    }
  }
  // A total is one process from its spawn, through every fresh phase of that process, to the
  // synchronize after its N-th call: no process's total is below the sum of its phases, so the
  // smallest total is not below the sum of each phase's smallest sample; and a process's total of
  // more calls is not below its total of fewer.
  for (std::size_t i = 0; i < record.totals.size(); ++i) {
    const MeasuredTotal& t = record.totals[i];
    const Nanos least = *std::min_element(t.samples_ns.begin(), t.samples_ns.end());
    double parts = 0;
    std::string names;
    for (const PhaseReading& p : record.phases) {
      // The exit comes after the synchronize a total ends at: no part of it.
      if (p.row != t.row || p.setting != t.setting || p.phase == Phase::process_exit) continue;
      parts += static_cast<double>(*std::min_element(p.samples_ns.begin(), p.samples_ns.end()));
      names += (names.empty() ? "" : ", ") + std::string(to_string(p.phase));
    }
    if (static_cast<double>(least) < parts) {
      r.fail(
          fmt::format("totals[{}].samples_ns: a total of {} ns, below the {} ns of its own "
                      "process's phases ({}) (altered record?)",
                      i, least, parts, names));
    }
    for (const MeasuredTotal& fewer : record.totals) {
      if (fewer.row != t.row || fewer.setting != t.setting || fewer.calls >= t.calls) continue;
      const Nanos below = *std::min_element(fewer.samples_ns.begin(), fewer.samples_ns.end());
      if (least < below) {
        r.fail(
            fmt::format("totals[{}].samples_ns: a total of {} calls of {} ns, below the {} ns "
                        "its processes took for {} calls (altered record?)",
                        i, t.calls, least, below, fewer.calls));
      }
    }
  }
}

// The rows read while the document was parsed (ResultsAsParsed): results[i] is streamed[i] where
// the document's element was read and dropped (it is null there).
// A shard's section: which shard, and the dealing of the whole sweep, which must be the one
// deal_cases makes (a case moved to another shard by hand is refused, so a merge can trust it).
std::optional<ShardPlan> read_shard(const Reader& r, const Doc& doc) {
  if (!doc.contains("shard")) return std::nullopt;
  const std::string w = "shard";
  const Doc& j = r.object(doc, "", "shard");
  ShardPlan plan;
  plan.shard.count = r.integer<std::size_t>(j, w, "count", 1, kMaxShards);
  plan.shard.index = r.integer<std::size_t>(j, w, "index", 0, plan.shard.count - 1);
  const std::string source = r.text(j, w, "source", kName);
  bool known = false;
  for (const ShardSource s : {ShardSource::option, ShardSource::slurm, ShardSource::kubernetes}) {
    if (to_string(s) == source) {
      plan.shard.source = s;
      known = true;
    }
  }
  if (!known) r.fail("field shard.source: " + record_text(source) + " is no source of a shard");
  plan.shard.origin = r.text(j, w, "origin", kText);
  const Doc& cases = r.array(j, w, "cases");
  plan.cases.reserve(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string cw = fmt::format("shard.cases[{}]", i);
    const Doc& c = cases[i];
    r.expect(c.is_object(), c, cw, "an object");
    if (c.contains("implementation"))
      r.fail(cw + ": a case is dealt whole, never by implementation");
    DealtCase d;
    d.row.case_name = r.text(c, cw, "case", kName);
    d.row.params = read_params(r, c, cw);
    d.cost = r.real(c, cw, "cost", std::numeric_limits<double>::min(),
                    std::numeric_limits<double>::max());
    d.shard = r.integer<std::size_t>(c, cw, "shard", 0, plan.shard.count - 1);
    plan.cases.push_back(std::move(d));
  }
  // A shard of more shards than cases holds none: an empty part of the sweep, valid (B10).
  if (const std::string why = shard_plan_problem(plan); !why.empty()) {
    r.fail("shard.cases: " + why + " (altered record?)");
  }
  return plan;
}

// A shard's rows and failures are of its own cases; a complete shard's record accounts for each
// of them (a row or a failure), so a merge can tell a case that ran from one that never did. A
// shard ran in one process on one device: its rows are of one board.
void check_shard_rows(const Reader& r, const Record& record, bool complete) {
  if (!record.shard) return;
  const ShardPlan& plan = *record.shard;
  const DealtCases dealt(plan);
  std::vector<bool> seen(plan.cases.size(), false);
  const auto check = [&](const RowKey& row, const std::string& where) {
    // A plain index (GCC 12 takes an optional read after a noreturn branch for uninitialized).
    const std::size_t i = dealt.find(row).value_or(plan.cases.size());
    if (i == plan.cases.size()) {
      r.fail(where + ": " + case_label(row) +
             " is no case of the sweep this shard was dealt from (altered record?)");
    }
    const std::size_t in = plan.cases[i].shard;
    if (in != plan.shard.index) {
      r.fail(where + ": " + case_label(row) + " is a case of " + shard_label(in, plan.shard.count) +
             ", not of this record's " + shard_label(plan.shard.index, plan.shard.count) +
             " (altered record?)");
    }
    seen[i] = true;
  };
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    const Result& res = record.results[i];
    const std::string where = fmt::format("results[{}]", i);
    check(res.row, where);
    if (!same_board(res.board, record.results.front().board)) {
      r.fail(where + ": ran on " + board_label(res.board) + ", results[0] on " +
             board_label(record.results.front().board) +
             ": a shard runs in one process on one device (altered record?)");
    }
  }
  for (std::size_t i = 0; i < record.failures.size(); ++i) {
    check(record.failures[i].row, fmt::format("failures[{}]", i));
  }
  if (!complete) return;
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    const DealtCase& c = plan.cases[i];
    if (c.shard == plan.shard.index && !seen[i]) {
      r.fail("shard: " + case_label(c.row) + " is a case of this " +
             shard_label(plan.shard.index, plan.shard.count) +
             " with no row and no failure in a complete record (altered record?)");
    }
  }
}

// journal_header: a journal's header or setup line, whose rows follow in other lines (the
// journal's reader checks them against the shard).
// Each row holds only what its timing method and device measure, and iteration counts its run's
// budget gives (row_checks.hpp): a kernel count on a host-wall row, or a budget edited after the
// run, is refused, never shown. Version 1 kept no passes (read as one), so only its count of
// measured iterations is checked against its samples: written again, it must read back.
void check_rows_measurable(const Reader& r, const Record& record) {
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    const Result& x = record.results[i];
    if (const std::string why = unmeasurable_value(x, record.device); !why.empty()) {
      r.fail(
          fmt::format("results[{}] ({}) holds what its measurement cannot have measured: {} "
                      "(altered record?)",
                      i, record_text(row_label(x.row)), why));
    }
    if (const std::string why = iteration_count_problem(x, record.config); !why.empty()) {
      r.fail(
          fmt::format("results[{}] ({}): config holds a budget this row's run cannot have "
                      "used: {} (altered record?)",
                      i, record_text(row_label(x.row)), why));
    }
  }
}

// A merge of program runs says so in its deviations (its rows are ranges nothing else accounts
// for).
bool merged_programs(const Record& record) {
  return std::any_of(
      record.deviations.begin(), record.deviations.end(),
      [](const std::string& text) { return text.rfind(kMergedProgramsMark, 0) == 0; });
}

// A CUPTI row with samples and no ledger (a ledger read has at least as many iterations as the
// row has samples).
bool cupti_row_without_ledger(const Result& row) {
  const Measurement& m = row.measurement;
  return m.method == TimingMethod::cupti && !m.samples.empty() && m.ledger.iterations == 0;
}

bool has_mark(const Record& record, std::string_view mark) {
  return std::any_of(record.deviations.begin(), record.deviations.end(),
                     [mark](const std::string& text) { return text.rfind(mark, 0) == 0; });
}

// A program's rows (gpumeter run: NVTX ranges of an unmodified program, one run or a merge of
// them) have no ledger: gpumeter launches no canary in a program.
bool rows_of_a_program(const Record& record) {
  return record.config.schedule == "program" || merged_programs(record);
}

// Before version 8 a CUPTI row needed no ledger: the record, once read, says its rows have none
// (kBeforeLedgersMark), so that written again as version 8 it still reads.
void mark_rows_before_ledgers(Record& record, int version) {
  if (version >= 8 || rows_of_a_program(record) || has_mark(record, kBeforeLedgersMark)) return;
  if (std::any_of(record.results.begin(), record.results.end(), cupti_row_without_ledger)) {
    record.deviations.push_back(
        fmt::format("{}read from a schema_version {} record, whose CUPTI rows hold no ledger: "
                    "no canary proves collection was on while they ran",
                    kBeforeLedgersMark, version));
  }
}

// B11 (version 8): a CUPTI row of gpumeter's own measurement proves collection was on by its
// canaries, which its ledger holds (read_ledger checks them); a row with samples and no ledger
// proves nothing, so it is refused, unless the record is a program's or says its rows were
// measured before ledgers.
void check_cupti_ledgers(const Reader& r, const Record& record, int version) {
  if (version < 8 || rows_of_a_program(record) || has_mark(record, kBeforeLedgersMark)) return;
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    const Measurement& m = record.results[i].measurement;
    if (cupti_row_without_ledger(record.results[i])) {
      r.fail(fmt::format(
          "results[{}] ({}): a CUPTI row with {} samples and no ledger: a device-timed row proves "
          "collection was on by its canaries, which its ledger holds (altered record?)",
          i, record_text(row_label(record.results[i].row)), m.samples.size()));
    }
  }
}

Record read_document(const Reader& r, const Doc& doc, std::vector<Result>* streamed = nullptr,
                     bool journal_header = false) {
  if (!doc.is_object()) r.fail(fmt::format("top level is {}, not a JSON object", doc.type_name()));

  // Identify the schema first: a file of another kind or version gets that message, not a
  // list of fields it lacks.
  const std::string schema = r.text(doc, "", "schema", kName);
  if (schema != kRecordSchemaName) {
    r.fail(fmt::format("not a gpumeter record (schema {}, expected \"{}\")", record_text(schema),
                       kRecordSchemaName));
  }
  const Doc& version_field = r.field(doc, "", "schema_version");
  r.expect(version_field.is_number_integer(), version_field, "schema_version", "an integer");
  const bool supported =
      version_field.is_number_unsigned()
          ? version_field.get<std::uint64_t>() <=
                    static_cast<std::uint64_t>(kRecordSchemaVersion) &&
                version_field.get<std::uint64_t>() >=
                    static_cast<std::uint64_t>(kOldestReadableSchemaVersion)
          : version_field.get<std::int64_t>() <= kRecordSchemaVersion &&
                version_field.get<std::int64_t>() >= kOldestReadableSchemaVersion;
  if (!supported) {
    r.fail(fmt::format("unsupported schema_version {} (this gpumeter reads {} to {})",
                       version_field.dump(), kOldestReadableSchemaVersion, kRecordSchemaVersion));
  }
  const int version = version_field.get<int>();
  refuse_newer_fields(r, doc, "", Scope::top, version);

  Record record;
  // What it becomes once read: the current version, or, for a record of the older interval
  // rules, the last version of those rules (whose fields are the current ones), so that its
  // comparisons and precision outcomes stay what its rules gave and it writes back as read.
  record.schema_version = records_rules_version(version);
  record.run_id = r.text(doc, "", "run_id", kName);
  record.created_utc = r.text(doc, "", "created_utc", kName);
  record.gpumeter_version = r.text(doc, "", "gpumeter_version", kName);
  const Doc& argv = r.array(doc, "", "argv");
  for (std::size_t i = 0; i < argv.size(); ++i) {
    record.argv.push_back(r.text_value(argv[i], fmt::format("argv[{}]", i), kArgument));
  }
  record.project_commit = r.text_or_empty(doc, "", "project_commit", kName);

  const Doc& host = r.object(doc, "", "host");
  record.host.hostname = r.text(host, "host", "hostname", kName);
  record.host.cpu_model = r.text(host, "host", "cpu_model", kText);
  record.host.logical_cores = r.optional_integer<int>(host, "host", "logical_cores", 0);
  record.host.os = r.text(host, "host", "os", kText);

  const Doc& device = r.object(doc, "", "device");
  DeviceIdentity& d = record.device;
  d.kind = r.text(device, "device", "kind", kName);
  d.index = r.integer<int>(device, "device", "index", 0);
  d.name = r.text(device, "device", "name", kName);
  d.uuid = r.text_or_empty(device, "device", "uuid", kName);
  d.arch = r.text(device, "device", "arch", kName);
  d.multiprocessors = r.optional_integer<int>(device, "device", "multiprocessors", 0);
  d.l2_bytes = r.optional_integer<long long>(device, "device", "l2_bytes", 0);
  d.memory_bytes = r.optional_integer<long long>(device, "device", "memory_bytes", 0);

  const std::string sw = "device_state";
  const Doc& state = r.object(doc, "", sw);
  DeviceState& st = record.device_state;
  st.driver_version = r.optional_text(state, sw, "driver_version", kName);
  st.cuda_driver_version = r.optional_integer<int>(state, sw, "cuda_driver_version");
  st.cuda_runtime_version = r.optional_integer<int>(state, sw, "cuda_runtime_version");
  st.cupti_version = r.optional_integer<int>(state, sw, "cupti_version");
  st.sm_clock_mhz = r.optional_integer<int>(state, sw, "sm_clock_mhz", 0, kMaxClockMhz);
  st.sm_clock_max_mhz = r.optional_integer<int>(state, sw, "sm_clock_max_mhz", 0, kMaxClockMhz);
  st.memory_clock_mhz = r.optional_integer<int>(state, sw, "memory_clock_mhz", 0, kMaxClockMhz);
  st.temperature_c = r.optional_integer<int>(state, sw, "temperature_c");
  st.power_w = r.optional_real(state, sw, "power_w", 0, 1e6);
  st.throttle_reasons = r.optional_integer<unsigned long long>(state, sw, "throttle_reasons");
  st.utilization_pct = r.optional_integer<int>(state, sw, "utilization_pct");
  st.memory_free_bytes = r.optional_integer<long long>(state, sw, "memory_free_bytes");
  st.memory_used_bytes = r.optional_integer<long long>(state, sw, "memory_used_bytes");
  st.compute_processes = r.optional_integer<int>(state, sw, "compute_processes");

  record.ceilings = read_ceilings(r, r.object(doc, "", "ceilings"), version);

  const Doc& config = r.object(doc, "", "config");
  refuse_newer_fields(r, config, "config", Scope::config, version);
  RunConfig& c = record.config;
  c.budget.warmup_ns = r.millis_as_nanos(config, "config", "warmup_ms");
  c.budget.measure_ns = r.millis_as_nanos(config, "config", "measure_ms");
  c.budget.min_iterations =
      r.integer<std::size_t>(config, "config", "min_iterations", 0, kMaxCount);
  c.budget.max_iterations =
      r.integer<std::size_t>(config, "config", "max_iterations", 0, kMaxCount);
  c.l2_flush = r.boolean(config, "config", "l2_flush");
  // Added within version 1: records written before it lack the field, read as unknown.
  if (version >= 2 || config.contains("l2_flush_mode")) {
    c.l2_flush_mode = r.text_or_empty(config, "config", "l2_flush_mode", kName);
  }
  c.schedule = r.text(config, "config", "schedule", kName);
  if (version >= 3) {
    c.launch_cost_ns = r.optional_integer<Nanos>(config, "config", "launch_cost_ns", 0,
                                                 static_cast<Nanos>(kMaxNanos));
  }
  check_config(r, c);

  const Doc& deviations = r.array(doc, "", "deviations");
  for (std::size_t i = 0; i < deviations.size(); ++i) {
    record.deviations.push_back(
        r.text_value(deviations[i], fmt::format("deviations[{}]", i), kText));
  }

  const Doc& results = r.array(doc, "", "results");
  record.results.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (streamed != nullptr && i < streamed->size() && results[i].is_null()) {
      record.results.push_back(std::move((*streamed)[i]));
      continue;
    }
    record.results.push_back(
        read_result(r, results[i], fmt::format("results[{}]", i), record.ceilings, version));
  }
  // Before version 8 a record named one device, which ran every row of it.
  if (version < 8) fill_boards(record);
  mark_rows_before_ledgers(record, version);

  // Added within version 1: records written before it have no failures field.
  if (version >= 2 || doc.contains("failures")) {
    const Doc& failures = r.array(doc, "", "failures");
    for (std::size_t i = 0; i < failures.size(); ++i) {
      record.failures.push_back(read_failure(r, failures[i], fmt::format("failures[{}]", i)));
    }
  }

  {
    std::vector<std::string> where;
    where.reserve(record.results.size());
    for (std::size_t i = 0; i < record.results.size(); ++i) {
      where.push_back(fmt::format("results[{}]", i));
    }
    check_rows_unique(r, record.results, where);
  }
  check_results_not_failed(r, record);
  if (version >= 5) check_precision(r, record.results, version);
  // By the comparison rules of the record's version: a stored comparison is the one its rules gave.
  finish_comparisons(record, version);
  check_statable(r, record.comparisons);
  if (version >= 2) check_comparisons(r, doc, record.comparisons, version);
  if (version >= 6) {
    record.phases = read_phases(r, doc);
    record.totals = read_totals(r, doc);
    record.runtimes = read_runtimes(r, doc);
    check_phase_rows(r, record);
  }
  if (version >= 7) record.program = read_program(r, doc, record.results);
  if (version >= 7) record.shard = read_shard(r, doc);
  if (!journal_header) check_shard_rows(r, record, partial_record_note(record).empty());
  // The program section and the program's schedule come together (run.cpp writes both): rows
  // without the section are ranges nothing accounts for, unless a merge of program runs says
  // where their sections are; and a program was run as it is, its L2 never flushed (each row's
  // reason says so).
  if (record.program.has_value() != (record.config.schedule == "program") &&
      !(merged_programs(record) && !record.program)) {
    r.fail(record.program ? "config.schedule: a program's record whose schedule is not \"program\" "
                            "(altered record?)"
                          : "program: missing from a record of schedule \"program\" (its "
                            "ranges, runs and processes; altered record?)");
  }
  if (record.config.schedule == "program" && record.config.l2_flush) {
    r.fail(
        "config.l2_flush: on, in the record of a program run as it is, whose L2 gpumeter "
        "never flushes (altered record?)");
  }
  check_rows_measurable(r, record);
  check_cupti_ledgers(r, record, version);
  return record;
}

// About how many values `text` holds, without parsing it: the commas and opening brackets outside
// strings (every element of an array or object after its first follows a comma; an empty
// container counts one too many). One cheap pass, so a forged record is refused before the
// parse grows.
std::size_t approximate_values(std::string_view text) {
  std::size_t n = 1;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == '[' || c == '{') {
      ++n;
    }
  }
  return n;
}

// Builds the document from the parser's events, with the limits the JSON library does not set
// by itself: nesting no deeper than kMaxDepth (a deep document would be copied and destroyed
// recursively), no key twice in one object (the library would keep the last silently, so one file
// could read two ways), no key longer than a name and no string longer than any field may hold.
// Each member is inserted once into an object kept by key, in log time; each element appended to
// its array. (The library's own builders were quadratic: its ordered objects searched every member
// per key inserted, and its filtering builder rescanned an array at each element's end.)
// Each row of a record's `results`, read into its Result as soon as its element closes and the
// element dropped from the document: the rows are most of a record, and their document (a map node
// and a key per member, 16 bytes and more per number) took 8 times the file's size (100,000 rows,
// 141 MB of text: 1.15 GB). It reads a row only once the schema, a readable schema_version and the
// ceilings it is checked against have been parsed (a record's writer puts them first); otherwise
// the rows stay in the document and read_document reads them, as strictly either way.
class ResultsAsParsed {
 public:
  explicit ResultsAsParsed(const Reader& r) : r_(r) {}

  // `root` is the document so far (its `results` open), `element` the row just closed. True when
  // the row was read (and may be dropped).
  bool take(const Doc& root, const Doc& element) {
    if (gave_up_) return false;
    if (!ready_ && !prepare(root)) {
      gave_up_ = true;
      return false;
    }
    if (rows_.size() != seen_++) return false;  // an element kept before: keep them all
    try {
      rows_.push_back(
          read_result(r_, element, fmt::format("results[{}]", rows_.size()), *ceilings_, version_));
    } catch (const InvalidRecord&) {
      // Kept, and refused where read_document reaches it: after the fields it reads first, so a
      // record with several faults is named by the same one either way.
      gave_up_ = true;
      return false;
    }
    return true;
  }

  std::vector<Result>& rows() { return rows_; }

 private:
  bool prepare(const Doc& root) {
    const auto schema = root.find("schema");
    const auto version = root.find("schema_version");
    const auto ceilings = root.find("ceilings");
    if (schema == root.end() || version == root.end() || ceilings == root.end()) return false;
    if (!schema->is_string() || schema->get_ref<const std::string&>() != kRecordSchemaName ||
        !version->is_number_integer() || !ceilings->is_object()) {
      return false;
    }
    const auto v = version->get<std::int64_t>();
    if (v < kOldestReadableSchemaVersion || v > kRecordSchemaVersion) return false;
    version_ = static_cast<int>(v);
    try {
      ceilings_ = read_ceilings(r_, *ceilings, version_);
    } catch (const InvalidRecord&) {
      return false;  // read_document names it
    }
    ready_ = true;
    return true;
  }

  const Reader& r_;
  bool ready_ = false;
  bool gave_up_ = false;
  int version_ = 0;
  std::optional<Ceilings> ceilings_;
  std::size_t seen_ = 0;
  std::vector<Result> rows_;
};

class DocumentBuilder final {
 public:
  explicit DocumentBuilder(const std::string& path, ResultsAsParsed* results = nullptr)
      : path_(path), results_(results) {}

  Doc take() { return std::move(root_); }

  // The scanner's events (json_scan.hpp).
  void null() { place(Doc(nullptr)); }
  void boolean(bool value) { place(Doc(value)); }
  void number_integer(std::int64_t value) { place(Doc(value)); }
  void number_unsigned(std::uint64_t value) { place(Doc(value)); }
  void number_float(double value) { place(Doc(value)); }

  void string(std::string& value) {
    if (value.size() > kMaxArgumentBytes) {
      fail(fmt::format("a string of {} bytes, more than the {} any field of a record may hold",
                       value.size(), kMaxArgumentBytes));
    }
    place(Doc(std::move(value)));
  }

  void key(std::string& key) {
    if (key.size() > kMaxNameBytes) {
      fail(fmt::format("a key of {} bytes, more than the {} a name may hold", key.size(),
                       kMaxNameBytes));
    }
    auto& members = open_.back()->get_ref<Doc::object_t&>();
    const auto [at, fresh] = members.try_emplace(std::move(key));  // not moved from if not fresh
    if (!fresh) {
      fail(fmt::format("the key {} appears twice in one object; a record must read one way",
                       record_text(at->first)));
    }
    member_ = &at->second;
    if (open_.size() == 1) results_key_ = at->first == "results";
  }

  void start_object() { open(Doc::value_t::object); }
  void start_array() { open(Doc::value_t::array); }
  void end_object() { close(); }
  void end_array() { close(); }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw InvalidRecord(path_, problem); }

  // Places a value: the document itself, the next element of the open array, or the member whose
  // key came last.
  Doc* place(Doc&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Doc& parent = *open_.back();
    if (parent.is_array()) {
      auto& elements = parent.get_ref<Doc::array_t&>();
      elements.push_back(std::move(value));
      return &elements.back();
    }
    *member_ = std::move(value);
    return member_;
  }

  void open(Doc::value_t type) {
    if (open_.size() >= static_cast<std::size_t>(kMaxDepth)) {
      fail(fmt::format("nested deeper than {} levels; no record is", kMaxDepth));
    }
    // A container's address is stable while it is open: its parent grows only after it closes.
    const bool results = open_.size() == 1 && results_key_ && type == Doc::value_t::array;
    open_.push_back(place(Doc(type)));
    if (results) results_array_ = open_.back();
  }

  void close() {
    // A row of the top level's `results` array, closed: read, and dropped from the document.
    if (results_ != nullptr && open_.size() == 3 && results_array_ == open_[1] &&
        results_->take(root_, *open_[2])) {
      *open_[2] = Doc();
    }
    open_.pop_back();
  }

  const std::string& path_;
  ResultsAsParsed* results_ = nullptr;
  bool results_key_ = false;      // the last key of the top level was "results"
  Doc* results_array_ = nullptr;  // the top level's results, once opened
  Doc root_;
  std::vector<Doc*> open_;  // the containers open, outermost first
  Doc* member_ = nullptr;   // where the value after the last key goes
};

// Parses with the limits above, after two checks on the text: no more than kMaxValues values,
// counted before anything is built, and no NUL byte. The JSON parser ends its input at a NUL, so
// whatever followed one (a 100 KB random tail) was ignored; JSON text has none, inside a string or
// out.
Doc parse_strict(std::string_view text, const std::string& path,
                 ResultsAsParsed* results = nullptr) {
  // Each value counted is one byte of text at least: a text shorter than the limit is not
  // counted (the pass was an eighth of the time to read a 57 KB record).
  if (text.size() >= kMaxValues && approximate_values(text) > kMaxValues) {
    throw InvalidRecord(path, fmt::format("holds more than about {} values, the most a record "
                                          "may hold (a real record of the largest size holds "
                                          "about 50 million)",
                                          kMaxValues));
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    throw InvalidRecord(path, fmt::format("not valid JSON (a NUL byte at byte {} of {}; a record "
                                          "has none, and nothing after it)",
                                          nul, text.size()));
  }
  if (text.empty()) throw InvalidRecord(path, "not valid JSON (empty file)");
  DocumentBuilder builder(path, results);
  if (const std::optional<json_scan::ScanError> error = json_scan::scan(text, builder)) {
    if (error->number_out_of_range) {
      throw InvalidRecord(path, "not valid JSON for a record (a number beyond a double's range)");
    }
    const std::size_t at = error->position;
    if (at > text.size()) {
      throw InvalidRecord(
          path, fmt::format("not valid JSON (ends early at byte {}: truncated?)", text.size()));
    }
    throw InvalidRecord(path, fmt::format("not valid JSON (parse error at byte {})", at));
  }
  return builder.take();
}

// A header line's record: a record without results, failures or comparisons, read as strictly as
// one (the same reader, given the three empty lists).
Record read_header(const Reader& r, const Doc& header, const std::string& where, int& version) {
  r.expect(header.is_object(), header, where, "an object");
  for (const char* key : {"results", "failures", "comparisons", "phases", "totals", "runtimes"}) {
    if (header.contains(key)) r.fail(fmt::format("{}: a journal's header holds no {}", where, key));
  }
  Doc whole = header;
  whole["results"] = Doc::array();
  whole["failures"] = Doc::array();
  whole["comparisons"] = Doc::array();
  // A journal holds the rows of a run of warm calls: the phases of version 6 are never in one.
  const auto v = header.find("schema_version");
  if (v != header.end() && v->is_number_integer() && v->get<long long>() >= 6) {
    for (const char* key : {"phases", "totals", "runtimes"}) whole[key] = Doc::array();
  }
  Record record = read_document(r, whole, nullptr, true);
  version = header.at("schema_version").get<int>();  // read_document checked it
  return record;
}

}  // namespace

// The cases a killed or running run's journal holds, as the record it would have written,
// marked partial. Every complete line is read as strictly as a record; only a last line cut
// short (no newline: the process died while writing it) is left out, and the record says so.
Record record_json::parse_journal(std::string_view text, const std::string& path) {
  std::vector<std::string_view> lines;
  std::string_view torn;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      torn = text.substr(at);
      break;
    }
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  const Reader r(path);
  if (lines.empty()) r.fail("a run's journal without its first line (killed as it began)");
  const auto line_doc = [&](std::size_t i) {
    if (lines[i].empty()) r.fail(fmt::format("journal line {} is empty", i + 1));
    return parse_strict(lines[i], fmt::format("{} (journal line {})", path, i + 1));
  };

  const Doc first = line_doc(0);
  r.expect(first.is_object(), first, "journal line 1", "an object");
  if (r.text(first, "journal line 1", "journal", kName) != kJournalName) {
    r.fail(
        fmt::format("journal line 1: not a gpumeter run journal (expected \"{}\")", kJournalName));
  }
  const int journal_version = r.integer<int>(first, "journal line 1", "journal_version", 0, 1000);
  if (journal_version != kJournalVersion) {
    r.fail(fmt::format("unsupported journal_version {} (this gpumeter reads {})", journal_version,
                       kJournalVersion));
  }
  const auto planned = r.integer<std::size_t>(first, "journal line 1", "cases", 0, kMaxCount);
  if (first.size() != 4) r.fail("journal line 1 holds fields other than its four");
  int version = 0;
  Record record =
      read_header(r, r.object(first, "journal line 1", "record"), "journal line 1.record", version);

  std::size_t cases = 0;
  std::vector<std::string> row_where;  // where each row was read, for a row twice
  bool results_stale = false;          // read under ceilings that a later line replaced
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string where = fmt::format("journal line {}", i + 1);
    const Doc line = line_doc(i);
    r.expect(line.is_object() && line.size() == 1, line, where, "an object of one field");
    const auto only = line.begin();  // held, so the value below refers into `line`
    const std::string kind = only.key();
    const Doc& value = only.value();
    if (kind == "setup") {
      int setup_version = 0;
      const Record setup = read_header(r, value, where + ".setup", setup_version);
      if (setup_version != version) r.fail(where + ": a setup of another schema_version");
      copy_measured_setup(setup, record);
      results_stale = true;
    } else if (kind == "deviation") {
      record.deviations.push_back(r.text_value(value, where + ".deviation", kText));
    } else if (kind == "ceilings") {
      r.expect(value.is_object(), value, where + ".ceilings", "an object");
      record.ceilings = read_ceilings(r, value, version);
      results_stale = true;
    } else if (kind == "case") {
      const std::string cw = where + ".case";
      r.expect(value.is_object() && value.size() == 2, value, cw, "an object of two fields");
      const Doc& results = r.array(value, cw, "results");
      for (std::size_t k = 0; k < results.size(); ++k) {
        // Its summary is checked against the ceilings in force when it was written.
        row_where.push_back(fmt::format("{}.results[{}]", cw, k));
        record.results.push_back(
            read_result(r, results[k], row_where.back(), record.ceilings, version));
      }
      const Doc& failures = r.array(value, cw, "failures");
      for (std::size_t k = 0; k < failures.size(); ++k) {
        record.failures.push_back(
            read_failure(r, failures[k], fmt::format("{}.failures[{}]", cw, k)));
      }
      ++cases;
    } else {
      r.fail(fmt::format("{}: unknown kind of line {}", where, record_text(kind)));
    }
  }
  if (cases > planned) {
    r.fail(fmt::format("the journal holds {} cases, more than the {} its run planned", cases,
                       planned));
  }
  check_rows_unique(r, record.results, row_where);
  check_results_not_failed(r, record);
  // Every row's percentages of the run's last ceilings, as the complete record's would be.
  if (results_stale) {
    for (Result& res : record.results) summarize_result(res, record.ceilings);
  }
  if (version < 8) fill_boards(record);
  mark_rows_before_ledgers(record, version);
  // A shard's run plans its own cases: a journal that planned another number is of no run of it.
  if (record.shard && planned != own_cases(*record.shard)) {
    r.fail(
        fmt::format("journal line 1: the run planned {} cases, but its {} holds {} (altered "
                    "journal?)",
                    planned, shard_label(record.shard->shard.index, record.shard->shard.count),
                    own_cases(*record.shard)));
  }
  check_shard_rows(r, record, false);  // a journal is partial
  // Its rows as strictly as a record's: the journal read is a record, written and read again
  // (a row whose counts its header's budget cannot give was accepted here and refused there).
  check_rows_measurable(r, record);
  check_cupti_ledgers(r, record, version);
  if (version >= 5) check_precision(r, record.results, version);
  finish_comparisons(record, version);
  check_statable(r, record.comparisons);
  std::string note = std::string(kPartialRecordMark) + "read from the run's journal, which holds " +
                     std::to_string(cases) + " of " + std::to_string(planned) +
                     " cases: the run was killed, or was still running, when it was read";
  if (!torn.empty()) {
    note += fmt::format(" (its last line, {} bytes cut short as the process ended, is left out)",
                        torn.size());
  }
  record.deviations.push_back(std::move(note));
  return record;
}

Ceilings ceilings_from_json(std::string_view text, const std::string& source) {
  if (text.size() > kMaxRecordBytes) {
    throw InvalidRecord(source, fmt::format("larger than {} bytes", kMaxRecordBytes));
  }
  const Reader r(source);
  const Doc j = parse_strict(text, source);
  if (!j.is_object()) r.fail(fmt::format("ceilings: expected an object, found {}", j.type_name()));
  return read_ceilings(r, j, kRecordSchemaVersion);
}

Record parse_record(std::string_view text, const std::string& path) {
  if (text.size() > kMaxRecordBytes) {
    throw InvalidRecord(
        path, fmt::format("larger than {} bytes, the most a record may be", kMaxRecordBytes));
  }
  // A run's journal starts so, and no record does (a record's first field is its schema).
  if (text.substr(0, kJournalStart.size()) == kJournalStart) return parse_journal(text, path);
  const Reader r(path);
  ResultsAsParsed rows(r);
  const Doc doc = parse_strict(text, path, &rows);
  return read_document(r, doc, &rows.rows());
}

}  // namespace gpumeter
