#include "gpumeter/record_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstddef>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "gpumeter/errors.hpp"
#include "gpumeter/summary.hpp"
#include "gpumeter/timing_method.hpp"

namespace gpumeter {
namespace {

using Json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// Writing

double ms_of(double ns) {
  return ns / 1e6;
}
double ns_of(double ms) {
  return ms * 1e6;
}

// A NaN or infinity would be written by the JSON library as null, which reads back as "not
// available" (optional) or fails (required): refuse it at the source instead.
Json number(double value, std::string_view field) {
  if (!std::isfinite(value)) {
    throw Error(fmt::format("cannot write record: {} is not a finite number", field));
  }
  return value;
}

template <typename T>
Json nullable(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json nullable_number(const std::optional<double>& value, std::string_view field) {
  return value ? number(*value, field) : Json(nullptr);
}

// Identity strings whose "" means "not available" (device uuid, project commit) are written as
// null, like every other counter that could not be read (P2).
Json text_or_null(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(text);
}

Json spread_ms(const Spread& spread, std::string_view field) {
  Json j;
  j["median"] = number(ms_of(spread.median_ns), field);
  j["p10"] = number(ms_of(spread.p10_ns), field);
  j["p90"] = number(ms_of(spread.p90_ns), field);
  return j;
}

// The row identity a result and a failure share.
void put_row_identity(Json& j, const std::string& case_name, const std::string& implementation,
                      const std::map<std::string, std::string>& params) {
  j["case"] = case_name;
  j["implementation"] = implementation;
  j["params"] = Json::object();
  for (const auto& [key, value] : params) j["params"][key] = value;
}

Json result_json(const Result& result, std::size_t index) {
  const std::string where = fmt::format("results[{}]", index);
  const Measurement& m = result.measurement;
  const Summary& s = result.summary;
  if (s.method != m.method) {
    throw Error(
        fmt::format("cannot write record: {} has summary method {} but measurement method {}",
                    where, to_string(s.method), to_string(m.method)));
  }
  Json j;
  put_row_identity(j, result.case_name, result.implementation, result.params);
  j["count_copies"] = result.count_copies;
  j["timing_method"] = std::string(to_string(m.method));
  j["statistic"] = std::string(to_string(statistic_of(m.method)));
  j["reason"] = m.reason;
  j["retries"] = m.retries;
  j["warmup_iterations"] = m.warmup_iterations;
  j["measure_iterations"] = m.measure_iterations;
  j["estimate_ms"] = to_ms(m.estimate_ns);
  j["drop_counter_live"] = m.drop_counter_live;
  j["workload"]["flops"] = nullable_number(result.workload.flops, where + ".workload.flops");
  j["workload"]["bytes"] = nullable_number(result.workload.bytes, where + ".workload.bytes");

  Json& js = j["summary"];
  js["n_samples"] = s.n_samples;
  js["device_busy_ms"] = spread_ms(s.device_busy, where + ".summary.device_busy_ms");
  js["latency_ms"] = spread_ms(s.latency, where + ".summary.latency_ms");
  js["max_n_kernels"] = nullable(s.max_n_kernels);
  js["gap_ms"] = number(ms_of(s.gap_ns), where + ".summary.gap_ms");
  js["uncounted_copy_ms"] =
      number(ms_of(s.median_uncounted_copy_ns), where + ".summary.uncounted_copy_ms");
  js["retries"] = s.retries;
  js["tflops"] = nullable_number(s.tflops, where + ".summary.tflops");
  js["tbs"] = nullable_number(s.tbs, where + ".summary.tbs");
  js["pct_of_peak_flops"] =
      nullable_number(s.pct_of_peak_flops, where + ".summary.pct_of_peak_flops");
  js["pct_of_peak_bandwidth"] =
      nullable_number(s.pct_of_peak_bandwidth, where + ".summary.pct_of_peak_bandwidth");

  Json busy = Json::array();
  Json latency = Json::array();
  Json kernels = Json::array();
  Json copies = Json::array();
  bool any_kernel_count = false;
  for (const Sample& sample : m.samples) {
    busy.push_back(sample.device_busy_ns);
    latency.push_back(sample.latency_ns);
    kernels.push_back(nullable(sample.n_kernels));
    copies.push_back(sample.uncounted_copy_ns);
    any_kernel_count = any_kernel_count || sample.n_kernels.has_value();
  }
  Json& samples = j["samples"];
  samples["device_busy_ns"] = std::move(busy);
  samples["latency_ns"] = std::move(latency);
  // A method that cannot count kernels has no counts at all: one null, not n of them.
  samples["n_kernels"] = any_kernel_count ? std::move(kernels) : Json(nullptr);
  samples["uncounted_copy_ns"] = std::move(copies);
  return j;
}

// ---------------------------------------------------------------------------------------------
// Reading: every access names the field, so a message says exactly what is wrong and where.

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& problem) const { throw InvalidRecord(path_, problem); }

  const Json& field(const Json& object, const std::string& where, std::string_view key) const {
    const std::string name = join(where, key);
    if (!object.is_object())
      fail(fmt::format("{} is not an object", where.empty() ? "top level" : where));
    auto it = object.find(key);
    if (it == object.end()) fail("missing field " + name);
    return *it;
  }

  static std::string join(const std::string& where, std::string_view key) {
    return where.empty() ? std::string(key) : where + "." + std::string(key);
  }

  void expect(bool ok, const Json& value, const std::string& name, std::string_view wanted) const {
    if (!ok) {
      fail(fmt::format("field {}: expected {}, found {}", name, wanted, value.type_name()));
    }
  }

  std::string text(const Json& object, const std::string& where, std::string_view key) const {
    const Json& v = field(object, where, key);
    expect(v.is_string(), v, join(where, key), "a string");
    return v.get<std::string>();
  }

  // A string where null means "not available" and reads as "".
  std::string text_or_empty(const Json& object, const std::string& where,
                            std::string_view key) const {
    const Json& v = field(object, where, key);
    if (v.is_null()) return {};
    expect(v.is_string(), v, join(where, key), "a string or null");
    return v.get<std::string>();
  }

  std::optional<std::string> optional_text(const Json& object, const std::string& where,
                                           std::string_view key) const {
    const Json& v = field(object, where, key);
    if (v.is_null()) return std::nullopt;
    expect(v.is_string(), v, join(where, key), "a string or null");
    return v.get<std::string>();
  }

  bool boolean(const Json& object, const std::string& where, std::string_view key) const {
    const Json& v = field(object, where, key);
    expect(v.is_boolean(), v, join(where, key), "true or false");
    return v.get<bool>();
  }

  template <typename Int>
  Int integer_value(const Json& v, const std::string& name,
                    Int lo = std::numeric_limits<Int>::min(),
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

  template <typename Int>
  Int integer(const Json& object, const std::string& where, std::string_view key,
              Int lo = std::numeric_limits<Int>::min(),
              Int hi = std::numeric_limits<Int>::max()) const {
    return integer_value<Int>(field(object, where, key), join(where, key), lo, hi);
  }

  template <typename Int>
  std::optional<Int> optional_integer(const Json& object, const std::string& where,
                                      std::string_view key,
                                      Int lo = std::numeric_limits<Int>::min(),
                                      Int hi = std::numeric_limits<Int>::max()) const {
    const Json& v = field(object, where, key);
    if (v.is_null()) return std::nullopt;
    return integer_value<Int>(v, join(where, key), lo, hi);
  }

  double real(const Json& object, const std::string& where, std::string_view key) const {
    const Json& v = field(object, where, key);
    expect(v.is_number(), v, join(where, key), "a number");
    return v.get<double>();
  }

  std::optional<double> optional_real(const Json& object, const std::string& where,
                                      std::string_view key) const {
    const Json& v = field(object, where, key);
    if (v.is_null()) return std::nullopt;
    expect(v.is_number(), v, join(where, key), "a number or null");
    return v.get<double>();
  }

  // A duration in ms at the edge, back to integer ns inside.
  Nanos millis_as_nanos(const Json& object, const std::string& where, std::string_view key) const {
    const double ms = real(object, where, key);
    const double ns = std::round(ns_of(ms));
    if (!(ns >= 0 && ns < 9.2e18)) {
      fail(fmt::format("field {}: {} ms is not a usable duration", join(where, key), ms));
    }
    return static_cast<Nanos>(ns);
  }

  const Json& array(const Json& object, const std::string& where, std::string_view key) const {
    const Json& v = field(object, where, key);
    expect(v.is_array(), v, join(where, key), "an array");
    return v;
  }

  const Json& object(const Json& parent, const std::string& where, std::string_view key) const {
    const Json& v = field(parent, where, key);
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

Spread read_spread(const Reader& r, const Json& parent, const std::string& where,
                   std::string_view key) {
  const Json& j = r.object(parent, where, key);
  const std::string name = Reader::join(where, key);
  Spread spread;
  spread.median_ns = ns_of(r.real(j, name, "median"));
  spread.p10_ns = ns_of(r.real(j, name, "p10"));
  spread.p90_ns = ns_of(r.real(j, name, "p90"));
  return spread;
}

std::vector<Nanos> read_nanos(const Reader& r, const Json& parent, const std::string& where,
                              std::string_view key) {
  const Json& a = r.array(parent, where, key);
  const std::string name = Reader::join(where, key);
  std::vector<Nanos> values;
  values.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    values.push_back(r.integer_value<Nanos>(a[i], fmt::format("{}[{}]", name, i), 0));
  }
  return values;
}

// A row's params: an object of strings.
std::map<std::string, std::string> read_params(const Reader& r, const Json& j,
                                               const std::string& where) {
  std::map<std::string, std::string> params;
  for (const auto& [key, value] : r.object(j, where, "params").items()) {
    r.expect(value.is_string(), value, Reader::join(where, "params") + "." + key, "a string");
    params.emplace(key, value.get<std::string>());
  }
  return params;
}

Result read_result(const Reader& r, const Json& j, const std::string& where) {
  if (!j.is_object()) {
    r.fail(fmt::format("field {}: expected an object, found {}", where, j.type_name()));
  }
  Result result;
  result.case_name = r.text(j, where, "case");
  result.implementation = r.text(j, where, "implementation");
  result.params = read_params(r, j, where);

  result.count_copies = r.boolean(j, where, "count_copies");
  Measurement& m = result.measurement;
  const std::string method_text = r.text(j, where, "timing_method");
  const std::optional<TimingMethod> method = parse_timing_method(method_text);
  if (!method)
    r.fail(fmt::format("field {}.timing_method: unknown method \"{}\"", where, method_text));
  m.method = *method;
  const std::string statistic_text = r.text(j, where, "statistic");
  const std::string_view expected_statistic = to_string(statistic_of(m.method));
  if (statistic_text != expected_statistic) {
    r.fail(fmt::format(
        "field {}.statistic: \"{}\" does not belong to timing_method \"{}\" (expected \"{}\")",
        where, statistic_text, method_text, expected_statistic));
  }
  m.reason = r.text(j, where, "reason");
  m.retries = r.integer<int>(j, where, "retries", 0);
  m.warmup_iterations = r.integer<std::size_t>(j, where, "warmup_iterations", 0);
  m.measure_iterations = r.integer<std::size_t>(j, where, "measure_iterations", 0);
  m.estimate_ns = r.millis_as_nanos(j, where, "estimate_ms");
  m.drop_counter_live = r.boolean(j, where, "drop_counter_live");

  const std::string workload_where = where + ".workload";
  const Json& workload = r.object(j, where, "workload");
  result.workload.flops = r.optional_real(workload, workload_where, "flops");
  result.workload.bytes = r.optional_real(workload, workload_where, "bytes");

  const std::string sw = where + ".summary";
  const Json& js = r.object(j, where, "summary");
  Summary& s = result.summary;
  s.method = m.method;
  s.n_samples = r.integer<std::size_t>(js, sw, "n_samples", 0);
  s.device_busy = read_spread(r, js, sw, "device_busy_ms");
  s.latency = read_spread(r, js, sw, "latency_ms");
  s.max_n_kernels = r.optional_integer<int>(js, sw, "max_n_kernels", 0);
  s.gap_ns = ns_of(r.real(js, sw, "gap_ms"));
  s.median_uncounted_copy_ns = ns_of(r.real(js, sw, "uncounted_copy_ms"));
  s.retries = r.integer<int>(js, sw, "retries", 0);
  s.tflops = r.optional_real(js, sw, "tflops");
  s.tbs = r.optional_real(js, sw, "tbs");
  s.pct_of_peak_flops = r.optional_real(js, sw, "pct_of_peak_flops");
  s.pct_of_peak_bandwidth = r.optional_real(js, sw, "pct_of_peak_bandwidth");

  // The raw samples are the evidence (P10): the summary must describe exactly these.
  const std::string pw = where + ".samples";
  const Json& samples = r.object(j, where, "samples");
  const std::vector<Nanos> busy = read_nanos(r, samples, pw, "device_busy_ns");
  const std::vector<Nanos> latency = read_nanos(r, samples, pw, "latency_ns");
  const std::vector<Nanos> copies = read_nanos(r, samples, pw, "uncounted_copy_ns");
  const Json& kernels = r.field(samples, pw, "n_kernels");
  r.expect(kernels.is_null() || kernels.is_array(), kernels, pw + ".n_kernels", "an array or null");

  if (s.n_samples == 0) r.fail(fmt::format("{} has no samples (summary.n_samples is 0)", where));
  auto check_length = [&](std::size_t length, std::string_view name) {
    if (length != s.n_samples) {
      r.fail(fmt::format("{}.{} holds {} samples but {}.n_samples is {}", pw, name, length, sw,
                         s.n_samples));
    }
  };
  check_length(busy.size(), "device_busy_ns");
  check_length(latency.size(), "latency_ns");
  check_length(copies.size(), "uncounted_copy_ns");
  if (kernels.is_array()) check_length(kernels.size(), "n_kernels");

  m.samples.resize(s.n_samples);
  for (std::size_t i = 0; i < s.n_samples; ++i) {
    Sample& sample = m.samples[i];
    sample.device_busy_ns = busy[i];
    sample.latency_ns = latency[i];
    sample.uncounted_copy_ns = copies[i];
    if (kernels.is_array() && !kernels[i].is_null()) {
      sample.n_kernels =
          r.integer_value<int>(kernels[i], fmt::format("{}.n_kernels[{}]", pw, i), 0);
    }
  }
  return result;
}

// The raw samples are the evidence (P10): a summary that they do not give back was altered,
// or written by a faulty tool, and no table may be rendered from it. Stored times pass
// through ms and back, so equality is to a few parts in 10^12, not exact.
void check_summary_against_samples(const Reader& r, const Result& result, const Ceilings& ceilings,
                                   const std::string& where) {
  const Measurement& m = result.measurement;
  const Summary want = summarize(m.samples, m.method, m.retries, result.workload, ceilings);
  const Summary& got = result.summary;
  auto same = [](double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
  };
  auto check = [&](const char* field, double stored, double derived) {
    if (!same(stored, derived)) {
      r.fail(
          fmt::format("{}.summary.{} is {} but the record's samples give {}: the summary "
                      "does not describe the raw samples (altered record?)",
                      where, field, stored, derived));
    }
  };
  auto check_optional = [&](const char* field, const std::optional<double>& stored,
                            const std::optional<double>& derived) {
    if (stored.has_value() != derived.has_value()) {
      r.fail(fmt::format("{}.summary.{} is {} but the record's samples and workload give {}", where,
                         field, stored ? fmt::format("{}", *stored) : "null",
                         derived ? fmt::format("{}", *derived) : "null"));
    }
    if (stored) check(field, *stored, *derived);
  };
  check("device_busy_ms.median", got.device_busy.median_ns, want.device_busy.median_ns);
  check("device_busy_ms.p10", got.device_busy.p10_ns, want.device_busy.p10_ns);
  check("device_busy_ms.p90", got.device_busy.p90_ns, want.device_busy.p90_ns);
  check("latency_ms.median", got.latency.median_ns, want.latency.median_ns);
  check("latency_ms.p10", got.latency.p10_ns, want.latency.p10_ns);
  check("latency_ms.p90", got.latency.p90_ns, want.latency.p90_ns);
  check("gap_ms", got.gap_ns, want.gap_ns);
  check("uncounted_copy_ms", got.median_uncounted_copy_ns, want.median_uncounted_copy_ns);
  check("retries", got.retries, want.retries);
  if (got.max_n_kernels != want.max_n_kernels) {
    r.fail(fmt::format("{}.summary.max_n_kernels does not match the record's samples", where));
  }
  check_optional("tflops", got.tflops, want.tflops);
  check_optional("tbs", got.tbs, want.tbs);
  check_optional("pct_of_peak_flops", got.pct_of_peak_flops, want.pct_of_peak_flops);
  check_optional("pct_of_peak_bandwidth", got.pct_of_peak_bandwidth, want.pct_of_peak_bandwidth);
}

Record read_document(const Reader& r, const Json& doc) {
  if (!doc.is_object()) r.fail(fmt::format("top level is {}, not a JSON object", doc.type_name()));

  // Identify the schema first: a file of another kind or version gets that message, not a
  // list of fields it lacks.
  const std::string schema = r.text(doc, "", "schema");
  if (schema != kRecordSchemaName) {
    r.fail(fmt::format("not a gpumeter record (schema \"{}\", expected \"{}\")", schema,
                       kRecordSchemaName));
  }
  const Json& version = r.field(doc, "", "schema_version");
  r.expect(version.is_number_integer(), version, "schema_version", "an integer");
  const bool supported = version.is_number_unsigned()
                             ? version.get<std::uint64_t>() == kRecordSchemaVersion
                             : version.get<std::int64_t>() == kRecordSchemaVersion;
  if (!supported) {
    r.fail(fmt::format("unsupported schema_version {} (this gpumeter reads {})", version.dump(),
                       kRecordSchemaVersion));
  }

  Record record;
  record.schema_version = kRecordSchemaVersion;
  record.run_id = r.text(doc, "", "run_id");
  record.created_utc = r.text(doc, "", "created_utc");
  record.gpumeter_version = r.text(doc, "", "gpumeter_version");
  const Json& argv = r.array(doc, "", "argv");
  for (std::size_t i = 0; i < argv.size(); ++i) {
    r.expect(argv[i].is_string(), argv[i], fmt::format("argv[{}]", i), "a string");
    record.argv.push_back(argv[i].get<std::string>());
  }
  record.project_commit = r.text_or_empty(doc, "", "project_commit");

  const Json& host = r.object(doc, "", "host");
  record.host.hostname = r.text(host, "host", "hostname");
  record.host.cpu_model = r.text(host, "host", "cpu_model");
  record.host.logical_cores = r.optional_integer<int>(host, "host", "logical_cores", 0);
  record.host.os = r.text(host, "host", "os");

  const Json& device = r.object(doc, "", "device");
  DeviceIdentity& d = record.device;
  d.kind = r.text(device, "device", "kind");
  d.index = r.integer<int>(device, "device", "index", 0);
  d.name = r.text(device, "device", "name");
  d.uuid = r.text_or_empty(device, "device", "uuid");
  d.arch = r.text(device, "device", "arch");
  d.multiprocessors = r.optional_integer<int>(device, "device", "multiprocessors", 0);
  d.l2_bytes = r.optional_integer<long long>(device, "device", "l2_bytes", 0);
  d.memory_bytes = r.optional_integer<long long>(device, "device", "memory_bytes", 0);

  const std::string sw = "device_state";
  const Json& state = r.object(doc, "", sw);
  DeviceState& st = record.device_state;
  st.driver_version = r.optional_text(state, sw, "driver_version");
  st.cuda_driver_version = r.optional_integer<int>(state, sw, "cuda_driver_version");
  st.cuda_runtime_version = r.optional_integer<int>(state, sw, "cuda_runtime_version");
  st.cupti_version = r.optional_integer<int>(state, sw, "cupti_version");
  st.sm_clock_mhz = r.optional_integer<int>(state, sw, "sm_clock_mhz");
  st.sm_clock_max_mhz = r.optional_integer<int>(state, sw, "sm_clock_max_mhz");
  st.memory_clock_mhz = r.optional_integer<int>(state, sw, "memory_clock_mhz");
  st.temperature_c = r.optional_integer<int>(state, sw, "temperature_c");
  st.power_w = r.optional_real(state, sw, "power_w");
  st.throttle_reasons = r.optional_integer<unsigned long long>(state, sw, "throttle_reasons");
  st.utilization_pct = r.optional_integer<int>(state, sw, "utilization_pct");
  st.memory_free_bytes = r.optional_integer<long long>(state, sw, "memory_free_bytes");
  st.memory_used_bytes = r.optional_integer<long long>(state, sw, "memory_used_bytes");
  st.compute_processes = r.optional_integer<int>(state, sw, "compute_processes");

  const Json& ceilings = r.object(doc, "", "ceilings");
  record.ceilings.flops_per_s = r.optional_real(ceilings, "ceilings", "flops_per_s");
  record.ceilings.bytes_per_s = r.optional_real(ceilings, "ceilings", "bytes_per_s");

  const Json& config = r.object(doc, "", "config");
  RunConfig& c = record.config;
  c.budget.warmup_ns = r.millis_as_nanos(config, "config", "warmup_ms");
  c.budget.measure_ns = r.millis_as_nanos(config, "config", "measure_ms");
  c.budget.min_iterations = r.integer<std::size_t>(config, "config", "min_iterations", 0);
  c.budget.max_iterations = r.integer<std::size_t>(config, "config", "max_iterations", 0);
  c.l2_flush = r.boolean(config, "config", "l2_flush");
  // Added within version 1: records written before it lack the field, read as unknown.
  if (config.contains("l2_flush_mode")) {
    c.l2_flush_mode = r.text_or_empty(config, "config", "l2_flush_mode");
  }
  c.schedule = r.text(config, "config", "schedule");

  const Json& deviations = r.array(doc, "", "deviations");
  for (std::size_t i = 0; i < deviations.size(); ++i) {
    r.expect(deviations[i].is_string(), deviations[i], fmt::format("deviations[{}]", i),
             "a string");
    record.deviations.push_back(deviations[i].get<std::string>());
  }

  const Json& results = r.array(doc, "", "results");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = fmt::format("results[{}]", i);
    record.results.push_back(read_result(r, results[i], where));
    check_summary_against_samples(r, record.results.back(), record.ceilings, where);
  }

  // Added within version 1: records written before it have no failures field.
  if (doc.contains("failures")) {
    const Json& failures = r.array(doc, "", "failures");
    for (std::size_t i = 0; i < failures.size(); ++i) {
      const std::string where = fmt::format("failures[{}]", i);
      const Json& jf = failures[i];
      r.expect(jf.is_object(), jf, where, "an object");
      Failure f;
      f.case_name = r.text(jf, where, "case");
      f.implementation = r.text(jf, where, "implementation");
      f.params = read_params(r, jf, where);
      f.error = r.text(jf, where, "error");
      f.message = r.text(jf, where, "message");
      record.failures.push_back(std::move(f));
    }
  }
  return record;
}

// ---------------------------------------------------------------------------------------------
// Files

std::string errno_text(int error) {
  return std::strerror(error);
}

// Closes a descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports the error close() saw (it can carry a deferred write error).
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

// Removes the temporary file unless it was handed over.
class TempFile {
 public:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_all(int fd, std::string_view data, const std::string& name) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot write record {}: {}", name, errno_text(errno)));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Gives `tmp` the name `target` only if no file has it: link() fails with EEXIST instead of
// replacing. File systems without hard links get renameat2(RENAME_NOREPLACE), same promise.
void publish_without_overwrite(const std::string& tmp, const std::string& target) {
  if (::link(tmp.c_str(), target.c_str()) == 0) return;
  int error = errno;
  if (error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == ENOSYS ||
      error == EMLINK) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) return;
    error = errno;
  }
  if (error == EEXIST) {
    throw Error(
        fmt::format("record {} already exists; records are never overwritten (P10)", target));
  }
  throw Error(fmt::format("cannot create record {}: {}", target, errno_text(error)));
}

}  // namespace

std::string serialize(const Record& record) {
  if (record.schema_version != kRecordSchemaVersion) {
    throw Error(fmt::format("cannot write schema_version {}: this gpumeter writes {}",
                            record.schema_version, kRecordSchemaVersion));
  }
  Json j;
  j["schema"] = kRecordSchemaName;
  j["schema_version"] = kRecordSchemaVersion;
  j["run_id"] = record.run_id;
  j["created_utc"] = record.created_utc;
  j["gpumeter_version"] = record.gpumeter_version;
  j["argv"] = record.argv;
  j["project_commit"] = text_or_null(record.project_commit);

  Json& host = j["host"];
  host["hostname"] = record.host.hostname;
  host["cpu_model"] = record.host.cpu_model;
  host["logical_cores"] = nullable(record.host.logical_cores);
  host["os"] = record.host.os;

  const DeviceIdentity& d = record.device;
  Json& device = j["device"];
  device["kind"] = d.kind;
  device["index"] = d.index;
  device["name"] = d.name;
  device["uuid"] = text_or_null(d.uuid);
  device["arch"] = d.arch;
  device["multiprocessors"] = nullable(d.multiprocessors);
  device["l2_bytes"] = nullable(d.l2_bytes);
  device["memory_bytes"] = nullable(d.memory_bytes);

  const DeviceState& st = record.device_state;
  Json& state = j["device_state"];
  state["driver_version"] = nullable(st.driver_version);
  state["cuda_driver_version"] = nullable(st.cuda_driver_version);
  state["cuda_runtime_version"] = nullable(st.cuda_runtime_version);
  state["cupti_version"] = nullable(st.cupti_version);
  state["sm_clock_mhz"] = nullable(st.sm_clock_mhz);
  state["sm_clock_max_mhz"] = nullable(st.sm_clock_max_mhz);
  state["memory_clock_mhz"] = nullable(st.memory_clock_mhz);
  state["temperature_c"] = nullable(st.temperature_c);
  state["power_w"] = nullable_number(st.power_w, "device_state.power_w");
  state["throttle_reasons"] = nullable(st.throttle_reasons);
  state["utilization_pct"] = nullable(st.utilization_pct);
  state["memory_free_bytes"] = nullable(st.memory_free_bytes);
  state["memory_used_bytes"] = nullable(st.memory_used_bytes);
  state["compute_processes"] = nullable(st.compute_processes);

  j["ceilings"]["flops_per_s"] =
      nullable_number(record.ceilings.flops_per_s, "ceilings.flops_per_s");
  j["ceilings"]["bytes_per_s"] =
      nullable_number(record.ceilings.bytes_per_s, "ceilings.bytes_per_s");

  const RunConfig& c = record.config;
  Json& config = j["config"];
  config["warmup_ms"] = to_ms(c.budget.warmup_ns);
  config["measure_ms"] = to_ms(c.budget.measure_ns);
  config["min_iterations"] = c.budget.min_iterations;
  config["max_iterations"] = c.budget.max_iterations;
  config["l2_flush"] = c.l2_flush;
  config["l2_flush_mode"] = c.l2_flush_mode.empty() ? Json(nullptr) : Json(c.l2_flush_mode);
  config["schedule"] = c.schedule;

  j["deviations"] = record.deviations;
  j["results"] = Json::array();
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    j["results"].push_back(result_json(record.results[i], i));
  }
  j["failures"] = Json::array();
  for (const Failure& f : record.failures) {
    Json jf;
    put_row_identity(jf, f.case_name, f.implementation, f.params);
    jf["error"] = f.error;
    jf["message"] = f.message;
    j["failures"].push_back(std::move(jf));
  }
  return j.dump(2) + "\n";
}

Record parse_record(std::string_view text, const std::string& path) {
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    if (text.empty()) throw InvalidRecord(path, "not valid JSON (empty file)");
    if (e.byte > text.size()) {
      throw InvalidRecord(
          path, fmt::format("not valid JSON (ends early at byte {}: truncated?)", text.size()));
    }
    throw InvalidRecord(path, fmt::format("not valid JSON (parse error at byte {})", e.byte));
  }
  return read_document(Reader(path), doc);
}

Record read_record(const std::filesystem::path& file) {
  const std::string name = file.string();
  const int raw = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw < 0) throw InvalidRecord(name, fmt::format("cannot open ({})", errno_text(errno)));
  Fd fd(raw);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InvalidRecord(name, fmt::format("cannot read ({})", errno_text(errno)));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return parse_record(text, name);
}

std::vector<Record> read_records(const std::vector<std::filesystem::path>& files) {
  std::vector<Record> records;
  records.reserve(files.size());
  for (const auto& file : files) records.push_back(read_record(file));
  return records;
}

std::string record_file_name(const std::string& run_id) {
  const bool usable =
      !run_id.empty() && run_id.front() != '.' &&
      run_id.find_first_not_of(
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
  if (!usable) {
    throw Error(
        fmt::format("run_id \"{}\" cannot name a record file (use [A-Za-z0-9._-])", run_id));
  }
  return "gpumeter-" + run_id + ".json";
}

std::filesystem::path write_record(const Record& record, const std::filesystem::path& dir) {
  const std::filesystem::path target = dir / record_file_name(record.run_id);
  const std::string text = serialize(record);
  // A record this gpumeter cannot read back is evidence nobody can use: refuse it now.
  try {
    static_cast<void>(parse_record(text, target.string()));
  } catch (const InvalidRecord& e) {
    throw Error(fmt::format("refusing to write a record that would not read back: {}", e.what()));
  }

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error(fmt::format("cannot create record directory {}: {}", dir.string(), ec.message()));
  }

  // Same directory, so the final link stays on one file system and is atomic.
  std::string pattern = (dir / ("." + record_file_name(record.run_id) + ".tmp.XXXXXX")).string();
  const int raw = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (raw < 0) {
    throw Error(
        fmt::format("cannot create a temporary file in {}: {}", dir.string(), errno_text(errno)));
  }
  Fd fd(raw);
  TempFile tmp(pattern);
  ::fchmod(fd.get(), 0644);
  write_all(fd.get(), text, target.string());
  if (::fsync(fd.get()) != 0 || fd.close() != 0) {
    throw Error(fmt::format("cannot write record {}: {}", target.string(), errno_text(errno)));
  }
  publish_without_overwrite(tmp.path(), target.string());

  // Make the new name durable too.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return target;
}

std::string new_run_id() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::random_device random;  // the OS's random source (getrandom) in libstdc++
  const auto bits = static_cast<std::uint32_t>(random());
  return fmt::format("{}-{}-{:08x}", stamp, static_cast<long>(::getpid()), bits);
}

}  // namespace gpumeter
