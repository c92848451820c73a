// The record's writer: a Record as the JSON of its schema (record_io.hpp, serialize), and the
// pieces of it a run's journal writes line by line (run_recorder.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/errors.hpp"
#include "record_json.hpp"

namespace gpumeter {
namespace record_json {
namespace {

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

// A string over its kind's limit, cut on a character boundary and marked, so the record reads
// back: a long exception message must not cost a run its record.
std::string fitted(const std::string& text, TextKind kind) {
  if (text.size() <= kind.most) return text;
  constexpr std::size_t kNoteRoom = 40;  // " [N more bytes cut]", N of up to 20 digits
  std::size_t keep = kind.most - kNoteRoom;
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  return text.substr(0, keep) + fmt::format(" [{} more bytes cut]", text.size() - keep);
}

// A name that identifies a row is never cut (two cut names could read as one row): one over the
// limit is refused, and the runner refuses it before measuring.
const std::string& row_name(const std::string& name, std::string_view field) {
  if (name.size() > kMaxNameBytes) {
    throw Error(
        fmt::format("cannot write record: {} of {} bytes is more than the {} a name may "
                    "hold",
                    field, name.size(), kMaxNameBytes));
  }
  return name;
}

// The row identity, the same in results, failures and comparisons.
void put_row(Json& j, const RowKey& row) {
  j["case"] = row_name(row.case_name, "a case name");
  j["implementation"] = row_name(row.implementation, "an implementation's name");
  j["params"] = Json::object();
  for (const auto& [key, value] : row.params) {
    j["params"][row_name(key, "a param's name")] = row_name(value, "a param's value");
  }
}

// A summary column as the record stores it: times in ms, counts as integers.
Json summary_json(const Column& c, const std::optional<double>& value, const std::string& where) {
  if (!value) return Json(nullptr);
  switch (c.kind) {
    case ColumnKind::time:
      return number(ms_of(*value), where);
    case ColumnKind::count:
      return static_cast<std::int64_t>(*value);
    case ColumnKind::clock:
      // Whole MHz as NVML reads them; a median between two readings keeps its half.
      if (std::isfinite(*value) && *value == std::floor(*value)) {
        return static_cast<std::int64_t>(*value);
      }
      return number(*value, where);
    case ColumnKind::flag:
      return *value != 0;
    default:
      return number(*value, where);
  }
}

// Version 10: how the row was measured, and the tolerances its answers were checked with. A record
// written as version 8 (read from an older version, held by its rules) has neither field: its
// rows' origins are what its version 8 reader gives them (record_versions.cpp), and no such row
// was checked with tolerances a record states.
void put_version_10_fields(Json& j, const Result& result, const std::string& where, int version) {
  const RowOrigin origin = result.measurement.origin;
  if (version < kRowOriginsSince) {
    if (result.answer_check) {
      throw Error(fmt::format(
          "cannot write record: {} states an answer check, which a record of schema_version {} "
          "cannot hold",
          where, version));
    }
    return;
  }
  if (origin == RowOrigin::before_ledgers) {
    throw Error(fmt::format(
        "cannot write record: {} was measured before ledgers, which a record of schema_version "
        "{} cannot hold (a record read from an older version is written as version {})",
        where, version, kCalibratedIntervalsSince - 1));
  }
  j["origin"] = std::string(to_string(origin));
  if (version >= kLoadAverageSince) {
    j["load_average"] = nullable_number(result.measurement.load_average, where + ".load_average");
  } else if (result.measurement.load_average) {
    throw Error(fmt::format(
        "cannot write record: {} states a load average, which a record of schema_version {} "
        "cannot hold",
        where, version));
  }
  const std::optional<YardstickReading>& y = result.measurement.yardstick;
  if (version >= kYardstickSince) {
    j["yardstick"] = nullptr;
    if (y) {
      if (y->pass_ns.size() != result.measurement.pass_sizes.size()) {
        throw Error(fmt::format(
            "cannot write record: {}.yardstick has {} pass levels for the row's {} passes", where,
            y->pass_ns.size(), result.measurement.pass_sizes.size()));
      }
      j["yardstick"]["work"] = row_name(y->work, "a yardstick's work");
      Json levels = Json::array();
      for (std::size_t i = 0; i < y->pass_ns.size(); ++i) {
        levels.push_back(number(y->pass_ns[i], fmt::format("{}.yardstick.pass_ns[{}]", where, i)));
      }
      j["yardstick"]["pass_ns"] = std::move(levels);
    }
  } else if (y) {
    throw Error(fmt::format(
        "cannot write record: {} states a yardstick, which a record of schema_version {} cannot "
        "hold",
        where, version));
  }
  if (result.answer_check) {
    const AnswerCheck& a = *result.answer_check;
    if (const std::string problem = tolerance_problem(a.rtol, a.atol); !problem.empty()) {
      throw Error(fmt::format("cannot write record: {}.answer_check: {}", where, problem));
    }
    j["answer_check"]["rtol"] = a.rtol;
    j["answer_check"]["atol"] = a.atol;
  }
}

}  // namespace

Json result_json(const Result& result, std::size_t index, const Board& own, int version,
                 bool with_flags) {
  const std::string where = fmt::format("results[{}]", index);
  const Measurement& m = result.measurement;
  const Summary& s = result.summary;
  if (s.method != m.method) {
    throw Error(
        fmt::format("cannot write record: {} has summary method {} but measurement method {}",
                    where, to_string(s.method), to_string(m.method)));
  }
  Json j;
  put_row(j, result.row);
  j["count_copies"] = result.count_copies;
  j["timing_method"] = std::string(record_word(m.method));
  j["statistic"] = std::string(record_word(statistic_of(m.method)));
  j["reason"] = fitted(m.reason, kText);
  j["retries"] = m.retries;
  j["warmup_iterations"] = m.warmup_iterations;
  j["measure_iterations"] = m.measure_iterations;
  j["estimate_ms"] = to_ms(m.estimate_ns);
  j["drop_counter_live"] = m.drop_counter_live;
  j["timestamp_tick_ns"] = m.timestamp_tick_ns;
  j["pass_sizes"] = m.pass_sizes;
  j["workload"]["flops"] = nullable_number(result.workload.flops, where + ".workload.flops");
  j["workload"]["bytes"] = nullable_number(result.workload.bytes, where + ".workload.bytes");

  Json& js = j["summary"];
  for (const Column& c : result_columns()) {
    if (c.summary_key.empty()) continue;
    const std::string name = where + ".summary." + std::string(c.summary_key);
    Json value = summary_json(c, number_of(c, result), name);
    if (c.summary_object.empty()) {
      js[std::string(c.summary_key)] = std::move(value);
    } else {
      js[std::string(c.summary_object)][std::string(c.summary_key)] = std::move(value);
    }
  }

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

  // B4: every sample read, or none recorded (a partial series would read as a full one).
  const bool clocks = std::all_of(m.samples.begin(), m.samples.end(),
                                  [](const Sample& x) { return x.clock.has_value(); });
  Json mhz = Json::array();
  Json reasons = Json::array();
  if (clocks) {
    for (const Sample& sample : m.samples) {
      mhz.push_back(sample.clock->sm_mhz);
      reasons.push_back(sample.clock->throttle_reasons);
    }
  }
  samples["sm_clock_mhz"] = clocks ? std::move(mhz) : Json(nullptr);
  samples["throttle_reasons"] = clocks ? std::move(reasons) : Json(nullptr);

  // P6: the scaled samples are the evidence; ratio and pass are derived (summarize_result), stored
  // for people and checked on reading. Samples without their outcome are a result never finished.
  if (m.null_test.has_value() != result.null_test_outcome.has_value()) {
    throw Error(fmt::format(
        "cannot write record: {} holds a null test's {} without its {} (a result not finished: "
        "summarize_result)",
        where, m.null_test ? "samples" : "outcome", m.null_test ? "outcome" : "samples"));
  }
  if (const std::optional<NullTestOutcome>& n = result.null_test_outcome) {
    Json& nt = j["null_test"];
    nt["scale"] = m.null_test->scale;
    nt["scaled_ns"] = m.null_test->scaled_ns;
    nt["ratio"] =
        n->verdict ? number(n->verdict->observed_ratio, where + ".null_test.ratio") : Json(nullptr);
    nt["pass"] = !n->failed();
  } else {
    j["null_test"] = nullptr;
  }

  // T14: how many phases had their timestamp unit checked and how many were converted.
  // B11: written only when there is something in it (a measurement before it had none).
  if (m.ledger != Ledger{}) {
    const Ledger& l = m.ledger;
    Json& lj = j["ledger"];
    lj["iteration_records"] = l.iteration_records;
    lj["harness_records"] = l.harness_records;
    lj["unaccounted_records"] = l.unaccounted_records;
    lj["canaries_launched"] = l.canaries_launched;
    lj["canaries_seen"] = l.canaries_seen;
    lj["iterations"] = l.iterations;
    lj["fresh_inputs"] = l.fresh_inputs;
    lj["checked_iterations"] = l.checked_iterations;
    lj["inputs_records"] = l.inputs_records;
    lj["inputs_busy_ns"] = l.inputs_busy_ns;
    lj["reset_records"] = l.reset_records;
    lj["reset_busy_ns"] = l.reset_busy_ns;
    lj["check_records"] = l.check_records;
    lj["check_busy_ns"] = l.check_busy_ns;
  }
  if (m.timestamp_check) {
    Json& tc = j["timestamp_check"];
    tc["phases"] = m.timestamp_check->phases;
    tc["converted"] = m.timestamp_check->converted;
    tc["min_scale"] = number(m.timestamp_check->min_scale, where + ".timestamp_check.min_scale");
    tc["max_scale"] = number(m.timestamp_check->max_scale, where + ".timestamp_check.max_scale");
  } else {
    j["timestamp_check"] = nullptr;
  }

  // A measurement run to a target precision: what was asked, reached, and why it stopped.
  if (m.precision) {
    const PrecisionOutcome& p = *m.precision;
    Json& pj = j["precision"];
    pj["target"] = number(p.target, where + ".precision.target");
    pj["max_time_ns"] = p.max_time_ns;
    pj["reached"] = number(p.reached, where + ".precision.reached");
    pj["passes"] = p.passes;
    pj["stopped"] = to_string(p.stopped);
    pj["elapsed_ns"] = p.elapsed_ns;
  } else {
    j["precision"] = nullptr;
  }

  Json& memory = j["memory"];
  memory["gpu_context_floor_bytes"] = nullable(result.memory.gpu_context_floor_bytes);
  memory["gpu_after_case_bytes"] = nullable(result.memory.gpu_after_case_bytes);
  memory["host_peak_rss_bytes"] = nullable(result.memory.host_peak_rss_bytes);
  memory["own_process"] = result.memory.own_process;
  memory["host_peak_reset"] = result.memory.host_peak_reset;

  // B10 (version 8): the board the row ran on; a row that names none ran on its record's device.
  const Board& b = result.board.known() ? result.board : own;
  Json& board = j["board"];
  board["uuid"] = text_or_null(fitted(b.uuid, kName));
  board["name"] = fitted(b.name, kName);
  board["sm_clock_mhz"] = nullable(b.sm_clock_mhz);
  board["sm_clock_max_mhz"] = nullable(b.sm_clock_max_mhz);
  board["memory_clock_mhz"] = nullable(b.memory_clock_mhz);
  put_version_10_fields(j, result, where, version);
  // Version 12: the row's flags, as finish_record decided them (checked on reading). A journal's
  // line holds none: they are its record's to decide once every row is in.
  if (version >= kRowFlagsSince && with_flags) {
    const RowFlags& f = result.flags;
    Json& fj = j["flags"];
    fj["clock_flagged"] = f.clock_flagged;
    fj["low_clock"] = f.low_clock;
    fj["retries"] = f.retries;
    fj["uncounted_copy"] = f.uncounted_copy;
    fj["copy_exceeds_busy"] = f.copy_exceeds_busy;
    fj["drops_unproven"] = f.drops_unproven;
    fj["call_overhead"] = f.call_overhead;
  }
  return j;
}

// The ceilings and how they were timed: the raw samples of each run are the evidence, and the
// values are what kCeilingRule makes of them (checked on reading).
Json ceilings_json(const Ceilings& c) {
  if (!c.method && !c.runs.empty()) {
    throw Error("cannot write record: ceiling runs without the timing method that timed them");
  }
  Json j;
  j["flops_per_s"] = nullable_number(c.flops_per_s, "ceilings.flops_per_s");
  j["bytes_per_s"] = nullable_number(c.bytes_per_s, "ceilings.bytes_per_s");
  j["timing_method"] = c.method ? Json(std::string(record_word(*c.method))) : Json(nullptr);
  j["statistic"] =
      c.method ? Json(std::string(record_word(statistic_of(*c.method)))) : Json(nullptr);
  j["rule"] = c.method ? Json(std::string(kCeilingRule)) : Json(nullptr);
  j["runs"] = Json::array();
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    const CeilingRun& run = c.runs[i];
    Json jr;
    jr["ceiling"] = std::string(to_string(run.kind));
    jr["work"] = fitted(run.work, kText);
    jr["per_call"] = number(run.per_call, fmt::format("ceilings.runs[{}].per_call", i));
    jr["samples_ns"] = run.samples_ns;
    j["runs"].push_back(std::move(jr));
  }
  return j;
}
namespace {

Json difference_json(const RelativeDifference& d) {
  Json j;
  j["estimate"] = number(d.estimate, "comparison estimate");
  j["low"] = number(d.low, "comparison low");
  j["high"] = number(d.high, "comparison high");
  j["confidence"] = d.confidence;
  j["smallest_detectable"] = number(d.smallest_detectable, "comparison smallest_detectable");
  j["degrees_of_freedom"] = d.degrees_of_freedom;
  j["timestamp_tick_ns"] = d.timestamp_tick_ns;
  return j;
}
}  // namespace

Json comparison_json(const Comparison& c) {
  Json j;
  j["case"] = c.baseline.case_name;
  j["params"] = Json::object();
  for (const auto& [key, value] : c.baseline.params) j["params"][key] = value;
  j["baseline"] = c.baseline.implementation;
  j["candidate"] = c.candidate.implementation;
  j["statistic"] = std::string(record_word(c.statistic));
  j["rule"] = to_string(c.rule);
  j["difference"] = c.difference ? difference_json(*c.difference) : Json(nullptr);
  if (c.ratio) {
    j["ratio"]["speedup"] = number(c.ratio->speedup, "comparison speedup");
    j["ratio"]["resolution"] = to_string(c.ratio->resolution);
  } else {
    j["ratio"] = nullptr;
  }
  j["refusal"] = c.refusal;
  j["baseline_mean_ns"] = number(c.baseline_mean_ns, "comparison baseline_mean_ns");
  j["candidate_mean_ns"] = number(c.candidate_mean_ns, "comparison candidate_mean_ns");
  j["inputs"] = c.fresh_inputs ? Json(*c.fresh_inputs ? "fresh" : "fixed") : Json(nullptr);
  return j;
}

Json failure_json(const Failure& f) {
  Json jf;
  put_row(jf, f.row);
  jf["error"] = fitted(f.error, kName);
  jf["message"] = fitted(f.message, kText);
  return jf;
}

Json text_json(const std::string& text) {
  return fitted(text, kText);
}

namespace {

bool says(const Record& record, std::string_view mark) {
  return std::any_of(record.deviations.begin(), record.deviations.end(),
                     [mark](const std::string& d) { return d.rfind(mark, 0) == 0; });
}

// The deviations by which a version 8 record says what its rows are, where `record` lacks them:
// a merge of program runs (kMergedProgramsMark), and rows measured before ledgers
// (kBeforeLedgersMark).
std::vector<std::string> version_8_words(const Record& record) {
  std::vector<std::string> out;
  if (record.merged_programs && !says(record, kMergedProgramsMark)) {
    out.push_back(merged_programs_deviation("records merged earlier"));
  }
  const bool before_ledgers = std::any_of(
      record.results.begin(), record.results.end(),
      [](const Result& r) { return r.measurement.origin == RowOrigin::before_ledgers; });
  if (before_ledgers && !says(record, kBeforeLedgersMark)) {
    out.push_back(std::string(kBeforeLedgersMark) +
                  "read from a record of a schema_version before 8, whose CUPTI rows hold no "
                  "ledger: no canary proves collection was on while they ran");
  }
  return out;
}

}  // namespace

Json header_json(const Record& record) {
  // A record read from a version of older comparison rules writes back as that version: 8 (the
  // older intervals; its fields are version 9's, version 10's said as version 8 said them) or 10
  // (the older host-clock rule; no load averages), its comparisons and precision outcomes that
  // version's.
  if (record.schema_version != kRecordSchemaVersion &&
      record.schema_version != records_rules_version(record.schema_version)) {
    throw Error(
        fmt::format("cannot write schema_version {}: this gpumeter writes {} (and {} or {} for "
                    "a record read from an older version)",
                    record.schema_version, kRecordSchemaVersion, kCalibratedIntervalsSince - 1,
                    kHostClockRulesSince - 1));
  }
  Json j;
  j["schema"] = kRecordSchemaName;
  j["schema_version"] = record.schema_version;
  j["run_id"] = row_name(record.run_id, "run_id");
  j["created_utc"] = fitted(record.created_utc, kName);
  j["gpumeter_version"] = fitted(record.gpumeter_version, kName);
  j["argv"] = Json::array();
  for (const std::string& arg : record.argv) j["argv"].push_back(fitted(arg, kArgument));
  j["project_commit"] = text_or_null(fitted(record.project_commit, kName));

  Json& host = j["host"];
  host["hostname"] = fitted(record.host.hostname, kName);
  host["cpu_model"] = fitted(record.host.cpu_model, kText);
  host["logical_cores"] = nullable(record.host.logical_cores);
  host["os"] = fitted(record.host.os, kText);

  const DeviceIdentity& d = record.device;
  Json& device = j["device"];
  device["kind"] = fitted(d.kind, kName);
  device["index"] = d.index;
  device["name"] = fitted(d.name, kName);
  device["uuid"] = text_or_null(fitted(d.uuid, kName));
  device["arch"] = fitted(d.arch, kName);
  device["multiprocessors"] = nullable(d.multiprocessors);
  device["l2_bytes"] = nullable(d.l2_bytes);
  device["memory_bytes"] = nullable(d.memory_bytes);

  const DeviceState& st = record.device_state;
  Json& state = j["device_state"];
  state["driver_version"] =
      st.driver_version ? Json(fitted(*st.driver_version, kName)) : Json(nullptr);
  for (const SoftwareVersion& v : st.software_versions) {
    if (!is_software_version_field(v.name)) {
      throw Error("cannot write record: device_state has no field for the software version \"" +
                  v.name + "\"");
    }
  }
  for (const std::string_view key : kSoftwareVersionFields) {
    std::optional<int> value;
    for (const SoftwareVersion& v : st.software_versions) {
      if (v.name == key) value = v.value;
    }
    state[std::string(key)] = nullable(value);
  }
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

  j["ceilings"] = ceilings_json(record.ceilings);

  const RunConfig& c = record.config;
  Json& config = j["config"];
  config["warmup_ms"] = to_ms(c.budget.warmup_ns);
  config["measure_ms"] = to_ms(c.budget.measure_ns);
  config["min_iterations"] = c.budget.min_iterations;
  config["max_iterations"] = c.budget.max_iterations;
  config["l2_flush"] = c.l2_flush;
  config["l2_flush_mode"] =
      c.l2_flush_mode.empty() ? Json(nullptr) : Json(fitted(c.l2_flush_mode, kName));
  config["schedule"] = fitted(c.schedule, kName);
  config["launch_cost_ns"] = nullable(c.launch_cost_ns);

  j["deviations"] = Json::array();
  for (const std::string& deviation : record.deviations) {
    j["deviations"].push_back(fitted(deviation, kText));
  }
  if (record.schema_version >= kRowOriginsSince) {
    j["merged_programs"] = record.merged_programs;
  } else {
    // Version 8 said in its deviations what version 10 says in fields; its reader reads them.
    for (const std::string& said : version_8_words(record)) j["deviations"].push_back(said);
  }
  // Only a shard's record has the section (in the header, so a killed shard's journal has it too).
  if (record.shard) {
    const ShardPlan& plan = *record.shard;
    Json& shard = j["shard"];
    shard["index"] = plan.shard.index;
    shard["count"] = plan.shard.count;
    shard["source"] = std::string(to_string(plan.shard.source));
    shard["origin"] = fitted(plan.shard.origin, kText);
    shard["cases"] = Json::array();
    for (const DealtCase& dealt : plan.cases) {
      Json one;
      put_row(one, dealt.row);
      one.erase("implementation");  // a case is dealt whole
      one["cost"] = number(dealt.cost, "shard.cases.cost");
      one["shard"] = dealt.shard;
      shard["cases"].push_back(std::move(one));
    }
  }
  return j;
}

namespace {

std::string line(const char* key, Json value) {
  Json j;
  j[key] = std::move(value);
  return j.dump() + "\n";  // dump() escapes every control character: one object, one line
}

}  // namespace

std::string journal_header_line(const Record& header, std::size_t planned_cases) {
  Json j;
  j["journal"] = kJournalName;
  j["journal_version"] = kJournalVersion;
  j["cases"] = planned_cases;
  j["record"] = header_json(header);
  return j.dump() + "\n";
}

std::string journal_setup_line(const Record& measured) {
  return line("setup", header_json(measured));
}

std::string journal_deviation_line(const std::string& deviation) {
  return line("deviation", text_json(deviation));
}

std::string journal_ceilings_line(const Ceilings& ceilings) {
  return line("ceilings", ceilings_json(ceilings));
}

std::string journal_case_line(const std::vector<Result>& results, std::size_t first_index,
                              const std::vector<Failure>& failures, const Board& own) {
  Json c;
  c["results"] = Json::array();
  for (std::size_t i = 0; i < results.size(); ++i) {
    c["results"].push_back(
        result_json(results[i], first_index + i, own, kRecordSchemaVersion, false));
  }
  c["failures"] = Json::array();
  for (const Failure& f : failures) c["failures"].push_back(failure_json(f));
  return line("case", std::move(c));
}

}  // namespace record_json

using namespace record_json;

namespace {

// The phases a user waits for: raw samples and where each was taken; total(N), crossovers and
// growth are derived on reading, never stored.
Json phases_json(const std::vector<PhaseReading>& phases) {
  Json a = Json::array();
  for (const PhaseReading& p : phases) {
    Json j;
    put_row(j, p.row);
    j["phase"] = std::string(to_string(p.phase));
    j["statistic"] = std::string(record_word(p.statistic));
    j["setting"] = std::string(to_string(p.setting));
    j["samples_ns"] = p.samples_ns;
    j["recaptures"] = nullable(p.recaptures);
    a.push_back(std::move(j));
  }
  return a;
}

Json totals_json(const std::vector<MeasuredTotal>& totals) {
  Json a = Json::array();
  for (const MeasuredTotal& t : totals) {
    Json j;
    put_row(j, t.row);
    j["calls"] = t.calls;
    j["setting"] = std::string(to_string(t.setting));
    j["samples_ns"] = t.samples_ns;
    a.push_back(std::move(j));
  }
  return a;
}

Json runtimes_json(const std::vector<CandidateRuntime>& runtimes) {
  Json a = Json::array();
  for (const CandidateRuntime& c : runtimes) {
    Json j;
    j["implementation"] = row_name(c.implementation, "an implementation's name");
    j["runtime"] = fitted(c.runtime, kName);
    j["version"] = fitted(c.version, kName);
    j["device_alias"] = fitted(c.device_alias, kName);
    j["arch"] = fitted(c.arch, kName);
    j["synchronized_by"] = fitted(c.synchronized_by, kName);
    j["notes"] = Json::array();
    for (const std::string& note : c.notes) j["notes"].push_back(fitted(note, kText));
    a.push_back(std::move(j));
  }
  return a;
}

// A program timed by its NVTX ranges.
Json program_json(const std::optional<ProgramRun>& program) {
  const ProgramRun& p = *program;
  Json j;
  j["command"] = Json::array();
  for (const std::string& arg : p.command) j["command"].push_back(fitted(arg, kArgument));
  j["range_regex"] = p.range_regex ? Json(fitted(*p.range_regex, kText)) : Json(nullptr);
  j["domain"] = p.domain ? Json(fitted(*p.domain, kName)) : Json(nullptr);
  j["engine_threads"] = fitted(p.engine_threads, kText);
  j["runs"] = p.runs;
  j["processes"] = Json::array();
  for (const ProgramProcess& q : p.processes) {
    j["processes"].push_back({{"pid", q.pid},
                              {"parent_pid", q.parent_pid},
                              {"origin", to_string(q.origin)},
                              {"range_events", q.range_events},
                              {"launches", q.launches},
                              {"device_records", q.device_records},
                              {"run", q.run}});
  }
  j["ranges"] = Json::array();
  for (const ProgramRange& r : p.ranges) {
    j["ranges"].push_back({{"domain", fitted(r.domain, kName)},
                           {"name", fitted(r.name, kName)},
                           {"instances", r.instances},
                           {"with_device_work", r.with_device_work}});
  }
  j["outside"] = Json::array();
  for (const ProgramOutsideKernels& o : p.outside) {
    j["outside"].push_back({{"pid", o.pid},
                            {"thread", o.thread},
                            {"thread_name", fitted(o.thread_name, kName)},
                            {"kernel", fitted(o.kernel, kText)},
                            {"n_kernels", o.n_kernels},
                            {"total_ns", o.total_ns},
                            {"device_busy_ns", o.device_busy_ns},
                            {"run", o.run}});
  }
  j["launches_without_work"] = Json::array();
  for (const ProgramLaunchesWithoutWork& l : p.launches_without_work) {
    j["launches_without_work"].push_back({{"pid", l.pid},
                                          {"thread", l.thread},
                                          {"api", fitted(l.api, kName)},
                                          {"n", l.n},
                                          {"kernel_launch_api", l.kernel_launch_api},
                                          {"run", l.run}});
  }
  return j;
}

}  // namespace

std::string serialize(const Record& record) {
  Json j = header_json(record);
  j["results"] = Json::array();
  const Board own = board_of(record.device, record.device_state);
  for (std::size_t i = 0; i < record.results.size(); ++i) {
    j["results"].push_back(result_json(record.results[i], i, own, record.schema_version));
  }
  j["failures"] = Json::array();
  for (const Failure& f : record.failures) j["failures"].push_back(failure_json(f));
  j["comparisons"] = Json::array();
  for (const Comparison& cmp : record.comparisons) j["comparisons"].push_back(comparison_json(cmp));
  j["phases"] = phases_json(record.phases);
  j["totals"] = totals_json(record.totals);
  j["runtimes"] = runtimes_json(record.runtimes);
  // Only a program's record has the section: every other record reads as it did in version 6.
  if (record.program) j["program"] = program_json(record.program);
  return j.dump(2) + "\n";
}

std::string ceilings_to_json(const Ceilings& ceilings) {
  return ceilings_json(ceilings).dump();
}

}  // namespace gpumeter
