// Test helper: writes pairs of records with known differences for `gpumeter compare` and
// `gpumeter merge` (tests/cli/test_compare.sh).
//   gpumeter_make_compare_records DIR   writes
//   DIR/{base,slower,same,mixed,shard1,shard2,other,cool,hot,shard3,shard4}.json, and for the
//   gate's blind spots and the wall clock DIR/{partial,crashed,disjoint,wall_base,wall_same,
//   wall_slow,marked_base,marked_new}.json
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/row_status.hpp"
#include "gpumeter/throttle_reasons.hpp"
#include "synthetic_ledger.hpp"

namespace {

using namespace gpumeter;

// A row of two passes of `n` samples each around `ns`, with a small, fixed spread.
// With `clock`, every sample ran at that clock and those reasons.
Result row(const std::string& c, const std::string& impl, double ns,
           TimingMethod method = TimingMethod::kernel_records,
           std::optional<ClockReading> clock = std::nullopt) {
  Result r;
  r.row = {c, {{"n", "1024"}}, impl};
  r.measurement.method = method;
  r.measurement.timestamp_tick_ns = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 20; ++i) {
      const auto v = static_cast<Nanos>(ns * (1.0 + 0.001 * ((i + pass) % 5 - 2)));
      // A kernel count only where the method counts kernels (the reader refuses one elsewhere).
      r.measurement.samples.push_back(
          {v, v, sees_kernels(method) ? std::optional<int>(1) : std::nullopt, 0, clock});
    }
    r.measurement.pass_sizes.push_back(20);
  }
  // The counts the default budget gives a call of 2.5 ms (each pass 12.5 ms of warm-up, 50 ms
  // measured, [5, 100]): 5 warm-up and 20 measured iterations a pass. Only the counts are
  // under test; the samples' times are the row's own.
  r.measurement.measure_iterations = 40;
  r.measurement.warmup_iterations = 10;
  r.measurement.estimate_ns = 2'500'000;
  r.measurement.ledger = testing::ledger_of(r.measurement);
  r.summary = summarize(r.measurement.samples, method, 0);
  return r;
}

// The copy ceiling of a process whose fastest 1 GB copy took `fastest_ns`.
Ceilings ceilings(Nanos fastest_ns) {
  return ceilings_from_runs(
      TimingMethod::kernel_records,
      {CeilingRun{CeilingKind::bytes_per_s, "copy kernel", 1e9, {fastest_ns, fastest_ns + 2000}}});
}

// `r` declaring 1 GB moved per call, against `c`.
Result moving_a_gigabyte(Result r, const Ceilings& c) {
  r.workload.bytes = 1e9;
  r.summary = summarize(r.measurement.samples, r.measurement.method, 0, r.workload, c);
  return r;
}

Record record(const std::string& run_id, std::vector<Result> results, const std::string& uuid) {
  Record rec;
  rec.run_id = run_id;
  rec.created_utc = "2026-11-30T10:00:00Z";
  rec.gpumeter_version = "0.1.0";
  rec.device.kind = "cuda";
  rec.device.name = "NVIDIA H200";
  rec.device.uuid = uuid;
  rec.device.arch = "sm_90";
  rec.results = std::move(results);
  finish_record(rec);  // its rows' flags and comparisons, as a run's record has them
  return rec;
}

void write(const Record& r, const std::filesystem::path& dir, const std::string& name) {
  const std::filesystem::path written = write_record(r, dir);
  std::filesystem::rename(written, dir / name);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpumeter_make_compare_records DIR\n");
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    const std::string gpu = "GPU-11111111-2222-3333-4444-555555555555";
    write(record("base", {row("copy", "a", 10000), row("copy", "b", 20000), row("gemm", "x", 5000)},
                 gpu),
          dir, "base.json");
    // copy/a 10% slower, copy/b unchanged; gemm/x gone, softmax/y new.
    write(
        record("slower",
               {row("copy", "a", 11000), row("copy", "b", 20000), row("softmax", "y", 7000)}, gpu),
        dir, "slower.json");
    write(record("same", {row("copy", "a", 10000), row("copy", "b", 20000), row("gemm", "x", 5000)},
                 gpu),
          dir, "same.json");
    // B4: the same times, the clocks read. In hot, copy/a ran at 70% of cool's clock; copy/b
    // a step down with the routine power cap.
    const auto cupti = TimingMethod::kernel_records;
    write(record("cool",
                 {row("copy", "a", 10000, cupti, ClockReading{1980, 0}),
                  row("copy", "b", 20000, cupti, ClockReading{1980, kReasonSwPowerCap})},
                 gpu),
          dir, "cool.json");
    write(record("hot",
                 {row("copy", "a", 10000, cupti, ClockReading{1386, 0}),
                  row("copy", "b", 20000, cupti, ClockReading{1965, kReasonSwPowerCap})},
                 gpu),
          dir, "hot.json");
    // copy/a timed with CUDA events: another statistic, never compared.
    write(record("mixed",
                 {row("copy", "a", 10000, TimingMethod::device_events), row("copy", "b", 20000)},
                 gpu),
          dir, "mixed.json");
    // Shards of one sweep, and a record of another device.
    write(record("shard1", {row("copy", "a", 10000)}, gpu), dir, "shard1.json");
    write(record("shard2", {row("copy", "b", 20000)}, gpu), dir, "shard2.json");
    write(record("other", {row("gemm", "x", 5000)}, "GPU-99999999-2222-3333-4444-555555555555"),
          dir, "other.json");
    // Shards that declare their bytes, each with the ceilings its own process measured: the
    // first's copy ceiling 4.0 TB/s, the second's 4.2 TB/s.
    const Ceilings c3 = ceilings(250'000);
    const Ceilings c4 = ceilings(238'095);
    Record s3 = record("shard3", {moving_a_gigabyte(row("copy", "c", 245'000), c3)}, gpu);
    s3.ceilings = c3;
    write(s3, dir, "shard3.json");
    Record s4 = record("shard4", {moving_a_gigabyte(row("copy", "d", 260'000), c4)}, gpu);
    s4.ceilings = c4;
    write(s4, dir, "shard4.json");
    // The gate's blind spots. A partial run of base's sweep that had measured 1 of its 2 cases;
    // a run whose copy case crashed (its process killed by SIGSEGV); one with no row of base's.
    Record partial = record("partial", {row("copy", "a", 10000), row("copy", "b", 20000)}, gpu);
    partial.deviations = {partial_record_deviation(1, 2)};
    write(partial, dir, "partial.json");
    Record crashed = record("crashed", {row("gemm", "x", 5000)}, gpu);
    crashed.failures = {Failure{{"copy", {{"n", "1024"}}, ""},
                                kCrashedFailure,
                                "the case's process was killed by signal 11 (Segmentation fault)"}};
    write(crashed, dir, "crashed.json");
    write(record("disjoint", {row("softmax", "y", 7000)}, gpu), dir, "disjoint.json");
    // Host rows (wall clock): the same code run twice, 3.7% apart with tight passes; and 1.6x
    // slower.
    const auto wall = TimingMethod::host_clock;
    write(record("wall_base", {row("sum", "a", 100000, wall)}, ""), dir, "wall_base.json");
    write(record("wall_same", {row("sum", "a", 96300, wall)}, ""), dir, "wall_same.json");
    write(record("wall_slow", {row("sum", "a", 250000, wall)}, ""), dir, "wall_slow.json");
    // Names that are markup: a pipe, backticks, HTML, emphasis.
    const std::string name = "x|y `rm -rf` <script>alert(1)</script> **bold**";
    write(record("marked_base", {row(name, "a", 10000), row(name, "b", 20000)}, gpu), dir,
          "marked_base.json");
    write(record("marked_new", {row(name, "a", 11000), row(name, "b", 20000)}, gpu), dir,
          "marked_new.json");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter_make_compare_records: %s\n", e.what());
    return 1;
  }
  return 0;
}
