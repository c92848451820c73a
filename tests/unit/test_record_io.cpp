#include "gpumeter/detail/record_io.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstddef>
#include <cstdint>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/merge.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/errors.hpp"
#include "synthetic_record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using testing::full_record;
using testing::sparse_record;

// ms in the file and ns in memory: the conversion may move a summary value by an ulp or two,
// so those compare with EXPECT_DOUBLE_EQ (4 ulps); everything else compares exactly.
void expect_spread_eq(const Spread& a, const Spread& b) {
  EXPECT_DOUBLE_EQ(a.median_ns, b.median_ns);
  EXPECT_DOUBLE_EQ(a.p10_ns, b.p10_ns);
  EXPECT_DOUBLE_EQ(a.p90_ns, b.p90_ns);
}

void expect_records_equal(const Record& a, const Record& b) {
  EXPECT_EQ(a.schema_version, b.schema_version);
  EXPECT_EQ(a.run_id, b.run_id);
  EXPECT_EQ(a.created_utc, b.created_utc);
  EXPECT_EQ(a.gpumeter_version, b.gpumeter_version);
  EXPECT_EQ(a.argv, b.argv);
  EXPECT_EQ(a.project_commit, b.project_commit);
  EXPECT_EQ(a.host.hostname, b.host.hostname);
  EXPECT_EQ(a.host.cpu_model, b.host.cpu_model);
  EXPECT_EQ(a.host.logical_cores, b.host.logical_cores);
  EXPECT_EQ(a.host.os, b.host.os);
  EXPECT_EQ(a.device.kind, b.device.kind);
  EXPECT_EQ(a.device.index, b.device.index);
  EXPECT_EQ(a.device.name, b.device.name);
  EXPECT_EQ(a.device.uuid, b.device.uuid);
  EXPECT_EQ(a.device.arch, b.device.arch);
  EXPECT_EQ(a.device.multiprocessors, b.device.multiprocessors);
  EXPECT_EQ(a.device.l2_bytes, b.device.l2_bytes);
  EXPECT_EQ(a.device.memory_bytes, b.device.memory_bytes);
  const DeviceState& s = a.device_state;
  const DeviceState& t = b.device_state;
  EXPECT_EQ(s.driver_version, t.driver_version);
  EXPECT_EQ(s.software_versions, t.software_versions);
  EXPECT_EQ(s.sm_clock_mhz, t.sm_clock_mhz);
  EXPECT_EQ(s.sm_clock_max_mhz, t.sm_clock_max_mhz);
  EXPECT_EQ(s.memory_clock_mhz, t.memory_clock_mhz);
  EXPECT_EQ(s.temperature_c, t.temperature_c);
  EXPECT_EQ(s.power_w, t.power_w);
  EXPECT_EQ(s.throttle_reasons, t.throttle_reasons);
  EXPECT_EQ(s.utilization_pct, t.utilization_pct);
  EXPECT_EQ(s.memory_free_bytes, t.memory_free_bytes);
  EXPECT_EQ(s.memory_used_bytes, t.memory_used_bytes);
  EXPECT_EQ(s.compute_processes, t.compute_processes);
  EXPECT_EQ(a.ceilings.flops_per_s, b.ceilings.flops_per_s);
  EXPECT_EQ(a.ceilings.bytes_per_s, b.ceilings.bytes_per_s);
  EXPECT_EQ(a.ceilings.method, b.ceilings.method);
  ASSERT_EQ(a.ceilings.runs.size(), b.ceilings.runs.size());
  for (std::size_t i = 0; i < a.ceilings.runs.size(); ++i) {
    EXPECT_EQ(a.ceilings.runs[i].kind, b.ceilings.runs[i].kind);
    EXPECT_EQ(a.ceilings.runs[i].work, b.ceilings.runs[i].work);
    EXPECT_EQ(a.ceilings.runs[i].per_call, b.ceilings.runs[i].per_call);
    EXPECT_EQ(a.ceilings.runs[i].samples_ns, b.ceilings.runs[i].samples_ns);
  }
  EXPECT_EQ(a.config.budget.warmup_ns, b.config.budget.warmup_ns);
  EXPECT_EQ(a.config.budget.measure_ns, b.config.budget.measure_ns);
  EXPECT_EQ(a.config.budget.min_iterations, b.config.budget.min_iterations);
  EXPECT_EQ(a.config.budget.max_iterations, b.config.budget.max_iterations);
  EXPECT_EQ(a.config.l2_flush, b.config.l2_flush);
  EXPECT_EQ(a.config.l2_flush_mode, b.config.l2_flush_mode);
  EXPECT_EQ(a.config.schedule, b.config.schedule);
  EXPECT_EQ(a.config.launch_cost_ns, b.config.launch_cost_ns);
  EXPECT_EQ(a.deviations, b.deviations);
  EXPECT_EQ(a.merged_programs, b.merged_programs);
  ASSERT_EQ(a.phases.size(), b.phases.size());
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    EXPECT_EQ(a.phases[i].row, b.phases[i].row);
    EXPECT_EQ(a.phases[i].phase, b.phases[i].phase);
    EXPECT_EQ(a.phases[i].statistic, b.phases[i].statistic);
    EXPECT_EQ(a.phases[i].setting, b.phases[i].setting);
    EXPECT_EQ(a.phases[i].samples_ns, b.phases[i].samples_ns);
    EXPECT_EQ(a.phases[i].recaptures, b.phases[i].recaptures);
  }
  ASSERT_EQ(a.totals.size(), b.totals.size());
  for (std::size_t i = 0; i < a.totals.size(); ++i) {
    EXPECT_EQ(a.totals[i].row, b.totals[i].row);
    EXPECT_EQ(a.totals[i].calls, b.totals[i].calls);
    EXPECT_EQ(a.totals[i].setting, b.totals[i].setting);
    EXPECT_EQ(a.totals[i].samples_ns, b.totals[i].samples_ns);
  }
  ASSERT_EQ(a.runtimes.size(), b.runtimes.size());
  for (std::size_t i = 0; i < a.runtimes.size(); ++i) {
    const CandidateRuntime& x = a.runtimes[i];
    const CandidateRuntime& y = b.runtimes[i];
    EXPECT_EQ(x.implementation, y.implementation);
    EXPECT_EQ(x.runtime, y.runtime);
    EXPECT_EQ(x.version, y.version);
    EXPECT_EQ(x.device_alias, y.device_alias);
    EXPECT_EQ(x.arch, y.arch);
    EXPECT_EQ(x.synchronized_by, y.synchronized_by);
    EXPECT_EQ(x.notes, y.notes);
  }
  ASSERT_EQ(a.shard.has_value(), b.shard.has_value());
  if (a.shard) {
    EXPECT_EQ(a.shard->shard, b.shard->shard);
    EXPECT_EQ(a.shard->cases, b.shard->cases);
  }
  ASSERT_EQ(a.program.has_value(), b.program.has_value());
  if (a.program) {
    const ProgramRun& x = *a.program;
    const ProgramRun& y = *b.program;
    EXPECT_EQ(x.command, y.command);
    EXPECT_EQ(x.range_regex, y.range_regex);
    EXPECT_EQ(x.domain, y.domain);
    EXPECT_EQ(x.engine_threads, y.engine_threads);
    EXPECT_EQ(x.runs, y.runs);
    ASSERT_EQ(x.processes.size(), y.processes.size());
    for (std::size_t i = 0; i < x.processes.size(); ++i) {
      EXPECT_EQ(x.processes[i].pid, y.processes[i].pid);
      EXPECT_EQ(x.processes[i].parent_pid, y.processes[i].parent_pid);
      EXPECT_EQ(x.processes[i].origin, y.processes[i].origin);
      EXPECT_EQ(x.processes[i].range_events, y.processes[i].range_events);
      EXPECT_EQ(x.processes[i].launches, y.processes[i].launches);
      EXPECT_EQ(x.processes[i].device_records, y.processes[i].device_records);
      EXPECT_EQ(x.processes[i].run, y.processes[i].run);
    }
    ASSERT_EQ(x.ranges.size(), y.ranges.size());
    for (std::size_t i = 0; i < x.ranges.size(); ++i) {
      EXPECT_EQ(x.ranges[i].domain, y.ranges[i].domain);
      EXPECT_EQ(x.ranges[i].name, y.ranges[i].name);
      EXPECT_EQ(x.ranges[i].instances, y.ranges[i].instances);
      EXPECT_EQ(x.ranges[i].with_device_work, y.ranges[i].with_device_work);
    }
    ASSERT_EQ(x.outside.size(), y.outside.size());
    for (std::size_t i = 0; i < x.outside.size(); ++i) {
      EXPECT_EQ(x.outside[i].pid, y.outside[i].pid);
      EXPECT_EQ(x.outside[i].thread, y.outside[i].thread);
      EXPECT_EQ(x.outside[i].thread_name, y.outside[i].thread_name);
      EXPECT_EQ(x.outside[i].kernel, y.outside[i].kernel);
      EXPECT_EQ(x.outside[i].n_kernels, y.outside[i].n_kernels);
      EXPECT_EQ(x.outside[i].total_ns, y.outside[i].total_ns);
      EXPECT_EQ(x.outside[i].device_busy_ns, y.outside[i].device_busy_ns);
      EXPECT_EQ(x.outside[i].run, y.outside[i].run);
    }
    ASSERT_EQ(x.launches_without_work.size(), y.launches_without_work.size());
    for (std::size_t i = 0; i < x.launches_without_work.size(); ++i) {
      EXPECT_EQ(x.launches_without_work[i].api, y.launches_without_work[i].api);
      EXPECT_EQ(x.launches_without_work[i].n, y.launches_without_work[i].n);
      EXPECT_EQ(x.launches_without_work[i].kernel_launch_api,
                y.launches_without_work[i].kernel_launch_api);
      EXPECT_EQ(x.launches_without_work[i].pid, y.launches_without_work[i].pid);
      EXPECT_EQ(x.launches_without_work[i].run, y.launches_without_work[i].run);
    }
  }
  ASSERT_EQ(a.results.size(), b.results.size());
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    SCOPED_TRACE("result " + std::to_string(i));
    const Result& x = a.results[i];
    const Result& y = b.results[i];
    EXPECT_EQ(x.row, y.row);
    // A row that names no board ran on its record's device (fill_boards): so it reads back.
    const auto board = [](const Record& rec, const Result& r) {
      return r.board.known() ? r.board : board_of(rec.device, rec.device_state);
    };
    EXPECT_EQ(board(a, x), board(b, y));
    EXPECT_EQ(x.count_copies, y.count_copies);
    EXPECT_EQ(x.workload.flops, y.workload.flops);
    EXPECT_EQ(x.workload.bytes, y.workload.bytes);
    EXPECT_EQ(x.answer_check, y.answer_check);
    const Measurement& m = x.measurement;
    const Measurement& n = y.measurement;
    EXPECT_EQ(m.origin, n.origin);
    EXPECT_EQ(m.method, n.method);
    EXPECT_EQ(m.reason, n.reason);
    EXPECT_EQ(m.retries, n.retries);
    EXPECT_EQ(m.warmup_iterations, n.warmup_iterations);
    EXPECT_EQ(m.measure_iterations, n.measure_iterations);
    EXPECT_EQ(m.estimate_ns, n.estimate_ns);
    EXPECT_EQ(m.drop_counter_live, n.drop_counter_live);
    EXPECT_EQ(m.pass_sizes, n.pass_sizes);
    EXPECT_EQ(m.timestamp_tick_ns, n.timestamp_tick_ns);
    ASSERT_EQ(m.samples.size(), n.samples.size());
    for (std::size_t k = 0; k < m.samples.size(); ++k) {
      EXPECT_EQ(m.samples[k].device_busy_ns, n.samples[k].device_busy_ns);
      EXPECT_EQ(m.samples[k].latency_ns, n.samples[k].latency_ns);
      EXPECT_EQ(m.samples[k].n_kernels, n.samples[k].n_kernels);
      EXPECT_EQ(m.samples[k].uncounted_copy_ns, n.samples[k].uncounted_copy_ns);
      EXPECT_EQ(m.samples[k].clock.has_value(), n.samples[k].clock.has_value());
      if (m.samples[k].clock && n.samples[k].clock) {
        EXPECT_EQ(m.samples[k].clock->sm_mhz, n.samples[k].clock->sm_mhz);
        EXPECT_EQ(m.samples[k].clock->throttle_reasons, n.samples[k].clock->throttle_reasons);
      }
    }
    EXPECT_EQ(m.timestamp_check.has_value(), n.timestamp_check.has_value());
    if (m.timestamp_check && n.timestamp_check) {
      EXPECT_EQ(m.timestamp_check->phases, n.timestamp_check->phases);
      EXPECT_EQ(m.timestamp_check->converted, n.timestamp_check->converted);
      EXPECT_EQ(m.timestamp_check->min_scale, n.timestamp_check->min_scale);
      EXPECT_EQ(m.timestamp_check->max_scale, n.timestamp_check->max_scale);
    }
    EXPECT_EQ(m.yardstick.has_value(), n.yardstick.has_value());
    if (m.yardstick && n.yardstick) {
      EXPECT_EQ(m.yardstick->work, n.yardstick->work);
      EXPECT_EQ(m.yardstick->pass_ns, n.yardstick->pass_ns);
    }
    EXPECT_EQ(m.null_test.has_value(), n.null_test.has_value());
    if (m.null_test && n.null_test) {
      EXPECT_EQ(m.null_test->scale, n.null_test->scale);
      EXPECT_EQ(m.null_test->scaled_ns, n.null_test->scaled_ns);
    }
    // What finish decided of the row: its null test's outcome and its flags.
    EXPECT_EQ(x.null_test_outcome.has_value(), y.null_test_outcome.has_value());
    if (x.null_test_outcome && y.null_test_outcome) {
      EXPECT_EQ(describe(*x.null_test_outcome), describe(*y.null_test_outcome));
    }
    EXPECT_TRUE(x.flags == y.flags) << x.row.implementation;
    EXPECT_EQ(x.memory.gpu_context_floor_bytes, y.memory.gpu_context_floor_bytes);
    EXPECT_EQ(x.memory.gpu_after_case_bytes, y.memory.gpu_after_case_bytes);
    EXPECT_EQ(x.memory.host_peak_rss_bytes, y.memory.host_peak_rss_bytes);
    EXPECT_EQ(x.memory.own_process, y.memory.own_process);
    EXPECT_EQ(x.memory.host_peak_reset, y.memory.host_peak_reset);
    // Every summary value, through the one column list the writer and reader use. The reader
    // recomputes summaries from the integer samples, so they compare exactly.
    EXPECT_EQ(x.summary.method, y.summary.method);
    for (const Column& c : result_columns()) {
      if (c.summary == nullptr) continue;
      EXPECT_EQ(number_of(c, x), number_of(c, y)) << c.id;
    }
  }
  ASSERT_EQ(a.comparisons.size(), b.comparisons.size());
  for (std::size_t i = 0; i < a.comparisons.size(); ++i) {
    const Comparison& x = a.comparisons[i];
    const Comparison& y = b.comparisons[i];
    EXPECT_EQ(x.baseline, y.baseline);
    EXPECT_EQ(x.candidate, y.candidate);
    EXPECT_EQ(x.rule, y.rule);
    EXPECT_EQ(x.refusal, y.refusal);
    EXPECT_EQ(describe(x), describe(y));
  }
}

// ---------------------------------------------------------------------------------------------
// Round trip

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A record of an older version once read: held as the last version of the older interval rules,
// its comparisons by those rules, without what version 10 added (no answer check was stated).
Record by_older_rules(Record want) {
  want.schema_version = kCalibratedIntervalsSince - 1;
  for (Result& r : want.results) r.answer_check.reset();
  finish_record(want, want.schema_version);
  return want;
}

// A record of `version` < 8 as the reader gives it: its CUPTI rows hold no ledger and were
// measured before ledgers (their origin), and the record says so in a deviation for people
// (kBeforeLedgersMark), which is also how a version 8 record says it when written back as one.
Record before_ledgers(Record want, int version) {
  want = by_older_rules(std::move(want));
  for (Result& r : want.results) {
    if (r.measurement.method == TimingMethod::kernel_records) {
      r.measurement.origin = RowOrigin::before_ledgers;
    }
  }
  want.deviations.push_back(std::string(kBeforeLedgersMark) + "read from a schema_version " +
                            std::to_string(version) +
                            " record, whose CUPTI rows hold no ledger: no canary proves "
                            "collection was on while they ran");
  return want;
}

TEST(RecordRoundTrip, EveryFieldSetSurvives) {
  const Record original = full_record();
  const std::string text = serialize(original);
  const Record back = parse_record(text, "full.json");
  expect_records_equal(original, back);
  // And the text is a fixed point: nothing drifts on a second pass.
  EXPECT_EQ(serialize(back), text);
}

TEST(RecordRoundTrip, EveryOptionalEmptySurvivesAsNull) {
  const Record original = sparse_record();
  const std::string text = serialize(original);
  const Record back = parse_record(text, "sparse.json");
  expect_records_equal(original, back);
  EXPECT_EQ(serialize(back), text);

  const auto j = ordered_json::parse(text);
  EXPECT_TRUE(j["project_commit"].is_null());
  EXPECT_TRUE(j["host"]["logical_cores"].is_null());
  EXPECT_TRUE(j["device"]["uuid"].is_null());
  for (const auto& [key, value] : j["device_state"].items()) {
    EXPECT_TRUE(value.is_null()) << "device_state." << key << " = " << value.dump();
  }
  EXPECT_TRUE(j["ceilings"]["flops_per_s"].is_null());
  EXPECT_TRUE(j["ceilings"]["bytes_per_s"].is_null());
}

TEST(RecordRoundTrip, EmptyRecordWithNoResults) {
  Record original;
  original.run_id = "r";
  const Record back = parse_record(serialize(original), "empty.json");
  expect_records_equal(original, back);
}

TEST(RecordRoundTrip, SummaryValuesStayWithinAnUlpAcrossMilliseconds) {
  Record r = full_record();
  // An even count of samples: the median and quantiles fall between samples, in fractions of
  // a nanosecond, which must survive the trip through milliseconds.
  r.results[0].measurement.samples.pop_back();
  r.results[0].measurement.pass_sizes = {2, 2};
  r.results[0].measurement.measure_iterations = 4;  // the same budget gives 2 and 2
  testing::derive_summaries(r);
  ASSERT_NE(r.results[0].summary.device_busy.median_ns,
            static_cast<double>(static_cast<Nanos>(r.results[0].summary.device_busy.median_ns)));
  const Record back = parse_record(serialize(r), "x.json");
  expect_spread_eq(r.results[0].summary.device_busy, back.results[0].summary.device_busy);
  EXPECT_DOUBLE_EQ(back.results[0].summary.gap_ns, r.results[0].summary.gap_ns);
}

TEST(RecordStrictReading, SummaryTheSamplesDoNotGiveIsRefused) {
  // P10: the raw samples are the evidence; an edited median must not reach a table.
  Record r = full_record();
  r.results[0].summary.device_busy.median_ns -= 1000;
  try {
    (void)parse_record(serialize(r), "x.json");
    FAIL() << "an altered summary was accepted";
  } catch (const InvalidRecord& e) {
    const std::string what = e.what();
    // In the unit the field names: ms, as the record stores it (was "give 12345", in ns).
    EXPECT_NE(what.find("results[0].summary.device_busy_ms.median is 0.011345 but the record's "
                        "samples give 0.012345"),
              std::string::npos)
        << what;
  }
  r = full_record();
  r.results[0].summary.tbs = std::nullopt;  // declared bytes, so TB/s must be there
  EXPECT_THROW((void)parse_record(serialize(r), "x.json"), InvalidRecord);
}

// ---------------------------------------------------------------------------------------------
// Schema: the fields and units promised in the issue

TEST(RecordSchema, FieldsNamesAndUnits) {
  const auto j = ordered_json::parse(serialize(full_record()));
  EXPECT_EQ(j["schema"], "gpumeter.record");
  EXPECT_EQ(j["schema_version"], kRecordSchemaVersion);
  EXPECT_EQ(j["run_id"], "20261129T112650Z-4242-0badcafe");
  EXPECT_EQ(j["project_commit"], "3f2a9c1");
  EXPECT_EQ(j["device_state"]["throttle_reasons"].get<std::uint64_t>(), 0x8000000000000004ULL);
  EXPECT_DOUBLE_EQ(j["config"]["warmup_ms"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(j["config"]["measure_ms"].get<double>(), 50.0);
  EXPECT_EQ(j["config"]["min_iterations"], 5);
  EXPECT_EQ(j["config"]["max_iterations"], 100);
  EXPECT_EQ(j["config"]["schedule"], "ABCCBA");

  const auto& r0 = j["results"][0];
  EXPECT_EQ(r0["case"], "gemm");
  EXPECT_EQ(r0["timing_method"], "cupti");
  EXPECT_EQ(r0["statistic"], "device_busy");
  EXPECT_DOUBLE_EQ(r0["estimate_ms"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(r0["summary"]["device_busy_ms"]["median"].get<double>(), 0.012345);
  EXPECT_DOUBLE_EQ(r0["summary"]["latency_ms"]["p90"].get<double>(), 0.0137);
  EXPECT_DOUBLE_EQ(r0["summary"]["gap_ms"].get<double>(), 0.000855);
  EXPECT_DOUBLE_EQ(r0["summary"]["uncounted_copy_ms"].get<double>(), 0.000505);
  EXPECT_EQ(r0["summary"]["max_n_kernels"], 3);
  EXPECT_EQ(r0["samples"]["device_busy_ns"], ordered_json({12000, 12100, 12345, 12600, 12800}));
  EXPECT_TRUE(r0["samples"]["device_busy_ns"][0].is_number_integer());
  EXPECT_EQ(r0["samples"]["n_kernels"], ordered_json({2, 2, 3, 2, 2}));
  EXPECT_EQ(r0["workload"]["flops"].get<double>(), 2.0 * 4096.0 * 4096.0 * 4096.0);

  const auto& r1 = j["results"][1];
  EXPECT_EQ(r1["timing_method"], "cuda-events");
  EXPECT_EQ(r1["statistic"], "cuda_event");
  EXPECT_EQ(r1["drop_counter_live"], false);
  EXPECT_TRUE(r1["samples"]["n_kernels"].is_null());  // not counted, not invented
  EXPECT_TRUE(r1["summary"]["max_n_kernels"].is_null());
  EXPECT_TRUE(r1["summary"]["tflops"].is_null());
  EXPECT_TRUE(r1["summary"]["pct_of_peak_bandwidth"].is_null());
  EXPECT_TRUE(r1["workload"]["bytes"].is_null());
}

TEST(RecordSchema, PartlyCountedKernelsKeepTheirNulls) {
  Record r = full_record();
  r.results[0].measurement.samples[1].n_kernels = std::nullopt;
  testing::derive_summaries(r);  // one unknown count makes the maximum unknown
  const auto j = ordered_json::parse(serialize(r));
  EXPECT_EQ(j["results"][0]["samples"]["n_kernels"], ordered_json::parse("[2, null, 3, 2, 2]"));
  EXPECT_FALSE(parse_record(serialize(r), "x").results[0].measurement.samples[1].n_kernels);
}

TEST(RecordSchema, RefusesWhatItCannotWriteFaithfully) {
  Record r = full_record();
  r.results[0].summary.tflops = std::numeric_limits<double>::infinity();
  EXPECT_THROW(serialize(r), Error);  // would silently become null, "not measured"

  r = full_record();
  r.results[0].summary.method = TimingMethod::host_clock;
  EXPECT_THROW(serialize(r), Error);

  r = full_record();
  r.schema_version = 1;  // this gpumeter writes only the current version
  EXPECT_THROW(serialize(r), Error);
}

// The checked-in record of the current schema version still reads, and reads as the same
// record. If this fails after a schema change, bump kRecordSchemaVersion and add a fixture
// (gpumeter_make_record --stdout program > tests/data/record_vN.json).
TEST(RecordSchema, VersionTwelveFixtureStillReads) {
  const fs::path fixture = fs::path(GPUMETER_TEST_DATA_DIR) / "record_v12.json";
  const Record r = read_record(fixture);
  EXPECT_EQ(r.schema_version, kRecordSchemaVersion);
  expect_records_equal(r, testing::program_record());
  EXPECT_EQ(serialize(r), read_file(fixture));
  for (const Result& row : r.results) {
    EXPECT_EQ(row.board.uuid, "GPU-01234567-89ab-cdef-0123-456789abcdef");
    EXPECT_EQ(row.measurement.origin, RowOrigin::program_range);
  }
}

// A version 11 record holds no yardstick and no flags: it reads as the same record, its rows
// without a yardstick and their flags decided, once, from the rows' numbers (the same flags a
// run's finish gives), and it writes back as version 12 with them: the version 12 fixture, byte
// for byte (version 12 changed no rule of the comparisons a record stores).
TEST(RecordSchema, VersionElevenFixtureReadsWithItsFlagsDecidedAndWritesAsVersionTwelve) {
  const fs::path fixture = fs::path(GPUMETER_TEST_DATA_DIR) / "record_v11.json";
  ASSERT_EQ(read_file(fixture).find("\"flags\""), std::string::npos);
  const Record r = read_record(fixture);
  EXPECT_EQ(r.schema_version, kRecordSchemaVersion);
  expect_records_equal(r, testing::program_record());
  for (const Result& row : r.results) EXPECT_FALSE(row.measurement.yardstick);
  EXPECT_EQ(serialize(r), read_file(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v12.json"));
}

// A version 10 record (the older host-clock rule) reads with its comparisons as its rule gave
// them, stays version 10 and writes back byte for byte.
TEST(RecordSchema, VersionTenFixtureReadsByItsOwnRulesAndWritesBackAsVersionTen) {
  const fs::path fixture = fs::path(GPUMETER_TEST_DATA_DIR) / "record_v10.json";
  const Record r = read_record(fixture);
  EXPECT_EQ(r.schema_version, kHostClockRulesSince - 1);
  Record want = testing::program_record();
  want.schema_version = kHostClockRulesSince - 1;
  expect_records_equal(r, want);
  EXPECT_EQ(serialize(r), read_file(fixture));
  for (const Result& row : r.results) {
    EXPECT_EQ(row.board.uuid, "GPU-01234567-89ab-cdef-0123-456789abcdef");
    EXPECT_EQ(row.board.sm_clock_mhz, 1980);
    EXPECT_EQ(row.measurement.origin, RowOrigin::program_range);
  }
}

// A version 9 record reads as the same record, each row given the origin its version implied (a
// program's record: its ranges), and writes back as version 10: the version 10 fixture, byte for
// byte (version 10 added only the rows' origins, the record's merged_programs and answer checks;
// version 11 changed the host-clock rule, so both are held as 10).
TEST(RecordSchema, VersionNineFixtureReadsWithItsRowsOriginsAndWritesAsVersionTen) {
  const Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v9.json");
  EXPECT_EQ(r.schema_version, kHostClockRulesSince - 1);
  Record want = testing::program_record();
  want.schema_version = kHostClockRulesSince - 1;
  expect_records_equal(r, want);
  EXPECT_EQ(serialize(r), read_file(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v10.json"));
}

// A version 8 record (the fields of version 9, the older interval rules) reads with its
// comparisons as version 8's rules gave them (95%, half a step), stays version 8 and writes back
// byte for byte: its rows are version 9's record's.
TEST(RecordSchema, VersionEightFixtureReadsByItsOwnIntervalRules) {
  const fs::path fixture = fs::path(GPUMETER_TEST_DATA_DIR) / "record_v8.json";
  const Record r = read_record(fixture);
  EXPECT_EQ(r.schema_version, 8);
  std::ifstream in(fixture);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(serialize(r), text.str());
  const Record current = testing::program_record();
  ASSERT_EQ(r.results.size(), current.results.size());
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    EXPECT_EQ(r.results[i].measurement.samples.size(),
              current.results[i].measurement.samples.size());
    EXPECT_EQ(r.results[i].measurement.origin, RowOrigin::program_range);
  }
}

// A version 7 record reads as the same record: version 8 added each row's board (a version 7
// record named one device, which ran every row of it), each comparison's means and inputs and
// the ledger's work by role, which a version 7 run never measured (its comparisons are
// recomputed by version 7's rules).
TEST(RecordSchema, VersionSevenFixtureReadsEachRowOnItsDeviceByItsOwnRules) {
  Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v7.json");
  expect_records_equal(r, by_older_rules(testing::program_record()));
  ASSERT_FALSE(r.results.empty());
  for (const Result& row : r.results) EXPECT_EQ(row.board, board_of(r.device, r.device_state));
}

// A version 6 record reads as the same record: version 7 added only the program section, which a
// version 6 run never had.
TEST(RecordSchema, VersionSixFixtureReadsWithoutAProgram) {
  Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v6.json");
  EXPECT_FALSE(r.program.has_value());
  expect_records_equal(r, before_ledgers(testing::phases_record(), 6));
}

// The crossing sweep gpumeter plot's tests draw (gpumeter_make_record --stdout sweep-crossing >
// tests/data/sweep_crossing.json) is the synthetic one, byte for byte.
TEST(RecordSchema, SweepCrossingFixtureIsTheSyntheticSweep) {
  const fs::path fixture = fs::path(GPUMETER_TEST_DATA_DIR) / "sweep_crossing.json";
  const Record r = read_record(fixture);
  expect_records_equal(r, testing::sweep_crossing_record());
  std::ifstream in(fixture);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(serialize(r), text.str());
}

// A version 5 record reads as the same record: version 6 added only the phases, totals and
// runtimes, which a version 5 run never measured.
TEST(RecordSchema, VersionFiveFixtureReadsWithoutPhases) {
  const Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v5.json");
  expect_records_equal(r, before_ledgers(full_record(), 5));
  EXPECT_TRUE(r.phases.empty());
  EXPECT_TRUE(r.totals.empty());
  EXPECT_TRUE(r.runtimes.empty());
}

// A version 4 record reads as the same record: version 5 added only the target precision, which
// a version 4 measurement never had.
TEST(RecordSchema, VersionFourFixtureReadsWithoutAPrecision) {
  const Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v4.json");
  expect_records_equal(r, before_ledgers(full_record(), 4));
  for (const Result& result : r.results) EXPECT_FALSE(result.measurement.precision.has_value());
}

// The phases a user waits for read back as written, and a phase the record could not have
// measured (a device clock on an import, a warm cold compile, a phase twice, no samples) is
// refused by name.
// `text` edited by `edit` is refused by the reader, saying `words`.
void expect_edit_refused(const std::string& text, const std::function<void(ordered_json&)>& edit,
                         const std::string& words) {
  ordered_json j = ordered_json::parse(text);
  edit(j);
  try {
    (void)parse_record(j.dump(2), "edited");
    ADD_FAILURE() << "accepted: " << words;
  } catch (const InvalidRecord& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(RecordSchema, PhasesReadBackAndImpossibleOnesAreRefused) {
  const Record want = testing::phases_record();
  expect_records_equal(parse_record(serialize(want), "phases"), want);

  const std::string text = serialize(want);
  auto refused = [&](const std::function<void(ordered_json&)>& edit, const std::string& words) {
    expect_edit_refused(text, edit, words);
  };
  refused([](ordered_json& j) { j["phases"][1]["statistic"] = "device_busy"; },
          "phase init cannot be taken as device_busy");
  refused([](ordered_json& j) { j["phases"][2]["setting"] = "warm_process"; },
          "phase cold_compile cannot be taken");
  refused([](ordered_json& j) { j["phases"][6]["setting"] = "fresh_cached"; },
          "phase warm_call cannot be taken");
  refused([](ordered_json& j) { j["phases"][0]["phase"] = "teleport"; },
          "is not a phase gpumeter knows");
  refused([](ordered_json& j) { j["phases"][0]["samples_ns"] = ordered_json::array(); },
          "phases[0].samples_ns is empty");
  refused([](ordered_json& j) { j["phases"][0]["samples_ns"][0] = -5; }, "out of range");
  refused([](ordered_json& j) { j["phases"][1]["recaptures"] = 3; },
          "only a graph capture has recaptures");
  refused([](ordered_json& j) { j["phases"].push_back(j["phases"][1]); }, "appears twice");
  refused([](ordered_json& j) { j["totals"][0]["setting"] = "warm_process"; },
          "a measured total starts in a fresh process");
  refused([](ordered_json& j) { j["totals"][0]["calls"] = 0; }, "out of range");
  refused([](ordered_json& j) { j["totals"].push_back(j["totals"][0]); }, "appears twice");
  refused([](ordered_json& j) { j["runtimes"].push_back(j["runtimes"][0]); }, "appears twice");
  refused([](ordered_json& j) { j.erase("runtimes"); }, "missing field runtimes");
  // A version 5 record holding phases is a newer record relabelled: its phases would be dropped.
  refused([](ordered_json& j) { j["schema_version"] = 5; },
          "phases is a field of schema version 6");
}

// Shard 0 of 2 of a sweep whose other cases went to shard 1: the record's own cases first in each
// pair, so the round robin deals them to shard 0.
Record shard_record() {
  Record r = full_record();
  std::vector<RowKey> own;
  for (const Result& res : r.results) own.push_back(RowKey{res.row.case_name, res.row.params, ""});
  for (const Failure& f : r.failures) own.push_back(RowKey{f.row.case_name, f.row.params, ""});
  std::sort(own.begin(), own.end());
  own.erase(std::unique(own.begin(), own.end()), own.end());
  std::vector<RowKey> cases;
  for (std::size_t i = 0; i < own.size(); ++i) {
    cases.push_back(own[i]);
    cases.push_back(RowKey{"elsewhere", {{"n", std::to_string(i)}}, ""});
  }
  r.shard = plan_shard(Shard{0, 2, ShardSource::slurm, "SLURM_ARRAY_TASK_ID=0"}, cases);
  return r;
}

TEST(RecordSchema, AShardReadsBackAndADealingNotGpumetersIsRefused) {
  const Record want = shard_record();
  const std::string text = serialize(want);
  expect_records_equal(parse_record(text, "shard"), want);
  EXPECT_EQ(serialize(parse_record(text, "shard")), text);

  auto refused = [&](const std::function<void(ordered_json&)>& edit, const std::string& words) {
    expect_edit_refused(text, edit, words);
  };
  // The record's rows claimed by another shard.
  refused([](ordered_json& j) { j["shard"]["index"] = 1; }, "not of this record's shard 1 of 2");
  // A case moved by hand, or a cost changed: not the dealing gpumeter makes.
  refused([](ordered_json& j) { j["shard"]["cases"][1]["shard"] = 0; },
          "but the dealing puts it in shard 1 of 2");
  refused([](ordered_json& j) { j["shard"]["cases"][1]["cost"] = 9; }, "the dealing puts it");
  refused([](ordered_json& j) { j["shard"]["cases"][0]["shard"] = 2; }, "out of range");
  refused([](ordered_json& j) { j["shard"]["index"] = 2; }, "out of range");
  refused([](ordered_json& j) { j["shard"]["count"] = 0; }, "out of range");
  refused([](ordered_json& j) { j["shard"]["source"] = "cron"; }, "no source of a shard");
  refused([](ordered_json& j) { j["shard"]["cases"][0]["implementation"] = "a"; }, "dealt whole");
  // A row of a case the sweep never dealt.
  refused([](ordered_json& j) { j["results"][0]["case"] = "stranger"; },
          "is no case of the sweep this shard was dealt from");
  // A complete record that lost one of its own cases.
  refused(
      [](ordered_json& j) {
        ordered_json& cases = j["shard"]["cases"];
        cases.insert(
            cases.begin(),
            ordered_json{
                {"case", "lost"}, {"params", ordered_json::object()}, {"cost", 1}, {"shard", 0}});
        cases.insert(
            cases.begin() + 1,
            ordered_json{
                {"case", "lost2"}, {"params", ordered_json::object()}, {"cost", 1}, {"shard", 1}});
      },
      "with no row and no failure in a complete record");
  // A shard runs in one process on one device: its rows are of one board.
  refused([](ordered_json& j) { j["results"][1]["board"]["uuid"] = "GPU-elsewhere"; },
          "a shard runs in one process on one device");
}

TEST(RecordSchema, AShardDealtNoCaseIsAValidEmptyPart) {
  Record r = shard_record();
  r.results.clear();
  r.failures.clear();
  r.comparisons.clear();
  r.shard = plan_shard(Shard{3, 4, ShardSource::option, "--shard 3/4"},
                       {RowKey{"a", {}, ""}, RowKey{"b", {}, ""}});
  const Record back = parse_record(serialize(r), "empty");
  ASSERT_TRUE(back.shard.has_value());
  EXPECT_EQ(own_cases(*back.shard), 0u);
}

TEST(RecordSchema, AShardsRowMayAddParamsToItsCases) {
  // Python's sweep measures a size again in reversed order, its rows marked order=reversed.
  Record r = shard_record();
  Result again = r.results[0];
  again.row.params["order"] = "reversed";
  r.results.push_back(again);
  finish_record(r);
  const Record back = parse_record(serialize(r), "reversed");
  EXPECT_EQ(back.results.size(), 3u);
}

// Every row names its board; rows of two boards are never compared, and a board edited onto
// another's is refused by the comparisons the reader recomputes.
TEST(RecordSchema, EachRowKeepsItsBoardAndRowsOfTwoBoardsAreNotCompared) {
  Record r = full_record();
  fill_boards(r);  // as a run's recorder does before it compares
  Result other = r.results[0];
  other.row.implementation = "cutlass";
  other.board = board_of(r.device, r.device_state);
  other.board.uuid = "GPU-second-board";
  other.board.sm_clock_mhz = 1755;
  r.results.push_back(other);
  finish_record(r);
  ASSERT_FALSE(r.comparisons.empty());
  EXPECT_NE(r.comparisons.back().refusal.find("the rows ran on two boards"), std::string::npos);
  const std::string text = serialize(r);
  const Record back = parse_record(text, "boards");
  EXPECT_EQ(back.results[0].board.uuid, r.device.uuid);
  EXPECT_EQ(back.results[2].board.uuid, "GPU-second-board");
  EXPECT_EQ(back.results[2].board.sm_clock_mhz, 1755);
  expect_edit_refused(
      text, [](ordered_json& j) { j["results"][2]["board"]["uuid"] = j["device"]["uuid"]; },
      "comparisons");
  expect_edit_refused(
      text, [](ordered_json& j) { j["results"][0].erase("board"); }, "board");
}

// A measurement run to a target precision keeps what was asked, reached and why it stopped; the
// width reached is recomputed from the passes, and the outcome must be the row's.
TEST(RecordSchema, APrecisionOutcomeReadsBackAndIsCheckedAgainstThePasses) {
  const Record want = testing::precision_record();
  const Record back = parse_record(serialize(want), "precision");
  ASSERT_TRUE(back.results[0].measurement.precision.has_value());
  const PrecisionOutcome& p = *back.results[0].measurement.precision;
  const PrecisionOutcome& w = *want.results[0].measurement.precision;
  EXPECT_DOUBLE_EQ(p.target, w.target);
  EXPECT_DOUBLE_EQ(p.reached, w.reached);
  EXPECT_EQ(p.passes, w.passes);
  EXPECT_EQ(p.stopped, StopReason::time_cap);
  EXPECT_EQ(p.elapsed_ns, w.elapsed_ns);
  EXPECT_EQ(p.max_time_ns, w.max_time_ns);

  auto refused = [&](const std::function<void(ordered_json&)>& edit, const std::string& words) {
    ordered_json j = ordered_json::parse(serialize(want));
    edit(j);
    try {
      (void)parse_record(j.dump(2), "edited");
      ADD_FAILURE() << "accepted: " << words;
    } catch (const InvalidRecord& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused([](ordered_json& j) { j["results"][0]["precision"]["reached"] = 0.001; },
          "its passes give");
  refused([](ordered_json& j) { j["results"][0]["precision"]["passes"] = 4; }, "holds 2 passes");
  refused([](ordered_json& j) { j["results"][0]["precision"]["passes"] = 3; }, "rounds of two");
  refused([](ordered_json& j) { j["results"][0]["precision"]["stopped"] = "bored"; },
          "unknown reason");
  refused([](ordered_json& j) { j["results"][0]["precision"]["stopped"] = "target_reached"; },
          "stopped on its target");
  refused([](ordered_json& j) { j["results"][0]["precision"]["target"] = 0.9; }, "target");
  refused(
      [](ordered_json& j) {
        j["schema_version"] = 4;
        for (const char* key : {"phases", "totals", "runtimes", "merged_programs"}) j.erase(key);
        for (auto& row : j["results"]) {
          row.erase("origin");
          row.erase("answer_check");
        }
      },
      "schema version 5");
}

// What version 4 added reads as it was in a version 3 record: no timestamp-unit check, and
// ceilings of unrecorded method (event-timed then) with no runs, kept at their stored values and
// dividing as they did; the flags of rows above them are derived, so they appear. (Its clock
// flags are read by version 3's rule: as_version_3 below.)
Record without_version_4_fields(Record want) {
  for (Result& result : want.results) result.measurement.timestamp_check.reset();
  want.ceilings = Ceilings{989e12, 4.8e12, std::nullopt, {}};
  testing::derive_summaries(want);
  return want;
}

// What version 3 added reads "not recorded" in a version 2 record: no clock readings, no null
// test, no memory figures, no launch cost; everything else as it was.
Record without_version_3_fields(Record want) {
  want = without_version_4_fields(std::move(want));
  want.config.launch_cost_ns.reset();
  for (Result& result : want.results) {
    for (Sample& s : result.measurement.samples) s.clock.reset();
    result.measurement.null_test.reset();
    result.memory = MemoryUse{};
  }
  testing::derive_summaries(want);
  return want;
}

TEST(RecordSchema, VersionTwoFixtureStillReads) {
  const Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v2.json");
  expect_records_equal(
      r, before_ledgers(without_version_3_fields(without_version_4_fields(full_record())), 2));
  EXPECT_EQ(ordered_json::parse(serialize(r))["schema_version"], kCalibratedIntervalsSince - 1);
}

// A version 1 record (written before passes and the timestamp step were kept) still reads: the
// same rows and samples, each result one pass of unknown step, and written back as version 2.
TEST(RecordSchema, VersionOneFixtureStillReads) {
  const Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v1.json");
  Record want =
      before_ledgers(without_version_3_fields(without_version_4_fields(full_record())), 1);
  for (Result& result : want.results) {
    result.measurement.pass_sizes = {result.measurement.samples.size()};
    result.measurement.timestamp_tick_ns = 1;
  }
  expect_records_equal(r, want);
  EXPECT_EQ(ordered_json::parse(serialize(r))["schema_version"], kCalibratedIntervalsSince - 1);
}

// ---------------------------------------------------------------------------------------------
// Strict reading: each bad input names the file and the specific problem.

std::string what_of(std::string_view text, const std::string& path = "dir/rec.json") {
  try {
    parse_record(text, path);
  } catch (const InvalidRecord& e) {
    return e.what();
  }
  return "(no InvalidRecord thrown)";
}

// Serializes a good record, lets `edit` break it, and returns the reader's message.
template <typename Edit>
std::string what_after(Edit edit) {
  auto j = ordered_json::parse(serialize(full_record()));
  edit(j);
  return what_of(j.dump(2));
}

// The record of schema version 3: its samples' clocks as they were then (the third power-capped
// a step down, the fourth idle), every summary by today's rules.
Record as_version_3(Record want) {
  want = without_version_4_fields(std::move(want));
  const ClockReading clocks[] = {{1980, 0}, {1980, 0}, {1965, 0x4}, {1980, 0x1}, {1980, 0}};
  std::vector<Sample>& samples = want.results[0].measurement.samples;
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i].clock = clocks[i];
  testing::derive_summaries(want);
  return want;
}

TEST(RecordSchema, VersionThreeFixtureStillReads) {
  const Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v3.json");
  expect_records_equal(r, before_ledgers(as_version_3(full_record()), 3));
  const ordered_json again = ordered_json::parse(serialize(r));
  EXPECT_EQ(again["schema_version"], kCalibratedIntervalsSince - 1);
  // Written back, they say they were not timed like the rows: no method, no runs.
  EXPECT_TRUE(again["ceilings"]["timing_method"].is_null());
  EXPECT_EQ(again["ceilings"]["runs"], ordered_json::array());
  EXPECT_EQ(again["results"][0]["summary"]["above_bandwidth_ceiling"], true);
  expect_records_equal(parse_record(again.dump(), "again.json"), r);
}

// A version 3 record reads: its stored flag count (1: the power-capped sample, by version 3's
// rule) is checked by version 3's rule, and the table shows today's (0: a step under the
// row's highest clock with the routine cap is no flag).
TEST(RecordSchema, VersionThreeFixtureReadsByItsOwnFlagRule) {
  const fs::path fixture = fs::path(GPUMETER_TEST_DATA_DIR) / "record_v3.json";
  const auto stored = ordered_json::parse(read_file(fixture));
  ASSERT_EQ(stored["results"][0]["summary"]["clock_flagged_samples"], 1);
  const Record r = read_record(fixture);
  expect_records_equal(r, before_ledgers(as_version_3(full_record()), 3));
  ASSERT_TRUE(r.results[0].summary.clock.has_value());
  EXPECT_EQ(r.results[0].summary.clock->flagged, 0u);
  EXPECT_EQ(r.results[0].summary.clock->sw_power_cap, 1u);
  EXPECT_EQ(ordered_json::parse(serialize(r))["schema_version"], kCalibratedIntervalsSince - 1);
  // Stored by today's rule, a version 3 count is refused: each version is read by its own.
  auto j = stored;
  j["results"][0]["summary"]["clock_flagged_samples"] = 0;
  const std::string what = what_of(j.dump(2));
  EXPECT_NE(what.find("results[0].summary.clock_flagged_samples is 0 but the record's samples "
                      "give 1"),
            std::string::npos)
      << what;
}

// An older version is read by its own rules, which know nothing of what later versions added: a
// version 3 record relabelled version 2 or 1 read without its null test, memory and clock
// readings, and a row whose null test failed passed for a good one. A field of a later version
// in an older record refuses it, whatever its value (null included); a field no version has is
// still ignored.
TEST(RecordSchema, AnOlderVersionHoldingALaterVersionsFieldIsRefused) {
  const auto fixture = [](int version) {
    return ordered_json::parse(read_file(fs::path(GPUMETER_TEST_DATA_DIR) /
                                         ("record_v" + std::to_string(version) + ".json")));
  };
  const auto relabelled = [&](int from, int as) {
    auto j = fixture(from);
    j["schema_version"] = as;
    return what_of(j.dump());
  };
  const std::string in = " in a record of schema_version ";
  const std::string drop = ", whose reading would drop it (a newer record relabelled?)";
  EXPECT_EQ(relabelled(3, 2),
            "dir/rec.json: config.launch_cost_ns is a field of schema version 3" + in + "2" + drop);
  EXPECT_EQ(relabelled(3, 1),
            "dir/rec.json: comparisons is a field of schema version 2" + in + "1" + drop);
  EXPECT_EQ(relabelled(4, 3),
            "dir/rec.json: ceilings.timing_method is a field of schema version "
            "4" +
                in + "3" + drop);
  EXPECT_EQ(relabelled(4, 2),
            "dir/rec.json: ceilings.timing_method is a field of schema version "
            "4" +
                in + "2" + drop);

  // Each field a version added, alone in a record of the version before it.
  struct Added {
    const char* pointer;
    const char* named;
    int since;
  };
  const Added added[] = {
      {"/comparisons", "comparisons", 2},
      {"/results/0/pass_sizes", "results[0].pass_sizes", 2},
      {"/results/0/timestamp_tick_ns", "results[0].timestamp_tick_ns", 2},
      {"/config/launch_cost_ns", "config.launch_cost_ns", 3},
      {"/results/0/null_test", "results[0].null_test", 3},
      {"/results/0/memory", "results[0].memory", 3},
      {"/results/0/samples/sm_clock_mhz", "results[0].samples.sm_clock_mhz", 3},
      {"/results/0/samples/throttle_reasons", "results[0].samples.throttle_reasons", 3},
      {"/results/0/summary/median_sm_clock_mhz", "results[0].summary.median_sm_clock_mhz", 3},
      {"/results/0/summary/clock_flagged_samples", "results[0].summary.clock_flagged_samples", 3},
      {"/ceilings/timing_method", "ceilings.timing_method", 4},
      {"/ceilings/statistic", "ceilings.statistic", 4},
      {"/ceilings/rule", "ceilings.rule", 4},
      {"/ceilings/runs", "ceilings.runs", 4},
      {"/results/0/timestamp_check", "results[0].timestamp_check", 4},
      {"/results/0/summary/min_sm_clock_mhz", "results[0].summary.min_sm_clock_mhz", 4},
      {"/results/0/summary/max_sm_clock_mhz", "results[0].summary.max_sm_clock_mhz", 4},
      {"/results/0/summary/clock_below_reference_samples",
       "results[0].summary.clock_below_reference_samples", 4},
      {"/results/0/summary/above_flops_ceiling", "results[0].summary.above_flops_ceiling", 4},
      {"/results/0/summary/above_bandwidth_ceiling", "results[0].summary.above_bandwidth_ceiling",
       4},
      {"/results/0/summary/throttle_reason_samples",
       "results[0].summary.throttle_reason_samples.sw_power_cap", 4},
      {"/results/0/board", "results[0].board", 8},
      {"/results/0/yardstick", "results[0].yardstick", 12},
      {"/results/0/flags", "results[0].flags", 12},
  };
  for (const Added& a : added) {
    const ordered_json::json_pointer at(a.pointer);
    const int version = a.since - 1;
    auto older = fixture(version);
    ASSERT_FALSE(older.contains(at)) << a.pointer;
    older[at] = fixture(a.since)[at];
    EXPECT_EQ(what_of(older.dump()),
              "dir/rec.json: " + std::string(a.named) + " is a field of schema version " +
                  std::to_string(a.since) + in + std::to_string(version) + drop)
        << a.pointer;
    older[at] = nullptr;  // present is enough: the key says which version wrote it
    EXPECT_NE(what_of(older.dump()).find(" is a field of schema version "), std::string::npos)
        << a.pointer;
  }
  // Each fixture reads as itself, and a field no version has is ignored at any version.
  for (const int version : {1, 2, 3, 4}) {
    auto j = fixture(version);
    EXPECT_EQ(what_of(j.dump()), "(no InvalidRecord thrown)") << version;
    j["added_later"] = 1;
    j["results"][0]["added_later"] = {{"x", 1}};
    EXPECT_EQ(what_of(j.dump()), "(no InvalidRecord thrown)") << version;
  }
}

// Every clock figure of a version 4 summary is recomputed from the samples, not trusted.
TEST(RecordStrictReading, AClockSummaryTheSamplesDoNotGiveIsRefused) {
  const auto refused = [](const char* key, const char* object, int value) {
    return what_after([&](auto& j) {
      auto& summary = j["results"][0]["summary"];
      (object[0] == '\0' ? summary : summary[object])[key] = value;
    });
  };
  EXPECT_NE(refused("min_sm_clock_mhz", "", 1980)
                .find("summary.min_sm_clock_mhz is 1980 but the "
                      "record's samples give 1800"),
            std::string::npos);
  EXPECT_NE(refused("clock_flagged_samples", "", 0).find("give 2"), std::string::npos);
  EXPECT_NE(refused("clock_below_reference_samples", "", 0).find("give 1"), std::string::npos);
  EXPECT_NE(refused("sw_thermal", "throttle_reason_samples", 0)
                .find("summary.throttle_reason_samples.sw_thermal is 0 but the record's samples "
                      "give 1"),
            std::string::npos);
  EXPECT_NE(refused("sw_power_cap", "throttle_reason_samples", 5).find("give 1"),
            std::string::npos);
}

TEST(RecordStrictReading, InvalidJson) {
  EXPECT_EQ(what_of("{\"schema\": gpumeter}"),
            "dir/rec.json: not valid JSON (parse error at byte 12)");
  EXPECT_EQ(what_of(""), "dir/rec.json: not valid JSON (empty file)");
  EXPECT_EQ(what_of("{} {}"), "dir/rec.json: not valid JSON (parse error at byte 4)");
}

TEST(RecordStrictReading, TruncatedFileIsCaughtWhereverItIsCut) {
  const std::string text = serialize(full_record());
  // Cut after every prefix length in steps: never a record, always "truncated" or a parse error.
  for (std::size_t cut = 1; cut + 2 < text.size(); cut += 37) {
    const std::string what = what_of(text.substr(0, cut));
    EXPECT_TRUE(what.rfind("dir/rec.json: not valid JSON", 0) == 0) << cut << ": " << what;
  }
  EXPECT_EQ(what_of(text.substr(0, text.size() / 2)),
            "dir/rec.json: not valid JSON (ends early at byte " + std::to_string(text.size() / 2) +
                ": truncated?)");
}

TEST(RecordStrictReading, NotARecord) {
  EXPECT_EQ(what_of("[1, 2]"), "dir/rec.json: top level is array, not a JSON object");
  EXPECT_EQ(what_of("{}"), "dir/rec.json: missing field schema");
  EXPECT_EQ(
      what_after([](auto& j) { j["schema"] = "nvbench"; }),
      "dir/rec.json: not a gpumeter record (schema \"nvbench\", expected \"gpumeter.record\")");
}

// A converted phase's scale is a foreign unit's: never exactly 1, and no scale without one.
TEST(RecordStrictReading, TimestampCheckThatContradictsItselfIsRefused) {
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["timestamp_check"]["converted"] = 4; }),
            "dir/rec.json: field results[0].timestamp_check.converted: 4 is out of range [0, 3]");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["timestamp_check"]["converted"] = 0; }),
            "dir/rec.json: results[0].timestamp_check: no phase was converted, yet the scales "
            "are 2.1 to 2.1 (altered record?)");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["timestamp_check"]["max_scale"] = 2.0; }),
            "dir/rec.json: field results[0].timestamp_check.max_scale: 2 is out of range [2.1, "
            "10000]");
}

TEST(RecordStrictReading, UnsupportedSchemaVersion) {
  EXPECT_EQ(what_after([](auto& j) { j["schema_version"] = 13; }),
            "dir/rec.json: unsupported schema_version 13 (this gpumeter reads 1 to 12)");
  EXPECT_EQ(what_after([](auto& j) { j["schema_version"] = -1; }),
            "dir/rec.json: unsupported schema_version -1 (this gpumeter reads 1 to 12)");
  EXPECT_EQ(what_after([](auto& j) { j["schema_version"] = "1"; }),
            "dir/rec.json: field schema_version: expected an integer, found string");
  EXPECT_EQ(what_after([](auto& j) { j.erase("schema_version"); }),
            "dir/rec.json: missing field schema_version");
}

TEST(RecordStrictReading, MissingFieldsAreNamedByTheirPath) {
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["summary"].erase("device_busy_ms"); }),
            "dir/rec.json: missing field results[0].summary.device_busy_ms");
  EXPECT_EQ(what_after([](auto& j) { j.erase("device_state"); }),
            "dir/rec.json: missing field device_state");
  EXPECT_EQ(
      what_after([](auto& j) { j["device_state"].erase("power_w"); }),
      "dir/rec.json: missing field device_state.power_w");  // null is required, absence is not
  EXPECT_EQ(what_after([](auto& j) { j["results"][1]["samples"].erase("n_kernels"); }),
            "dir/rec.json: missing field results[1].samples.n_kernels");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["summary"]["latency_ms"].erase("p10"); }),
            "dir/rec.json: missing field results[0].summary.latency_ms.p10");
}

TEST(RecordStrictReading, WrongTypesAreNamed) {
  EXPECT_EQ(what_after([](auto& j) { j["results"][1]["retries"] = "3"; }),
            "dir/rec.json: field results[1].retries: expected an integer, found string");
  EXPECT_EQ(
      what_after([](auto& j) { j["results"][0]["samples"]["latency_ns"][2] = 13.5; }),
      "dir/rec.json: field results[0].samples.latency_ns[2]: expected an integer, found number");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["samples"]["device_busy_ns"][0] = -5; }),
            "dir/rec.json: field results[0].samples.device_busy_ns[0]: -5 is out of range [0, "
            "1000000000000000]");
  EXPECT_EQ(what_after([](auto& j) { j["results"] = ordered_json::object(); }),
            "dir/rec.json: field results: expected an array, found object");
  EXPECT_EQ(what_after([](auto& j) { j["config"]["l2_flush"] = 1; }),
            "dir/rec.json: field config.l2_flush: expected true or false, found number");
  EXPECT_EQ(what_after([](auto& j) { j["device_state"]["temperature_c"] = "hot"; }),
            "dir/rec.json: field device_state.temperature_c: expected an integer, found string");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["params"]["m"] = 4096; }),
            "dir/rec.json: field results[0].params.m: expected a string, found number");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0] = 5; }),
            "dir/rec.json: field results[0]: expected an object, found number");
}

TEST(RecordStrictReading, InconsistentResultsAreRejected) {
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["summary"]["n_samples"] = 4; }),
            "dir/rec.json: results[0].samples.device_busy_ns holds 5 samples but "
            "results[0].summary.n_samples is 4");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["samples"]["n_kernels"].erase(0); }),
            "dir/rec.json: results[0].samples.n_kernels holds 4 samples but "
            "results[0].summary.n_samples is 5");
  EXPECT_EQ(what_after([](auto& j) {
              j["results"][1]["summary"]["n_samples"] = 0;
              for (auto& [k, v] : j["results"][1]["samples"].items()) {
                if (v.is_array()) v = ordered_json::array();
              }
            }),
            "dir/rec.json: results[1] has no samples (summary.n_samples is 0)");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["statistic"] = "cuda_event"; }),
            "dir/rec.json: field results[0].statistic: \"cuda_event\" does not belong to "
            "timing_method \"cupti\" (expected \"device_busy\")");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["timing_method"] = "stopwatch"; }),
            "dir/rec.json: field results[0].timing_method: unknown method \"stopwatch\"");
}

TEST(RecordStrictReading, UnknownExtraFieldsAreIgnored) {
  auto j = ordered_json::parse(serialize(full_record()));
  j["added_later"] = {{"x", 1}};
  j["results"][0]["summary"]["ci95"] = 0.5;
  EXPECT_NO_THROW(parse_record(j.dump(), "x.json"));
}

TEST(RecordRoundTrip, FailuresSurviveAndOlderRecordsHaveNone) {
  Record r = full_record();
  r.failures.push_back(
      {{"softmax", {{"n", "1,024"}}, ""}, "OffThreadLaunch", "1 kernel(s) carry no id"});
  const Record back = parse_record(serialize(r), "x.json");
  ASSERT_EQ(back.failures.size(), 1u);
  EXPECT_EQ(back.failures[0].row, r.failures[0].row);
  EXPECT_EQ(back.failures[0].error, "OffThreadLaunch");
  EXPECT_EQ(back.failures[0].message, "1 kernel(s) carry no id");
  auto j = ordered_json::parse(serialize(r));
  j.erase("failures");  // required from version 2 on
  EXPECT_NE(what_of(j.dump()).find("missing field failures"), std::string::npos);
  j = ordered_json::parse(read_file(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v1.json"));
  j.erase("failures");  // written within version 1, before the field existed
  EXPECT_TRUE(parse_record(j.dump(), "x.json").failures.empty());
  j["failures"] = {{{"case", "x"}}};
  EXPECT_THROW((void)parse_record(j.dump(), "x.json"), InvalidRecord);  // fields missing
}

// A version 1 record keeps no passes, but its measured iterations are its samples: a count
// edited after the run is refused, as it is in later versions, so that a record read, written
// again as the current version and read back stays readable (found by the fuzzer).
TEST(RecordStrictReading, VersionOneIterationCountMustMatchItsSamples) {
  auto j = ordered_json::parse(read_file(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v1.json"));
  ASSERT_EQ(j["results"][0]["measure_iterations"], 5);
  const Record r = parse_record(j.dump(), "x.json");
  EXPECT_NO_THROW((void)parse_record(serialize(r), "back.json"));
  j["results"][0]["measure_iterations"] = 7;
  EXPECT_NE(what_of(j.dump()).find("it counts 7 measured iterations and holds 5 samples"),
            std::string::npos)
      << what_of(j.dump());
}

// The device state's clocks are read in the range a row's board holds (a record before version 8
// gives its rows the device state's clocks as their board): a negative clock was accepted there
// and refused once written as a board (found by the fuzzer).
TEST(RecordStrictReading, DeviceStateClocksAreInTheBoardsRange) {
  auto j = ordered_json::parse(read_file(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v1.json"));
  for (const char* clock : {"sm_clock_mhz", "sm_clock_max_mhz", "memory_clock_mhz"}) {
    auto bad = j;
    bad["device_state"][clock] = -2619;
    EXPECT_NE(what_of(bad.dump()).find(std::string("device_state.") + clock), std::string::npos)
        << what_of(bad.dump());
    bad["device_state"][clock] = 1'000'001;
    EXPECT_NE(what_of(bad.dump()).find("out of range"), std::string::npos) << clock;
  }
}

TEST(RecordStrictReading, FlushModeAddedWithinVersionOneIsOptional) {
  // Records written before config.l2_flush_mode existed still read; the mode is unknown.
  auto j = ordered_json::parse(read_file(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v1.json"));
  ASSERT_EQ(j["config"]["l2_flush_mode"], "write+read");
  j["config"].erase("l2_flush_mode");
  const Record back = parse_record(j.dump(), "x.json");
  EXPECT_TRUE(back.config.l2_flush);
  EXPECT_EQ(back.config.l2_flush_mode, "");
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpumeter-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_what(const fs::path& p) {
  try {
    read_record(p);
  } catch (const InvalidRecord& e) {
    return e.what();
  }
  return "(no InvalidRecord thrown)";
}

TEST(RecordStrictReading, FilesThatCannotBeReadAreNamed) {
  TempDir dir;
  const fs::path missing = dir.path() / "nope.json";
  EXPECT_EQ(read_what(missing), missing.string() + ": cannot open (No such file or directory)");
  EXPECT_EQ(
      read_what(dir.path()),
      dir.path().string() +
          ": not a regular file (a record is a file; a device, FIFO or directory is not read)");

  const fs::path truncated = dir.path() / "cut.json";
  const std::string text = serialize(full_record());
  std::ofstream(truncated) << text.substr(0, 100);
  EXPECT_EQ(read_what(truncated),
            truncated.string() + ": not valid JSON (ends early at byte 100: truncated?)");
}

// ---------------------------------------------------------------------------------------------
// Writing: atomic, run-unique, never overwritten

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// Issue 53: a DeviceState names its software versions (a second vendor's backend adds its own
// without a CUDA field in a public type); the record keeps each under its key, null where unread,
// and a version the record format has no field for is refused rather than dropped.
TEST(WriteRecord, SoftwareVersionsKeepTheirRecordKeys) {
  Record r = full_record();
  r.device_state.software_versions = {{"cuda_runtime_version", 12030}};
  const nlohmann::json j = nlohmann::json::parse(serialize(r));
  EXPECT_TRUE(j["device_state"]["cuda_driver_version"].is_null());
  EXPECT_EQ(j["device_state"]["cuda_runtime_version"], 12030);
  EXPECT_TRUE(j["device_state"]["cupti_version"].is_null());
  EXPECT_EQ(parse_record(serialize(r), "x.json").device_state.software_versions,
            r.device_state.software_versions);
  r.device_state.software_versions = {{"rocm_version", 60200}};
  try {
    (void)serialize(r);
    ADD_FAILURE() << "a software version without a record field was written";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "cannot write record: device_state has no field for the software version "
                 "\"rocm_version\"");
  }
}

TEST(WriteRecord, WritesTheSerializedRecordUnderItsRunId) {
  TempDir dir;
  const fs::path sub = dir.path() / "a" / "b";  // created on demand
  const Record r = full_record();
  const fs::path written = write_record(r, sub);
  EXPECT_EQ(written, sub / "gpumeter-20261129T112650Z-4242-0badcafe.json");
  EXPECT_EQ(read_file(written), serialize(r));
  expect_records_equal(read_record(written), r);
  EXPECT_EQ(names_in(sub),
            std::vector<std::string>{"gpumeter-20261129T112650Z-4242-0badcafe.json"});
}

TEST(WriteRecord, NeverOverwrites) {
  TempDir dir;
  const Record first = full_record("same-id");
  const fs::path written = write_record(first, dir.path());
  const std::string before = read_file(written);

  Record second = sparse_record("same-id");
  try {
    write_record(second, dir.path());
    FAIL() << "a second record with the same run_id was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(written.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(written), before);
  EXPECT_EQ(names_in(dir.path()),
            std::vector<std::string>{"gpumeter-same-id.json"});  // no temp left
}

TEST(WriteRecord, ConcurrentWritersOfOneNameExactlyOneWins) {
  TempDir dir;
  std::atomic<int> wins{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      Record r = full_record("race");
      r.deviations = {"writer " + std::to_string(t)};
      try {
        write_record(r, dir.path());
        ++wins;
      } catch (const Error&) {
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"gpumeter-race.json"});
  EXPECT_EQ(read_record(dir.path() / "gpumeter-race.json").deviations.size(), 1u);
}

TEST(WriteRecord, NewRunIdsGiveDistinctFiles) {
  TempDir dir;
  std::set<fs::path> paths;
  for (int i = 0; i < 20; ++i) paths.insert(write_record(full_record(new_run_id()), dir.path()));
  EXPECT_EQ(paths.size(), 20u);
  EXPECT_EQ(names_in(dir.path()).size(), 20u);
}

TEST(WriteRecord, RefusesUnusableRunIdsAndUnreadableRecords) {
  TempDir dir;
  EXPECT_THROW(write_record(full_record("../escape"), dir.path()), Error);
  EXPECT_THROW(write_record(full_record(""), dir.path()), Error);
  EXPECT_THROW(write_record(full_record(".hidden"), dir.path()), Error);

  Record inconsistent = full_record("inconsistent");
  inconsistent.results[0].summary.n_samples = 9;  // would not read back
  try {
    write_record(inconsistent, dir.path());
    FAIL() << "an unreadable record was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("would not read back"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(names_in(dir.path()).empty());
}

// "<8 digits>T<6 digits>Z-<pid>-<8 lowercase hex>"; returns the pid part, or "" when the id
// does not have that shape. (No std::regex: GCC 12 warns inside it under the sanitizers.)
std::string pid_of_run_id(const std::string& id) {
  auto all_of = [](std::string_view s, std::string_view allowed) {
    return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
  };
  const std::string_view digits = "0123456789";
  if (id.size() < 16 + 1 + 1 + 1 + 8) return "";
  const std::string_view v = id;
  if (!all_of(v.substr(0, 8), digits) || v[8] != 'T' || !all_of(v.substr(9, 6), digits) ||
      v.substr(15, 2) != "Z-") {
    return "";
  }
  const std::size_t dash = v.rfind('-');
  if (dash <= 17 || !all_of(v.substr(dash + 1), "0123456789abcdef") || v.size() - dash - 1 != 8) {
    return "";
  }
  const std::string_view pid = v.substr(17, dash - 17);
  return all_of(pid, digits) ? std::string(pid) : "";
}

TEST(NewRunId, FormatAndUniqueness) {
  EXPECT_EQ(pid_of_run_id("20261129T112650Z-4242-0badcafe"), "4242");
  EXPECT_EQ(pid_of_run_id("20261129T112650Z-4242-0BADCAFE"), "");
  EXPECT_EQ(pid_of_run_id("20261129T112650-4242-0badcafe"), "");
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_run_id();
    EXPECT_EQ(pid_of_run_id(id), std::to_string(::getpid())) << id;
    EXPECT_EQ(record_file_name(id), "gpumeter-" + id + ".json");
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 100u);
}

// ---------------------------------------------------------------------------------------------
// Hostile records (B7): each way the reader was found to crash, hang, or take a forged record
// when tried as an attacker would. Each must be refused with InvalidRecord naming the file.

// `text` with the first `from` replaced by `to` (which must be there: a test that edits nothing
// tests nothing).
std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "not in the record: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(RecordHostile, TooManyValuesAreRefusedBeforeTheyAreBuilt) {
  // 131 million one-digit samples in 262 MB took 6.4 GB and 46 s to parse before the reader
  // refused them; counted first, they are refused without a parse.
  const std::size_t n = (std::size_t{64} << 20) + 1;
  std::string text = R"({"schema": "gpumeter.record", "x": [)";
  text.reserve(text.size() + 2 * n + 2);
  for (std::size_t i = 0; i < n; ++i) text += "0,";
  text += "0]}";
  EXPECT_EQ(what_of(text),
            "dir/rec.json: holds more than about 67108864 values, the most a record may hold (a "
            "real record of the largest size holds about 50 million)");
  // As many commas inside strings (each as long as a string may be, after an escaped quote) are
  // text, not values: it reads.
  auto j = ordered_json::parse(serialize(full_record()));
  const std::string commas = "\\\"" + std::string(kMaxArgumentBytes - 2, ',');
  for (std::size_t held = 0; held <= n; held += kMaxArgumentBytes - 2) j["x"].push_back(commas);
  EXPECT_NO_THROW(parse_record(j.dump(), "x.json"));
}

TEST(RecordHostile, DeepNestingIsRefusedBeforeItIsBuilt) {
  // 50,000 nested arrays under a key before run_id overflowed the stack (SIGSEGV) in a
  // recursive copy of the parsed document; 20,000 read. Neither is a record.
  for (const std::size_t depth :
       {std::size_t{40}, std::size_t{20'000}, std::size_t{50'000}, std::size_t{1'000'000}}) {
    const std::string arrays = R"({"schema": "gpumeter.record", "schema_version": 4, "x": )" +
                               std::string(depth, '[') + std::string(depth, ']') +
                               R"(, "run_id": "r"})";
    EXPECT_EQ(what_of(arrays), "dir/rec.json: nested deeper than 32 levels; no record is") << depth;
  }
  std::string objects = R"({"schema": "gpumeter.record", "a": )";
  for (int i = 0; i < 50'000; ++i) objects += R"({"a": )";
  objects += "1" + std::string(50'001, '}');
  EXPECT_EQ(what_of(objects), "dir/rec.json: nested deeper than 32 levels; no record is");
  // A record is 5 levels deep: an unknown field nested a little deeper still reads.
  auto j = ordered_json::parse(serialize(full_record()));
  j["results"][0]["added_later"] =
      ordered_json::parse(std::string(20, '[') + "1" + std::string(20, ']'));
  EXPECT_NO_THROW(parse_record(j.dump(), "x.json"));
}

TEST(RecordHostile, NumbersBeyondADoubleAreAnInvalidRecordNamingTheFile) {
  // Were "internal error: ... number overflow", exit 3, and no file named.
  const std::string text = serialize(full_record());
  const std::string beyond =
      "dir/rec.json: not valid JSON for a record (a number beyond a double's range)";
  EXPECT_EQ(what_of(replaced(text, "\"gap_ms\": 0.000855", "\"gap_ms\": 1e999")), beyond);
  EXPECT_EQ(what_of(replaced(text, "\"gap_ms\": 0.000855", "\"gap_ms\": -1e999")), beyond);
  EXPECT_EQ(what_of(replaced(text, "12000,", "92233720368e4775812,")), beyond);
  // An integer beyond 64 bits reads as a double, which a sample may not be.
  EXPECT_EQ(what_of(replaced(text, "12000,", "18446744073709551616,")),
            "dir/rec.json: field results[0].samples.device_busy_ns[0]: expected an integer, "
            "found number");
}

TEST(RecordHostile, SummaryValuesBeyondTheirRangeAreRefused) {
  // 1e308 ms became an infinite number of ns, and infinity "agreed" with infinity, so the table
  // read "not measured" or "inf" and a comparison "infx slower".
  EXPECT_EQ(
      what_after([](auto& j) { j["results"][0]["summary"]["device_busy_ms"]["median"] = 1e308; }),
      "dir/rec.json: field results[0].summary.device_busy_ms.median: 1e+308 is out of "
      "range [-1000000000, 1000000000]");
  EXPECT_EQ(what_after([](auto& j) { j["results"][1]["summary"]["gap_ms"] = -1e308; }),
            "dir/rec.json: field results[1].summary.gap_ms: -1e+308 is out of range "
            "[-1000000000, 1000000000]");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["summary"]["max_n_kernels"] = 1e308; }),
            "dir/rec.json: field results[0].summary.max_n_kernels: 1e+308 is out of range [0, "
            "1000000000]");
  // Finite but false: compared with what the samples give.
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["summary"]["tflops"] = 1e308; }),
            "dir/rec.json: results[0].summary.tflops is 1e+308 but the record's samples give "
            "11133.167555447548: the summary does not describe the raw samples (altered "
            "record?)");
  EXPECT_EQ(what_after([](auto& j) { j["results"][1]["summary"]["pct_of_peak_flops"] = 1e308; }),
            "dir/rec.json: results[1].summary.pct_of_peak_flops is 1e+308 but the record's "
            "samples give null: the summary does not describe the raw samples (altered "
            "record?)");
  // A stored zero is compared as a value, not waved through.
  EXPECT_NE(what_after([](auto& j) {
              j["results"][0]["summary"]["device_busy_ms"]["p10"] = 0.0;
            }).find("the summary does not describe the raw samples"),
            std::string::npos);
  // A derived value that is not finite (a ceiling of 1e-300 FLOP/s, which a version 3 record
  // stored without the runs that would refute it) refuses the record rather than reaching a
  // table as "inf".
  auto v3 = ordered_json::parse(read_file(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v3.json"));
  v3["ceilings"]["flops_per_s"] = 1e-300;
  EXPECT_EQ(what_of(v3.dump()),
            "dir/rec.json: results[0].summary.pct_of_peak_flops: the record's samples and "
            "declared workload give a value that is not a finite number");
}

// From version 4 the ceilings are evidence like the rows: their values are what the runs'
// samples give, their method and statistic belong together, and the flag of a row above one is
// what its percent gives.
TEST(RecordHostile, CeilingsTheirRunsDoNotGiveAreRefused) {
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["flops_per_s"] = 1e-300; }),
            "dir/rec.json: ceilings.flops_per_s is 1e-300 but its runs give 989000000000000 "
            "(fastest_sample: the fastest sample of the best run; altered record?)");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["runs"][1]["samples_ns"][1] = 240000; }),
            "dir/rec.json: ceilings.bytes_per_s is 4800000000000 but its runs give 5000000000000 "
            "(fastest_sample: the fastest sample of the best run; altered record?)");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["bytes_per_s"] = nullptr; }),
            "dir/rec.json: ceilings.bytes_per_s is null but its runs give 4800000000000 "
            "(fastest_sample: the fastest sample of the best run; altered record?)");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["timing_method"] = nullptr; }),
            "dir/rec.json: ceilings: a statistic, rule or runs without the timing_method that "
            "timed them");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["timing_method"] = "cuda-events"; }),
            "dir/rec.json: field ceilings.statistic: \"device_busy\" does not belong to "
            "timing_method \"cuda-events\" (expected \"cuda_event\")");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["rule"] = "median"; }),
            "dir/rec.json: field ceilings.rule: \"median\" is not a rule this gpumeter knows "
            "(\"fastest_sample\")");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["runs"][0]["ceiling"] = "TB/s"; }),
            "dir/rec.json: field ceilings.runs[0].ceiling: unknown ceiling \"TB/s\"");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["runs"][0]["per_call"] = 0.0; }),
            "dir/rec.json: field ceilings.runs[0].per_call: 0 is out of range [1, 1e+24]");
  EXPECT_EQ(
      what_after([](auto& j) { j["ceilings"]["runs"][2]["samples_ns"] = ordered_json::array(); }),
      "dir/rec.json: ceilings.runs[2] has no samples");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"]["runs"][2]["samples_ns"][0] = 0; }),
            "dir/rec.json: ceilings.runs[2].samples_ns holds a sample of 0 ns, which gives no "
            "rate");
  EXPECT_EQ(what_after([](auto& j) { j["ceilings"].erase("runs"); }),
            "dir/rec.json: missing field ceilings.runs");
  // Ceilings said to be timed another way than the rows divide none of them: the stored
  // percentages no longer follow.
  EXPECT_EQ(what_after([](auto& j) {
              j["ceilings"]["timing_method"] = "cuda-events";
              j["ceilings"]["statistic"] = "cuda_event";
            }),
            "dir/rec.json: results[0].summary.pct_of_peak_flops is 1125.6994494891353 but the "
            "record's samples give null: the summary does not describe the raw samples (altered "
            "record?)");
}

TEST(RecordHostile, AFlagItsPercentDoesNotGiveIsRefused) {
  EXPECT_EQ(
      what_after([](auto& j) { j["results"][0]["summary"]["above_bandwidth_ceiling"] = false; }),
      "dir/rec.json: results[0].summary.above_bandwidth_ceiling is false but the record's "
      "samples give true: the summary does not describe the raw samples (altered record?)");
  EXPECT_EQ(what_after([](auto& j) { j["results"][1]["summary"]["above_flops_ceiling"] = true; }),
            "dir/rec.json: results[1].summary.above_flops_ceiling is true but the record's "
            "samples give null: the summary does not describe the raw samples (altered record?)");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["summary"]["above_flops_ceiling"] = 1; }),
            "dir/rec.json: field results[0].summary.above_flops_ceiling: expected true, false or "
            "null, found number");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["summary"].erase("above_flops_ceiling"); }),
            "dir/rec.json: missing field results[0].summary.above_flops_ceiling");
}

// Version 12: each row's flags are decided where its record is finished and stored; the reader
// decides them again and refuses a record whose stored flags differ, naming the row and the flag,
// like every derived value. The null test's stored outcome likewise.
TEST(RecordStrictReading, AFlagTheRowsNumbersDoNotGiveIsRefused) {
  const Record rec = full_record();
  const RowFlags& f = rec.results[0].flags;
  // What full_record's first row gives: two clock-flagged samples, one retry, copies device_busy
  // does not count (far shorter than the work).
  EXPECT_EQ(f.clock_flagged, 2u);
  EXPECT_FALSE(f.low_clock);
  EXPECT_EQ(f.retries, 1);
  EXPECT_TRUE(f.uncounted_copy);
  EXPECT_FALSE(f.copy_exceeds_busy);
  EXPECT_FALSE(f.drops_unproven);
  EXPECT_FALSE(f.call_overhead);
  EXPECT_EQ(what_after([](auto&) {}), "(no InvalidRecord thrown)");
  const std::string tail = ": the flags do not describe the row (altered record?)";
  EXPECT_EQ(
      what_after([](auto& j) { j["results"][0]["flags"]["low_clock"] = true; }),
      "dir/rec.json: results[0].flags.low_clock is true but the row's numbers give false" + tail);
  EXPECT_EQ(
      what_after([](auto& j) { j["results"][0]["flags"]["clock_flagged"] = 0; }),
      "dir/rec.json: results[0].flags.clock_flagged is 0 but the row's numbers give 2" + tail);
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["flags"]["uncounted_copy"] = false; }),
            "dir/rec.json: results[0].flags.uncounted_copy is false but the row's numbers give "
            "true" +
                tail);
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["flags"]["drops_unproven"] = true; }),
            "dir/rec.json: results[0].flags.drops_unproven is true but the row's numbers give "
            "false" +
                tail);
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["flags"]["call_overhead"] = true; }),
            "dir/rec.json: results[0].flags.call_overhead is true but the row's numbers give "
            "false" +
                tail);
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["flags"]["retries"] = 0; }),
            "dir/rec.json: results[0].flags.retries is 0 but the row's numbers give 1" + tail);
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["flags"]["copy_exceeds_busy"] = true; }),
            "dir/rec.json: results[0].flags.copy_exceeds_busy is true but the row's numbers give "
            "false" +
                tail);
  // Typed and present, as every field.
  EXPECT_EQ(what_after([](auto& j) { j["results"][0].erase("flags"); }),
            "dir/rec.json: missing field results[0].flags");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["flags"]["low_clock"] = 0; }),
            "dir/rec.json: field results[0].flags.low_clock: expected true or false, found number");
  // A record of version 11 holds none: its rows' flags are decided once, as it is read.
  auto older = ordered_json::parse(serialize(rec));
  older["schema_version"] = 11;
  for (auto& row : older["results"]) {
    row.erase("flags");
    row.erase("yardstick");  // version 12's too
  }
  const Record read = parse_record(older.dump(), "v11.json");
  ASSERT_EQ(read.results.size(), rec.results.size());
  for (std::size_t i = 0; i < read.results.size(); ++i) {
    EXPECT_TRUE(read.results[i].flags == rec.results[i].flags) << i;
  }
  EXPECT_EQ(read.results[0].flags.clock_flagged, 2u);
  EXPECT_TRUE(read.results[1].flags.drops_unproven);
  // The null test's stored outcome is checked against its samples the same way.
  EXPECT_NE(what_after([](auto& j) {
              j["results"][0]["null_test"]["pass"] = false;
            }).find("results[0].null_test does not match what its samples give"),
            std::string::npos);
}

// The ceilings alone, as a sweep hands them to its isolated cases: the same, read as strictly.
TEST(CeilingsJson, RoundTripAndStrictReading) {
  const Ceilings c = full_record().ceilings;
  const Ceilings back = ceilings_from_json(ceilings_to_json(c), "arg");
  EXPECT_EQ(back.flops_per_s, c.flops_per_s);
  EXPECT_EQ(back.bytes_per_s, c.bytes_per_s);
  EXPECT_EQ(back.method, c.method);
  ASSERT_EQ(back.runs.size(), c.runs.size());
  EXPECT_EQ(back.runs[1].samples_ns, c.runs[1].samples_ns);
  EXPECT_EQ(back.runs[1].work, c.runs[1].work);
  const Ceilings none = ceilings_from_json(ceilings_to_json(Ceilings{}), "arg");
  EXPECT_FALSE(none.flops_per_s || none.bytes_per_s || none.method);
  auto j = ordered_json::parse(ceilings_to_json(c));
  j["bytes_per_s"] = 9e12;
  try {
    (void)ceilings_from_json(j.dump(), "arg");
    FAIL() << "altered ceilings were accepted";
  } catch (const InvalidRecord& e) {
    EXPECT_NE(std::string(e.what()).find("arg: ceilings.bytes_per_s is 9000000000000 but its "
                                         "runs give 4800000000000"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)ceilings_from_json("[1]", "arg"), InvalidRecord);
  EXPECT_THROW((void)ceilings_from_json("{", "arg"), InvalidRecord);
}

TEST(RecordHostile, DeclaredWorkBeyondAnyGpuIsRefused) {
  // flops 1e308 was accepted beside a stored TFLOP/s that contradicted it.
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["workload"]["flops"] = 1e308; }),
            "dir/rec.json: field results[0].workload.flops: 1e+308 is out of range [0, 1e+24]");
  EXPECT_EQ(what_after([](auto& j) { j["results"][0]["workload"]["bytes"] = -1.0; }),
            "dir/rec.json: field results[0].workload.bytes: -1 is out of range [0, 1e+24]");
  // In range, but not the work the stored rate was computed from.
  EXPECT_NE(what_after([](auto& j) { j["results"][0]["workload"]["flops"] = 1e24; })
                .find("results[0].summary.tflops is 11133.167555447548 but the record's samples "
                      "give"),
            std::string::npos);
}

TEST(RecordHostile, ZeroNanosecondSamplesReadAndCompareWithoutAnError) {
  // Two rows with 0 ns samples printed half a table, then "internal error:
  // bootstrap_speedup_interval: non-positive times". Read, they are comparisons refused.
  for (const TimingMethod method : {TimingMethod::kernel_records, TimingMethod::host_clock}) {
    const Record r = testing::zero_sample_record(method);
    const Record back = parse_record(serialize(r), "zero.json");
    ASSERT_EQ(back.comparisons.size(), 1u);
    EXPECT_FALSE(back.comparisons[0].compared());
    EXPECT_NE(describe(back.comparisons[0]).find("not compared"), std::string::npos)
        << describe(back.comparisons[0]);
  }
}

TEST(RecordHostile, ADifferenceNoNumberCanStateIsRecordedUnresolved) {
  // Passes of 10^15 ns against passes of 1 ns, with a 1 us timestamp step: the interval's
  // lower bound rounds to exactly -1, a factor of infinity ("infx faster"). Such passes are
  // unresolved: no interval, no claim, the spread said; the record is written and reads back
  // (a record was once refused for it, and its measurement lost).
  Record r = full_record();
  Result slow = testing::full_result();
  const Nanos most = 1'000'000'000'000'000;
  slow.measurement.samples = {testing::sample(most, most, 1, 0), testing::sample(most, most, 1, 0)};
  slow.measurement.pass_sizes = {1, 1};
  slow.measurement.timestamp_tick_ns = 1000;
  slow.measurement.null_test.reset();  // a null test would refuse the comparison first
  // One sample a pass: what a budget of [2, 2] iterations gives (each pass one, warming up one).
  r.config.budget = {12'500'000, 50'000'000, 2, 2};
  slow.measurement.warmup_iterations = 2;
  slow.measurement.measure_iterations = 2;
  Result fast = slow;
  fast.row.implementation = "fast";
  fast.measurement.samples = {testing::sample(1, 1, 1, 0), testing::sample(1, 1, 1, 0)};
  r.results = {slow, fast};
  testing::derive_summaries(r);
  ASSERT_FALSE(r.comparisons.at(0).difference);
  EXPECT_EQ(r.comparisons.at(0).refusal.rfind(
                "unresolved: the passes of cublas and fast bound no interval (passes spread ", 0),
            0u)
      << r.comparisons.at(0).refusal;
  const Record back = parse_record(serialize(r), "x.json");
  EXPECT_EQ(back.comparisons.at(0).refusal, r.comparisons.at(0).refusal);
  // A stored interval no number can state is still refused, naming the case.
  auto j = ordered_json::parse(serialize(r));
  j["comparisons"][0]["refusal"] = "";
  j["comparisons"][0]["difference"] = {{"estimate", 1e300},
                                       {"low", -1},
                                       {"high", 1e300},
                                       {"confidence", 0.99},
                                       {"smallest_detectable", 1e300},
                                       {"degrees_of_freedom", 2},
                                       {"timestamp_tick_ns", 1000}};
  EXPECT_NE(what_of(j.dump()).find("does not match what the record's results give"),
            std::string::npos)
      << what_of(j.dump());
  // The same two rows a million times apart are a difference like any other.
  r.results[0].measurement.samples = {testing::sample(1'000'000, 1'000'000, 1, 0),
                                      testing::sample(1'000'000, 1'000'000, 1, 0)};
  testing::derive_summaries(r);
  EXPECT_NO_THROW(parse_record(serialize(r), "x.json"));
}

// Two host-clock rows timed beside a yardstick (version 12): its work and its level per pass.
Record host_rows_with_yardstick() {
  Record rec = full_record();
  Result a = testing::full_result();
  a.measurement.method = TimingMethod::host_clock;
  a.measurement.null_test.reset();
  for (Sample& s : a.measurement.samples) {
    s = testing::sample(s.latency_ns, s.latency_ns, std::nullopt, 0);
  }
  a.measurement.retries = 0;
  a.measurement.ledger = testing::ledger_of(a.measurement);
  a.measurement.yardstick = YardstickReading{"python-int-loop-1000", {}};
  for (std::size_t i = 0; i < a.measurement.pass_sizes.size(); ++i) {
    a.measurement.yardstick->pass_ns.push_back(40'000.5 + static_cast<double>(i));
  }
  Result b = a;
  b.row.implementation = "other";
  rec.results = {a, b};
  testing::derive_summaries(rec);
  return rec;
}

TEST(RecordYardstick, ReadsBackAsWritten) {
  const Record r = host_rows_with_yardstick();
  ASSERT_GE(r.results[0].measurement.pass_sizes.size(), 2u);
  const std::string text = serialize(r);
  const Record back = parse_record(text, "y.json");
  expect_records_equal(r, back);
  ASSERT_TRUE(back.results[0].measurement.yardstick);
  EXPECT_EQ(back.results[0].measurement.yardstick->pass_ns,
            r.results[0].measurement.yardstick->pass_ns);
  EXPECT_EQ(serialize(back), text);
  // None: null, and none read back.
  EXPECT_TRUE(ordered_json::parse(serialize(full_record()))["results"][0]["yardstick"].is_null());
}

TEST(RecordYardstick, WhatNoMeasurementGivesIsRefused) {
  const auto j = ordered_json::parse(serialize(host_rows_with_yardstick()));
  const auto what = [&](const std::function<void(ordered_json&)>& edit) {
    auto k = j;
    edit(k);
    return what_of(k.dump());
  };
  EXPECT_NE(what([](auto& k) {
              k["results"][0]["yardstick"]["pass_ns"].erase(0);
            }).find("results[0].yardstick.pass_ns holds 1 levels for the row's 2 passes"),
            std::string::npos)
      << what([](auto& k) { k["results"][0]["yardstick"]["pass_ns"].erase(0); });
  EXPECT_NE(what([](auto& k) {
              k["results"][0]["yardstick"]["pass_ns"][0] = 0;
            }).find("field results[0].yardstick.pass_ns[0]: 0 is out of range"),
            std::string::npos);
  EXPECT_NE(
      what([](auto& k) { k["results"][0]["yardstick"] = "loop"; }).find("results[0].yardstick"),
      std::string::npos);
  EXPECT_NE(what([](auto& k) {
              k["results"][0]["yardstick"].erase("work");
            }).find("missing field results[0].yardstick.work"),
            std::string::npos);
  // On a device-time row: no front end times one there.
  auto device = ordered_json::parse(serialize(full_record()));
  device["results"][0]["yardstick"] = j["results"][0]["yardstick"];
  EXPECT_NE(what_of(device.dump())
                .find("results[0].yardstick: a yardstick on a row not timed by the host clock"),
            std::string::npos)
      << what_of(device.dump());
  // In a version 11 record: a field its reading would drop.
  auto older = j;
  older["schema_version"] = 11;
  for (auto& row : older["results"]) {
    if (row["yardstick"].is_null()) row.erase("yardstick");
  }
  EXPECT_NE(what_of(older.dump()).find("results[0].yardstick is a field of schema version 12"),
            std::string::npos)
      << what_of(older.dump());
  // The writer refuses what the reader would.
  Record bad = host_rows_with_yardstick();
  bad.results[0].measurement.yardstick->pass_ns.pop_back();
  EXPECT_THROW((void)serialize(bad), Error);
}

TEST(RecordHostile, AKeyTwiceInOneObjectIsRefused) {
  // The JSON library kept the last silently: one file could read two ways.
  const std::string text = serialize(full_record());
  const std::string version = "\"schema_version\": " + std::to_string(kRecordSchemaVersion) + ",";
  EXPECT_EQ(what_of(replaced(text, version, version + " \"schema_version\": 1,")),
            "dir/rec.json: the key \"schema_version\" appears twice in one object; a record "
            "must read one way");
  EXPECT_EQ(what_of(replaced(text, "\"case\": \"gemm\",", "\"case\": \"gemm\", \"case\": \"x\",")),
            "dir/rec.json: the key \"case\" appears twice in one object; a record must read one "
            "way");
  EXPECT_EQ(what_of(replaced(text, "\"median\": 0.012345,",
                             "\"median\": 0.012345, \"median\": 0.012345,")),
            "dir/rec.json: the key \"median\" appears twice in one object; a record must read "
            "one way");
  // The key is quoted inert in the message: no control reaches a terminal through it.
  EXPECT_EQ(what_of(replaced(text, "\"m\": \"4096\"", "\"m\\u001b\": \"1\", \"m\\u001b\": \"2\"")),
            "dir/rec.json: the key \"m\\x1b\" appears twice in one object; a record must read "
            "one way");
}

// The JSON parser ended its input at a NUL: a record followed by a NUL and anything at all (a
// 100 KB random tail) was read as the record alone. JSON text holds no NUL, so one anywhere
// refuses the file, and so does any byte after the record.
TEST(RecordHostile, BytesAfterTheRecordAreRefused) {
  const std::string text = serialize(full_record());
  std::string tail(100'000, '\0');
  std::mt19937 random(15);
  for (char& c : tail) c = static_cast<char>(random());
  tail[0] = '\0';
  const std::string nul_at =
      "dir/rec.json: not valid JSON (a NUL byte at byte " + std::to_string(text.size());
  EXPECT_EQ(what_of(text + tail), nul_at + " of " + std::to_string(text.size() + tail.size()) +
                                      "; a record has none, and nothing after it)");
  EXPECT_EQ(what_of(text + std::string(1, '\0')), nul_at + " of " +
                                                      std::to_string(text.size() + 1) +
                                                      "; a record has none, and nothing after it)");
  // Inside a string too.
  EXPECT_NE(what_of(replaced(text, "\"gemm\"", std::string("\"ge\0mm\"", 7)))
                .find("not valid JSON (a NUL byte at byte"),
            std::string::npos);
  // Anything else after the record is a parse error, as it was; whitespace is no byte of data.
  EXPECT_EQ(what_of(text + "x"), "dir/rec.json: not valid JSON (parse error at byte " +
                                     std::to_string(text.size() + 1) + ")");
  EXPECT_NO_THROW(parse_record(text + "\n\n  \t\r\n", "x.json"));
}

// One string far beyond its use (a 50 MB case name made 314 MB of report) is refused, by the
// limit of what the string is (record.hpp): a name, a text, a command-line argument.
TEST(RecordHostile, AStringLongerThanItsKindMayHoldIsRefused) {
  const std::string name(kMaxNameBytes, 'n');
  const std::string text(kMaxTextBytes, 't');
  const std::string argument(kMaxArgumentBytes, 'a');
  const auto read = [](auto edit) {
    auto j = ordered_json::parse(serialize(full_record()));
    edit(j);
    return parse_record(j.dump(), "x.json");
  };
  // Each at its limit reads.
  const Record longest = read([&](auto& j) {
    j["results"][0]["case"] = name;
    j["results"][0]["params"] = {{name, name}};
    j["results"][0]["implementation"] = name;
    j["device"]["name"] = name;
    j["results"][1]["reason"] = text;
    j["deviations"].push_back(text);
    j["argv"].push_back(argument);
    j["comparisons"] = ordered_json::array();  // the rows changed, so do their comparisons
    j["failures"].push_back({{"case", name},
                             {"params", ordered_json::object()},
                             {"implementation", ""},
                             {"error", "Crashed"},
                             {"message", text}});
  });
  EXPECT_EQ(longest.results[0].row.case_name, name);
  EXPECT_EQ(longest.failures.at(0).message, text);
  EXPECT_EQ(longest.argv.back(), argument);

  const std::string more = " bytes, more than the ";
  EXPECT_EQ(what_after([&](auto& j) { j["results"][0]["case"] = name + "n"; }),
            "dir/rec.json: field results[0].case: 257" + more + "256 a name may hold");
  EXPECT_EQ(what_of(replaced(serialize(full_record()), "\"gemm\"",
                             "\"" + std::string(50 << 20, 'x') + "\"")),
            "dir/rec.json: a string of 52428800" + more + "131072 any field of a record may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["results"][1]["implementation"] = name + "n"; }),
            "dir/rec.json: field results[1].implementation: 257" + more + "256 a name may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["results"][0]["params"]["m"] = name + "n"; }),
            "dir/rec.json: field results[0].params.m: 257" + more + "256 a name may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["results"][0]["params"][name + "n"] = "1"; }),
            "dir/rec.json: a key of 257" + more + "256 a name may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["device"]["name"] = name + "n"; }),
            "dir/rec.json: field device.name: 257" + more + "256 a name may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["run_id"] = name + "n"; }),
            "dir/rec.json: field run_id: 257" + more + "256 a name may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["deviations"].push_back(text + "t"); }),
            "dir/rec.json: field deviations[2]: 65537" + more + "65536 a text may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["results"][1]["reason"] = text + "t"; }),
            "dir/rec.json: field results[1].reason: 65537" + more + "65536 a text may hold");
  EXPECT_EQ(what_after([&](auto& j) {
              j["failures"].push_back({{"case", "c"},
                                       {"params", ordered_json::object()},
                                       {"implementation", ""},
                                       {"error", "Crashed"},
                                       {"message", text + "t"}});
            }),
            "dir/rec.json: field failures[0].message: 65537" + more + "65536 a text may hold");
  EXPECT_EQ(what_after([&](auto& j) { j["argv"].push_back(argument + "a"); }),
            "dir/rec.json: a string of 131073" + more + "131072 any field of a record may hold");
  // A field this reader does not know is held to the largest limit, its keys to a name's.
  EXPECT_NO_THROW(read([&](auto& j) { j["added_later"] = argument; }));
  EXPECT_EQ(what_after([&](auto& j) { j["added_later"] = argument + "a"; }),
            "dir/rec.json: a string of 131073" + more + "131072 any field of a record may hold");
  EXPECT_EQ(what_after([&](auto& j) { j[name + "n"] = 1; }),
            "dir/rec.json: a key of 257" + more + "256 a name may hold");
}

// What the writer cannot fit: a row's name is refused (cut, two rows could read as one), any
// other text is cut to its limit on a character boundary, saying how much was cut, so a long
// exception message does not cost a run its record.
TEST(WriteRecord, TextOverItsLimitIsCutAndANameIsRefused) {
  Record r = full_record();
  // 'é' is two bytes: the cut must not split one.
  std::string message;
  while (message.size() < kMaxTextBytes + 1000) message += "\xc3\xa9";
  r.failures.push_back({{"c", {}, ""}, "UserCodeError", message});
  r.argv.push_back(std::string(kMaxArgumentBytes + 5, 'a'));
  r.deviations.push_back(std::string(kMaxTextBytes + 1, 'd'));
  const Record back = parse_record(serialize(r), "x.json");
  const std::string& cut = back.failures.at(0).message;
  EXPECT_LE(cut.size(), kMaxTextBytes);
  EXPECT_GT(cut.size(), kMaxTextBytes - 50);
  const std::size_t kept = cut.find(" [");
  ASSERT_NE(kept, std::string::npos);
  EXPECT_EQ(cut.substr(0, kept), message.substr(0, kept));
  EXPECT_EQ(kept % 2, 0u);  // whole characters
  EXPECT_EQ(cut.substr(kept), " [" + std::to_string(message.size() - kept) + " more bytes cut]");
  EXPECT_LE(back.argv.back().size(), kMaxArgumentBytes);
  EXPECT_NE(back.argv.back().find("more bytes cut]"), std::string::npos);
  EXPECT_LE(back.deviations.back().size(), kMaxTextBytes);
  // Cut once, it stays as it is.
  EXPECT_EQ(serialize(parse_record(serialize(back), "x.json")), serialize(back));

  r = full_record();
  r.results[0].row.case_name = std::string(kMaxNameBytes + 1, 'c');
  try {
    (void)serialize(r);
    ADD_FAILURE() << "a case name over the limit was written";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "cannot write record: a case name of 257 bytes is more than the 256 a name may "
                 "hold");
  }
}

// Derived values agree with what the samples give by a relative bound at every size: the bound
// was absolute for values under 1, so a TFLOP/s of 0.08 could change by 2e-9 of itself, and a
// comparison's estimate of 0.01 by 1e-7.
TEST(RecordStrictReading, DerivedValuesMustAgreeRelativelyAtEverySize) {
  Record r = full_record();
  r.results[0].workload.flops = 1e6;  // 0.081 TFLOP/s
  r.results[0].workload.bytes = 1e5;  // 0.0081 TB/s
  Result other = r.results[0];        // 1% slower: a comparison whose estimate is about 0.01
  other.row.implementation = "cutlass";
  for (Sample& x : other.measurement.samples) {
    x.device_busy_ns += x.device_busy_ns / 100;
    x.latency_ns += x.latency_ns / 100;
  }
  r.results.push_back(other);
  testing::derive_summaries(r);
  ASSERT_LT(*r.results[0].summary.tflops, 0.1);
  const std::string text = serialize(r);
  EXPECT_NO_THROW(parse_record(text, "x.json"));
  const auto nudged = [&](auto edit) {
    auto j = ordered_json::parse(text);
    edit(j);
    return what_of(j.dump());
  };
  const auto times = [](ordered_json& v, double factor) { v = v.get<double>() * factor; };
  EXPECT_NE(nudged([&](auto& j) {
              times(j["results"][0]["summary"]["tflops"], 1 + 2e-9);
            }).find("results[0].summary.tflops is "),
            std::string::npos);
  EXPECT_NE(nudged([&](auto& j) {
              times(j["results"][0]["summary"]["tbs"], 1 - 2e-9);
            }).find("results[0].summary.tbs is "),
            std::string::npos);
  EXPECT_NE(nudged([&](auto& j) {
              times(j["results"][0]["summary"]["gap_ms"], 1 + 1e-10);
            }).find("results[0].summary.gap_ms is "),
            std::string::npos);
  const auto stored = ordered_json::parse(text)["comparisons"];
  ASSERT_EQ(stored.size(), 1u);
  ASSERT_LT(std::fabs(stored[0]["difference"]["estimate"].get<double>()), 0.1);
  EXPECT_NE(nudged([&](auto& j) {
              times(j["comparisons"][0]["difference"]["estimate"], 1 + 1e-9);
            }).find("comparisons[0].difference.estimate does not match"),
            std::string::npos);
  // What a trip through ms and back does to a time (an ulp or two) still agrees.
  EXPECT_EQ(nudged([&](auto& j) {
              auto& v = j["results"][0]["summary"]["device_busy_ms"]["median"];
              v = std::nextafter(std::nextafter(v.template get<double>(), 1.0), 1.0);
            }),
            "(no InvalidRecord thrown)");
}

TEST(RecordHostile, FilesThatAreNotRecordsAreRefusedWithoutReadingThem) {
  TempDir dir;
  const std::string not_regular =
      ": not a regular file (a record is a file; a device, FIFO or directory is not read)";
  // /dev/zero was read without limit.
  EXPECT_EQ(read_what("/dev/zero"), "/dev/zero" + not_regular);
  EXPECT_EQ(read_what(dir.path()), dir.path().string() + not_regular);

  // A FIFO with no writer blocked the reader forever. Opened without blocking, it is refused at
  // once; should it block, a writer is attached so the test fails instead of hanging.
  const fs::path fifo = dir.path() / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reading = std::async(std::launch::async, [&] { return read_what(fifo); });
  if (reading.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    std::ofstream unblock(fifo);
    ADD_FAILURE() << "reading a FIFO with no writer blocked";
  }
  EXPECT_EQ(reading.get(), fifo.string() + not_regular);

  // A file over the limit is refused from its size, before a byte is read (a sparse file).
  const fs::path big = dir.path() / "big.json";
  std::ofstream(big) << "{";
  fs::resize_file(big, kMaxRecordBytes + 1);
  EXPECT_EQ(read_what(big), big.string() + ": " + std::to_string(kMaxRecordBytes + 1) +
                                " bytes, larger than the " + std::to_string(kMaxRecordBytes) +
                                " bytes a record may be");
}

// The program section reads back as written; one that does not account for a row, or names a
// process twice, is refused by name.
TEST(RecordSchema, AProgramReadsBackAndAnInconsistentOneIsRefused) {
  const Record want = testing::program_record();
  const std::string text = serialize(want);
  expect_records_equal(parse_record(text, "p.json"), want);
  EXPECT_EQ(what_of(replaced(text, "\"with_device_work\": 10", "\"with_device_work\": 9")),
            "dir/rec.json: program.ranges: no range with 10 instances holds the row "
            "\"backward / train\"");
  EXPECT_NE(what_of(replaced(text, "\"pid\": 4251", "\"pid\": 4250")).find("appears twice"),
            std::string::npos);
  EXPECT_NE(what_of(replaced(text, "\"origin\": \"fork\"", "\"origin\": \"spawn\""))
                .find("command, exec or fork"),
            std::string::npos);
  // A group of copies outside every range (copies counted) has no kernel, and reads.
  Record copies = want;
  copies.program->outside[0].n_kernels = 0;
  for (Result& r : copies.results) r.count_copies = true;
  testing::derive_summaries(copies);
  expect_records_equal(parse_record(serialize(copies), "p.json"), copies);
  // A pid is unique within its run only: the same pid in another run is another process.
  std::string again = text;
  while (again.find("\"pid\": 4262") != std::string::npos) {
    again = replaced(again, "\"pid\": 4262", "\"pid\": 4250");
  }
  const Record reused = parse_record(again, "p.json");
  EXPECT_EQ(reused.program->processes[2].pid, 4250);
  // A run beyond the record's runs, and a row whose passes are not one per run, are refused.
  EXPECT_NE(what_of(replaced(text, "\"runs\": 2", "\"runs\": 1")).find("run"), std::string::npos);
  EXPECT_EQ(what_of(replaced(text, "\"runs\": 2", "\"runs\": 3")),
            "dir/rec.json: program: the row \"forward / train\" has 2 passes, not one per run "
            "(3)");
  EXPECT_NE(what_of(replaced(text, "\"runs\": 2", "\"runs\": 0")).find("program.runs"),
            std::string::npos);
}

// B11: a row's ledger reads back; one with an unaccounted record, a missing canary, fewer records
// than samples or more checks than iterations is refused.
TEST(RecordLedger, ReadsBackAndAnOpenLedgerIsRefused) {
  Record r = full_record();
  Ledger l;
  l.iteration_records = 40;
  l.harness_records = 120;
  l.canaries_launched = 60;  // one before each of 40 iterations and 12 checks, one per phase
  l.canaries_seen = 60;
  l.iterations = 40;
  l.fresh_inputs = 40;
  l.checked_iterations = 12;
  l.inputs_records = 40;
  l.inputs_busy_ns = 400'000;
  l.check_records = 24;
  l.check_busy_ns = 960'000;
  r.results[0].measurement.ledger = l;
  const Record back = parse_record(serialize(r), "ledger.json");
  EXPECT_EQ(back.results[0].measurement.ledger, l);
  EXPECT_EQ(serialize(back), serialize(r));
  const auto refused = [&](Ledger altered, const std::string& field) {
    Record x = r;
    x.results[0].measurement.ledger = altered;
    try {
      (void)parse_record(serialize(x), "x.json");
      ADD_FAILURE() << "an altered ledger was accepted (" << field << ")";
    } catch (const InvalidRecord& e) {
      EXPECT_NE(std::string(e.what()).find("ledger." + field), std::string::npos) << e.what();
    }
  };
  Ledger a = l;
  a.unaccounted_records = 1;
  refused(a, "unaccounted_records");
  a = l;
  a.canaries_seen = 44;
  refused(a, "canaries_seen");
  a = l;
  a.iteration_records = 2;  // five samples need five records at least
  refused(a, "iteration_records");
  a = l;
  a.checked_iterations = 41;
  refused(a, "checked_iterations");
  // Version 8: the work by role is part of the harness's, and timed only where it has records.
  a = l;
  a.check_records = 100;
  refused(a, "harness_records");
  a = l;
  a.inputs_records = 0;
  refused(a, "inputs_busy_ns");
  a = l;
  a.fresh_inputs = 0;
  refused(a, "inputs_records");
  // A CUPTI row whose canaries could not have covered its iterations and checks.
  a = l;
  a.canaries_launched = 45;
  a.canaries_seen = 45;
  refused(a, "canaries_launched");
}

// B11 (version 8): a CUPTI row of gpumeter's own proves collection was on by its canaries, which
// its ledger holds: one with samples and no ledger is refused, naming the row. A CUDA-events row
// has no canaries, and a program's rows (NVTX ranges) none either: both read without one.
TEST(RecordLedger, AVersionEightCuptiRowWithoutALedgerIsRefused) {
  Record r = full_record();
  ASSERT_EQ(r.results[0].measurement.method, TimingMethod::kernel_records);
  ASSERT_EQ(r.results[1].measurement.method, TimingMethod::device_events);
  EXPECT_EQ(r.results[1].measurement.ledger, Ledger{});
  EXPECT_NO_THROW((void)parse_record(serialize(r), "ledgered.json"));
  r.results[0].measurement.ledger = Ledger{};
  try {
    (void)parse_record(serialize(r), "unledgered.json");
    ADD_FAILURE() << "a CUPTI row without a ledger was accepted";
  } catch (const InvalidRecord& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("results[0] (\"gemm / cublas"), std::string::npos) << what;
    EXPECT_NE(what.find("a CUPTI row with 5 samples and no ledger: a device-timed row proves "
                        "collection was on by its canaries, which its ledger holds"),
              std::string::npos)
        << what;
  }
  const Record program = testing::program_record();
  for (const Result& row : program.results) {
    EXPECT_EQ(row.measurement.method, TimingMethod::kernel_records);
    EXPECT_EQ(row.measurement.ledger, Ledger{});
  }
  EXPECT_NO_THROW((void)parse_record(serialize(program), "program.json"));
  // A record of before ledgers says so once read (its rows' origin, and a deviation for people),
  // and written again as version 8 still reads; a version 8 record without that deviation (its
  // version's words for it) has its CUPTI rows refused.
  const Record old = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "record_v6.json");
  EXPECT_EQ(old.schema_version, kCalibratedIntervalsSince - 1);
  EXPECT_EQ(old.results[0].measurement.origin, RowOrigin::before_ledgers);
  EXPECT_EQ(old.results[1].measurement.origin, RowOrigin::harness);  // CUDA events: no canaries
  ASSERT_FALSE(old.deviations.empty());
  EXPECT_EQ(old.deviations.back().rfind(kBeforeLedgersMark, 0), 0u) << old.deviations.back();
  const std::string rewritten = serialize(old);
  EXPECT_FALSE(ordered_json::parse(rewritten)["results"][0].contains("origin"));
  expect_records_equal(parse_record(rewritten, "rewritten.json"), old);
  // The rows decide, not the text: the writer states version 8's words from the rows' origins.
  Record unmarked = old;
  unmarked.deviations.pop_back();
  EXPECT_NO_THROW((void)parse_record(serialize(unmarked), "unmarked.json"));
  auto j = ordered_json::parse(rewritten);
  j["deviations"].erase(j["deviations"].size() - 1);
  EXPECT_NE(what_of(j.dump()).find("results[0] (\"gemm / cublas"), std::string::npos);
}

// B11 (version 10): no text of a record exempts a row from a rule. A forged record that states
// gpumeter's own phrase for rows measured before ledgers, or for a merge of program runs, among its
// deviations, beside a CUPTI row without a ledger, is refused as before; so is a row that claims
// an origin the rest of the record contradicts.
TEST(RecordLedger, NoDeviationExemptsACuptiRowOfTheCurrentVersionFromItsLedger) {
  Record r = full_record();
  r.results[0].measurement.ledger = Ledger{};
  for (const std::string& phrase :
       {std::string(kBeforeLedgersMark) + "read from a schema_version 6 record",
        merged_programs_deviation("a, b")}) {
    Record forged = r;
    forged.deviations.push_back(phrase);
    const std::string what = what_of(serialize(forged));
    EXPECT_NE(what.find("results[0] (\"gemm / cublas"), std::string::npos) << what;
    EXPECT_NE(what.find("a CUPTI row with 5 samples and no ledger"), std::string::npos) << what;
  }
  // An origin that would exempt it, claimed where it cannot hold.
  auto j = ordered_json::parse(serialize(full_record()));
  j["results"][0].erase("ledger");
  j["results"][0]["origin"] = "before_ledgers";
  EXPECT_NE(what_of(j.dump()).find("origin \"before_ledgers\" in a record of schema_version 12: "
                                   "a row measured before ledgers is held in a record of schema "
                                   "version 8 or earlier"),
            std::string::npos)
      << what_of(j.dump());
  j["results"][0]["origin"] = "program_range";
  EXPECT_NE(what_of(j.dump()).find("origin \"program_range\" in a record that is no program's "
                                   "(schedule \"ABCCBA\") and merged no program runs"),
            std::string::npos)
      << what_of(j.dump());
  j["merged_programs"] = true;  // a merge of program runs: its ranges need no ledger
  EXPECT_EQ(what_of(j.dump()), "(no InvalidRecord thrown)");
  j["results"][1]["origin"] = "program_range";  // a CUDA-events row is no program's range
  EXPECT_NE(what_of(j.dump()).find("origin \"program_range\" timed by device-events"),
            std::string::npos)
      << what_of(j.dump());
  // A range holds no ledger; a program's own record holds ranges only, and is no merge.
  auto ranged = ordered_json::parse(serialize(full_record()));
  ranged["merged_programs"] = true;
  ranged["results"][0]["origin"] = "program_range";
  EXPECT_NE(what_of(ranged.dump()).find("origin \"program_range\" with a ledger"),
            std::string::npos)
      << what_of(ranged.dump());
  auto program = ordered_json::parse(serialize(testing::program_record()));
  program["results"][0]["origin"] = "harness";
  EXPECT_NE(what_of(program.dump()).find("origin \"harness\" in the record of a program run"),
            std::string::npos)
      << what_of(program.dump());
  program = ordered_json::parse(serialize(testing::program_record()));
  program["merged_programs"] = true;
  EXPECT_NE(what_of(program.dump()).find("merged_programs: true in the record of one program run"),
            std::string::npos)
      << what_of(program.dump());
  program["results"][0]["origin"] = "harness_or_else";
  EXPECT_NE(what_of(program.dump()).find("unknown origin"), std::string::npos);
  // Required in a version 10 record, refused in an older one (a version 10 record relabelled).
  auto missing = ordered_json::parse(serialize(full_record()));
  missing["results"][0].erase("origin");
  EXPECT_NE(what_of(missing.dump()).find("missing field results[0].origin"), std::string::npos)
      << what_of(missing.dump());
  missing = ordered_json::parse(serialize(full_record()));
  missing.erase("merged_programs");
  EXPECT_NE(what_of(missing.dump()).find("missing field merged_programs"), std::string::npos)
      << what_of(missing.dump());
}

// A version 9 record, written before rows stated their origins: only the words its own version
// wrote count. A merge of program runs (its deviation) exempts its CUPTI rows without a ledger; a
// version 9 record never held rows measured before ledgers (those were written as version 8), so
// that phrase exempts nothing there.
TEST(RecordLedger, AVersionNineRecordIsReadByWhatItsVersionSaid) {
  Record r = full_record();
  r.results[0].measurement.ledger = Ledger{};
  r.results[0].answer_check.reset();
  const auto as_version_9 = [](Record rec, const std::string& deviation) {
    rec.deviations.push_back(deviation);
    auto j = ordered_json::parse(serialize(rec));
    j["schema_version"] = 9;
    j.erase("merged_programs");
    for (auto& row : j["results"]) {
      row.erase("origin");
      row.erase("load_average");  // version 11's
      row.erase("yardstick");     // version 12's
      row.erase("flags");         // version 12's
    }
    return j.dump();
  };
  const Record merged = parse_record(as_version_9(r, merged_programs_deviation("a")), "v9.json");
  EXPECT_TRUE(merged.merged_programs);
  EXPECT_EQ(merged.results[0].measurement.origin, RowOrigin::program_range);
  EXPECT_EQ(merged.results[1].measurement.origin, RowOrigin::harness);
  // Written back as version 10, it says so in its fields, and reads the same.
  const auto again = ordered_json::parse(serialize(merged));
  EXPECT_EQ(again["merged_programs"], true);
  EXPECT_EQ(again["results"][0]["origin"], "program_range");
  expect_records_equal(parse_record(again.dump(), "again.json"), merged);
  const std::string what = what_of(
      as_version_9(r, std::string(kBeforeLedgersMark) + "read from a schema_version 6 record"));
  EXPECT_NE(what.find("a CUPTI row with 5 samples and no ledger"), std::string::npos) << what;
}

// B11: the host CPU keeps no kernel records and has no device events: a row timed so in a record
// of the host is one no run gives.
TEST(RecordStrictReading, AKernelRecordsRowOnTheHostIsRefused) {
  Record r = full_record();
  r.device.kind = "host";
  r.device.name = "host CPU";
  r.device.memory_bytes.reset();
  for (Result& row : r.results) {
    row.memory = MemoryUse{};
    for (Sample& s : row.measurement.samples) s.clock.reset();
  }
  testing::derive_summaries(r);
  std::string what = what_of(serialize(r));
  EXPECT_NE(what.find("results[0] (\"gemm / cublas"), std::string::npos) << what;
  EXPECT_NE(
      what.find("it was timed by kernel-records on the host CPU, which has no kernel records or "
                "device events"),
      std::string::npos)
      << what;
  r.results.erase(r.results.begin());  // the CUDA-events row alone
  testing::derive_summaries(r);
  what = what_of(serialize(r));
  EXPECT_NE(what.find("it was timed by device-events on the host CPU"), std::string::npos) << what;
}

// Version 10: the tolerances a row's answers were checked with are in its record, read back as
// written, and each as the rules of a check allow (finite, at least 0, rtol below 1).
TEST(RecordAnswerCheck, TolerancesRoundTripAndUnusableOnesAreRefused) {
  const Record r = full_record();
  const auto j = ordered_json::parse(serialize(r));
  EXPECT_EQ(j["results"][0]["answer_check"],
            ordered_json::parse(R"({"rtol": 1e-5, "atol": 1e-8})"));
  EXPECT_FALSE(j["results"][1].contains("answer_check"));  // no check made: absent
  const Record back = parse_record(j.dump(), "checked.json");
  ASSERT_TRUE(back.results[0].answer_check.has_value());
  EXPECT_EQ(*back.results[0].answer_check, (AnswerCheck{1e-5, 1e-8}));
  EXPECT_FALSE(back.results[1].answer_check.has_value());
  const auto edited = [&](const char* key, ordered_json value) {
    auto k = j;
    k["results"][0]["answer_check"][key] = std::move(value);
    return what_of(k.dump());
  };
  EXPECT_NE(
      edited("atol", -1e-9).find("field results[0].answer_check.atol: -1e-09 is out of range"),
      std::string::npos)
      << edited("atol", -1e-9);
  EXPECT_NE(edited("rtol", 1.5).find("results[0].answer_check: rtol 1.5 is 1 or more"),
            std::string::npos)
      << edited("rtol", 1.5);
  EXPECT_NE(edited("rtol", "nan").find("results[0].answer_check.rtol"), std::string::npos);
  EXPECT_NE(edited("atol", nullptr).find("results[0].answer_check.atol"), std::string::npos);
  // JSON has no NaN or infinity: a record holding one is no JSON, refused by the parser.
  std::string nan_text = j.dump();
  const std::string atol = "\"atol\":1e-08";
  ASSERT_NE(nan_text.find(atol), std::string::npos);
  nan_text.replace(nan_text.find(atol), atol.size(), "\"atol\":NaN");
  EXPECT_NE(what_of(nan_text).find("not valid JSON"), std::string::npos) << what_of(nan_text);
  // The writer refuses what the reader would.
  Record bad = r;
  bad.results[0].answer_check->atol = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((void)serialize(bad), Error);
  bad.results[0].answer_check->atol = -1;
  EXPECT_THROW((void)serialize(bad), Error);
  // A record of an older version has no field for it.
  auto older = j;
  older["schema_version"] = 9;
  older.erase("merged_programs");
  for (auto& row : older["results"]) row.erase("origin");
  EXPECT_NE(what_of(older.dump()).find("results[0].answer_check is a field of schema version 10"),
            std::string::npos)
      << what_of(older.dump());
}

// Version 10 changes no comparison rule: its records are judged by version 9's, and the current
// version is the one a version 9 record is held as once read.
TEST(RecordSchema, TheCurrentVersionIsJudgedByTheLatestComparisonRules) {
  EXPECT_EQ(records_rules_version(kRecordSchemaVersion), kRecordSchemaVersion);
  EXPECT_EQ(records_rules_version(kComparisonRulesVersion), kRecordSchemaVersion);
  EXPECT_EQ(interval_rules_of(kRecordSchemaVersion), interval_rules_of(kComparisonRulesVersion));
  Record r = testing::sweep_crossing_record();
  Record by_nine = r;
  finish_record(r, kRecordSchemaVersion);
  finish_record(by_nine, kComparisonRulesVersion);
  ASSERT_EQ(r.comparisons.size(), by_nine.comparisons.size());
  ASSERT_FALSE(r.comparisons.empty());
  for (std::size_t i = 0; i < r.comparisons.size(); ++i) {
    EXPECT_EQ(describe(r.comparisons[i]), describe(by_nine.comparisons[i]));
  }
}

TEST(RecordStrictReading, ARowIsAResultOrAFailureNeverBoth) {
  Record r = full_record();
  Failure f;
  f.row = r.results[1].row;
  f.error = "VerificationFailed";
  f.message = "wrong";
  r.failures.push_back(f);
  try {
    (void)parse_record(serialize(r), "both.json");
    ADD_FAILURE() << "a row both measured and failed was accepted";
  } catch (const InvalidRecord& e) {
    EXPECT_NE(std::string(e.what()).find("is also a result of the record"), std::string::npos)
        << e.what();
  }
  // A failure of the whole case beside a result of that case, too.
  r.failures.back().row.implementation = "";
  EXPECT_THROW((void)parse_record(serialize(r), "both.json"), InvalidRecord);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
