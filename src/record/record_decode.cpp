// The reader's decoding (record_decode.hpp): each section of a record into its types, by the
// rules of the record's schema version, each value in its range.
#include "record_decode.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "record_verify.hpp"
#include "record_versions.hpp"

namespace gpumeter::record_read {

using namespace record_json;

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

namespace {

RowKey read_row(const Reader& r, const Doc& j, const std::string& where) {
  RowKey row;
  row.case_name = r.text(j, where, "case", kName);
  row.implementation = r.text(j, where, "implementation", kName);
  row.params = read_params(r, j, where);
  return row;
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
    if (m.method == TimingMethod::kernel_records &&
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

// Version 12: the yardstick timed beside a host-clock row (null: none), its work named and one
// level per pass of at least 1 ns (a host call takes tens of ns or more), checked against
// pass_sizes once they are read.
void read_yardstick(const Reader& r, const Doc& j, const std::string& where, Measurement& m) {
  const Doc& yj = r.field(j, where, "yardstick");
  if (yj.is_null()) return;
  const std::string yw = where + ".yardstick";
  r.expect(yj.is_object(), yj, yw, "an object or null");
  if (statistic_of(m.method) != Statistic::synchronized_wall_clock) {
    r.fail(
        fmt::format("{}: a yardstick on a row not timed by the host clock (altered record?)", yw));
  }
  YardstickReading y;
  y.work = r.text(yj, yw, "work", kName);
  const Doc& levels = r.array(yj, yw, "pass_ns");
  for (std::size_t i = 0; i < levels.size(); ++i) {
    y.pass_ns.push_back(
        r.real_value(levels[i], fmt::format("{}.pass_ns[{}]", yw, i), 1, kMaxNanos));
  }
  m.yardstick = std::move(y);
}

// Version 10: how the row was measured (which rule proves it, check_row_origins) and the
// tolerances its answers were checked with, each usable (tolerance.hpp): an infinite atol stated
// as a check's passes any answer.
void read_version_10_fields(const Reader& r, const Doc& j, const std::string& where, Result& result,
                            int version) {
  const std::string origin = r.text(j, where, "origin", kName);
  const std::optional<RowOrigin> o = parse_row_origin(origin);
  if (!o) r.fail(fmt::format("field {}.origin: unknown origin {}", where, record_text(origin)));
  result.measurement.origin = *o;
  // Version 11: the host's load when the row was measured (null: not read, device timing).
  if (version >= kLoadAverageSince) {
    result.measurement.load_average = r.optional_real(j, where, "load_average", 0, 1e9);
  }
  if (version >= kYardstickSince) read_yardstick(r, j, where, result.measurement);
  if (!j.contains("answer_check")) return;  // no check of gpumeter's tolerances was made
  const std::string aw = where + ".answer_check";
  const Doc& a = r.object(j, where, "answer_check");
  const double most = std::numeric_limits<double>::max();
  AnswerCheck check;
  check.rtol = r.real(a, aw, "rtol", 0, most);
  check.atol = r.real(a, aw, "atol", 0, most);
  if (const std::string problem = tolerance_problem(check.rtol, check.atol); !problem.empty()) {
    r.fail(fmt::format("{}: {} (altered record?)", aw, problem));
  }
  result.answer_check = check;
}

// Version 12: the row's flags as stored, checked once every row is in (check_row_flags: low_clock
// is judged against the record's highest clock).
RowFlags read_row_flags(const Reader& r, const Doc& j, const std::string& where) {
  const std::string fw = where + ".flags";
  const Doc& fj = r.object(j, where, "flags");
  RowFlags f;
  f.clock_flagged = r.integer<std::size_t>(fj, fw, "clock_flagged", 0, kMaxCount);
  f.low_clock = r.boolean(fj, fw, "low_clock");
  f.retries = r.integer<int>(fj, fw, "retries", 0, static_cast<int>(kMaxCount));
  f.uncounted_copy = r.boolean(fj, fw, "uncounted_copy");
  f.copy_exceeds_busy = r.boolean(fj, fw, "copy_exceeds_busy");
  f.drops_unproven = r.boolean(fj, fw, "drops_unproven");
  f.call_overhead = r.boolean(fj, fw, "call_overhead");
  return f;
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

}  // namespace

HostIdentity read_host(const Reader& r, const Doc& doc) {
  HostIdentity h;
  const Doc& host = r.object(doc, "", "host");
  h.hostname = r.text(host, "host", "hostname", kName);
  h.cpu_model = r.text(host, "host", "cpu_model", kText);
  h.logical_cores = r.optional_integer<int>(host, "host", "logical_cores", 0);
  h.os = r.text(host, "host", "os", kText);
  return h;
}

DeviceIdentity read_device(const Reader& r, const Doc& doc) {
  DeviceIdentity d;
  const Doc& device = r.object(doc, "", "device");
  d.kind = r.text(device, "device", "kind", kName);
  d.index = r.integer<int>(device, "device", "index", 0);
  d.name = r.text(device, "device", "name", kName);
  d.uuid = r.text_or_empty(device, "device", "uuid", kName);
  d.arch = r.text(device, "device", "arch", kName);
  d.multiprocessors = r.optional_integer<int>(device, "device", "multiprocessors", 0);
  d.l2_bytes = r.optional_integer<long long>(device, "device", "l2_bytes", 0);
  d.memory_bytes = r.optional_integer<long long>(device, "device", "memory_bytes", 0);
  return d;
}

DeviceState read_device_state(const Reader& r, const Doc& doc) {
  DeviceState st;
  const std::string sw = "device_state";
  const Doc& state = r.object(doc, "", sw);
  st.driver_version = r.optional_text(state, sw, "driver_version", kName);
  for (const std::string_view key : kSoftwareVersionFields) {
    const std::string name(key);
    if (const std::optional<int> v = r.optional_integer<int>(state, sw, name)) {
      st.software_versions.push_back({name, *v});
    }
  }
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
  return st;
}

RunConfig read_config(const Reader& r, const Doc& doc, int version) {
  const Doc& config = r.object(doc, "", "config");
  refuse_newer_fields(r, config, "config", Scope::config, version);
  RunConfig c;
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
  return c;
}

Result read_result(const Reader& r, const Doc& j, const std::string& where,
                   const Ceilings& ceilings, int version, bool stored_flags) {
  if (!j.is_object()) {
    r.fail(fmt::format("field {}: expected an object, found {}", where, j.type_name()));
  }
  refuse_newer_fields(r, j, where, Scope::result, version);
  Result result;
  result.row = read_row(r, j, where);

  result.count_copies = r.boolean(j, where, "count_copies");
  Measurement& m = result.measurement;
  const std::string method_text = r.text(j, where, "timing_method", kName);
  const std::optional<TimingMethod> method = method_of_record_word(method_text);
  if (!method) {
    r.fail(
        fmt::format("field {}.timing_method: unknown method {}", where, record_text(method_text)));
  }
  m.method = *method;
  const std::string statistic_text = r.text(j, where, "statistic", kName);
  const std::string_view expected_statistic = record_word(statistic_of(m.method));
  if (statistic_text != expected_statistic) {
    r.fail(fmt::format(
        "field {}.statistic: {} does not belong to timing_method \"{}\" (expected \"{}\")", where,
        record_text(statistic_text), record_word(m.method), expected_statistic));
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
  if (version >= kRowOriginsSince) read_version_10_fields(r, j, where, result, version);
  if (version >= kRowFlagsSince && stored_flags) result.flags = read_row_flags(r, j, where);

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
    if (m.yardstick && m.yardstick->pass_ns.size() != m.pass_sizes.size()) {
      r.fail(fmt::format("{}.yardstick.pass_ns holds {} levels for the row's {} passes", where,
                         m.yardstick->pass_ns.size(), m.pass_sizes.size()));
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
  const std::optional<TimingMethod> method = method_of_record_word(*method_text);
  if (!method) {
    r.fail(
        fmt::format("field ceilings.timing_method: unknown method {}", record_text(*method_text)));
  }
  const std::string_view want_statistic = record_word(statistic_of(*method));
  if (statistic != want_statistic) {
    r.fail(fmt::format(
        "field ceilings.statistic: {} does not belong to timing_method \"{}\" (expected \"{}\")",
        statistic ? record_text(*statistic) : "null", record_word(*method), want_statistic));
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

namespace {

std::vector<Nanos> read_samples(const Reader& r, const Doc& j, const std::string& where) {
  std::vector<Nanos> samples = read_nanos(r, j, where, "samples_ns");
  if (samples.empty()) r.fail(fmt::format("{}.samples_ns is empty: a phase with no sample", where));
  return samples;
}

}  // namespace

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
    p.statistic =
        read_named<Statistic>(r, a[i], w, "statistic", statistic_of_record_word, "a statistic");
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

}  // namespace gpumeter::record_read
