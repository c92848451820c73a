#pragma once
// Records with known contents for the record, table and CLI tests. Every field is set to a
// value that differs from its default, so a field the writer or reader forgets shows up.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/precision_width.hpp"
#include "gpumeter/record.hpp"
#include "synthetic_ledger.hpp"

namespace gpumeter::testing {

inline Sample sample(Nanos busy, Nanos latency, std::optional<int> n_kernels, Nanos copy) {
  Sample s;
  s.device_busy_ns = busy;
  s.latency_ns = latency;
  s.n_kernels = n_kernels;
  s.uncounted_copy_ns = copy;
  return s;
}

// A CUPTI result with every optional set: 5 samples, declared flops and bytes, ceilings.
inline Result full_result() {
  Result r;
  r.row = {"gemm", {{"m", "4096"}, {"dtype", "bf16"}}, "cublas"};
  Measurement& m = r.measurement;
  m.method = TimingMethod::kernel_records;
  m.reason = "";
  m.samples = {sample(12'000, 13'000, 2, 500), sample(12'100, 13'050, 2, 510),
               sample(12'345, 13'200, 3, 505), sample(12'600, 13'400, 2, 490),
               sample(12'800, 13'900, 2, 520)};
  m.pass_sizes = {2, 3};
  m.timestamp_tick_ns = 32;
  m.retries = 1;
  // T4: what full_record's budget gives a call of 12.5 ms, each pass run with half of it (6.25 ms
  // of warm-up, 25 ms measured, [2, 50] iterations): 2 then 2 warm-up iterations, 2 measured in
  // the first pass; 3 in the second fits an estimate of 6.25 to 8.33 ms, which warms up 2.
  m.warmup_iterations = 4;
  m.measure_iterations = 5;
  m.estimate_ns = 12'500'000;
  m.drop_counter_live = true;
  // B4: the second sample ran below 95% of the row's highest clock (flagged); the third
  // power-capped a step down (routine, not flagged); the fourth saw the GPU idle (a state, not a
  // slowdown); the fifth ran under SW thermal slowdown at full clock (flagged).
  const ClockReading clocks[] = {{1980, 0}, {1800, 0}, {1965, 0x4}, {1980, 0x1}, {1980, 0x20}};
  for (std::size_t i = 0; i < m.samples.size(); ++i) m.samples[i].clock = clocks[i];
  // P6: 4x the work took about 4x the time.
  m.null_test = NullTestSamples{4, {49'000, 49'500, 50'100}};
  // T14: three phases checked, two converted from another client's TSC clock.
  m.timestamp_check = TimestampCheck{3, 2, 2.1, 2.1};
  r.memory.gpu_context_floor_bytes = 536'870'912;
  r.memory.gpu_after_case_bytes = 1'610'612'736;
  r.memory.host_peak_rss_bytes = 123'457'536;
  r.memory.own_process = true;
  r.memory.host_peak_reset = true;
  r.workload.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  r.workload.bytes = 3.0 * 4096.0 * 4096.0 * 2.0;
  Summary& s = r.summary;
  s.method = TimingMethod::kernel_records;
  s.n_samples = 5;
  s.device_busy = {12'345, 12'040, 12'720};
  s.latency = {13'200, 13'020, 13'700};
  s.max_n_kernels = 3;
  s.gap_ns = 855;
  s.median_uncounted_copy_ns = 505;
  s.retries = 1;
  s.tflops = 11133.3;
  s.tbs = 8.15;
  // What these samples give under full_record's ceilings (an impossible GEMM: only the
  // arithmetic is under test).
  s.pct_of_peak_flops = 1125.7;
  s.pct_of_peak_bandwidth = 169.9;
  s.clock = ClockSummary{5, 1800, 1980, 1980, 2, 1, 1, 0, 1, 0, 0};
  m.ledger = ledger_of(m);
  return r;
}

// A CUDA-events fallback: no kernel counts, no workload, so no derived columns.
inline Result fallback_result() {
  Result r;
  r.row.case_name = "softmax, fused";  // a comma, for CSV quoting
  r.row.implementation = "triton";
  r.count_copies = true;  // copies inside device_busy: no uncounted cell
  r.row.params = {{"n", "1,024"}};
  Measurement& m = r.measurement;
  m.method = TimingMethod::device_events;
  m.reason = "CUPTI unavailable: another profiler is attached";
  m.samples = {sample(40'000, 40'000, std::nullopt, 0), sample(41'000, 41'000, std::nullopt, 0),
               sample(42'500, 42'500, std::nullopt, 0)};
  m.pass_sizes = {3};
  m.timestamp_tick_ns = 1;
  m.retries = 0;
  // One pass of half full_record's budget: a call of 7 ms measures 3 and warms up 2.
  m.warmup_iterations = 2;
  m.measure_iterations = 3;
  m.estimate_ns = 7'000'000;
  m.drop_counter_live = false;
  Summary& s = r.summary;
  s.method = TimingMethod::device_events;
  s.n_samples = 3;
  s.device_busy = {41'000, 40'200, 42'200};
  s.latency = {41'000, 40'200, 42'200};
  s.max_n_kernels = std::nullopt;
  s.gap_ns = 0;
  s.median_uncounted_copy_ns = 0;
  s.retries = 0;
  return r;
}

// The summaries are what the samples give under the record's ceilings: a reader refuses a
// record whose summary its samples do not reproduce.
inline void derive_summaries(Record& rec) {
  finish(rec, rec.schema_version);
}

// Every optional of the record set.
inline Record full_record(const std::string& run_id = "20261129T112650Z-4242-0badcafe") {
  Record rec;
  rec.run_id = run_id;
  rec.created_utc = "2026-11-29T11:26:50Z";
  rec.gpumeter_version = "0.1.0";
  rec.argv = {"bench_gemm", "--device", "0", "--filter", "m=4096"};
  rec.project_commit = "3f2a9c1";
  rec.host = {"node-17", "AMD EPYC 9654", 192, "Linux 6.1.0"};
  rec.device.kind = "cuda";
  rec.device.index = 0;
  rec.device.name = "NVIDIA H200";
  rec.device.uuid = "GPU-01234567-89ab-cdef-0123-456789abcdef";
  rec.device.arch = "sm_90";
  rec.device.multiprocessors = 132;
  rec.device.l2_bytes = 52'428'800;
  rec.device.memory_bytes = 150'000'000'000LL;
  DeviceState& st = rec.device_state;
  st.driver_version = "550.54.15";
  st.software_versions = {
      {"cuda_driver_version", 12040}, {"cuda_runtime_version", 12030}, {"cupti_version", 21}};
  st.sm_clock_mhz = 1980;
  st.sm_clock_max_mhz = 1980;
  st.memory_clock_mhz = 2619;
  st.temperature_c = 34;
  st.power_w = 121.5;
  st.throttle_reasons = 0x8000000000000004ULL;  // above INT64_MAX: must survive as unsigned
  st.utilization_pct = 0;
  st.memory_free_bytes = 149'000'000'000LL;
  st.memory_used_bytes = 1'000'000'000LL;
  st.compute_processes = 0;
  // Timed like the CUPTI rows: copies of 1.2 GB at best in 250 us (4.8 TB/s) and 252 us, and
  // a GEMM of 989 GFLOP at best in 1 ms (989 TFLOP/s).
  rec.ceilings = ceilings_from_runs(TimingMethod::kernel_records,
                                    {CeilingRun{CeilingKind::bytes_per_s,
                                                "cudaMemcpyAsync device to device, 572 MiB",
                                                1.2e9,
                                                {252'000, 253'000, 260'000}},
                                     CeilingRun{CeilingKind::bytes_per_s,
                                                "float4 grid-stride copy kernel, 572 MiB",
                                                1.2e9,
                                                {251'000, 250'000, 258'000, 251'500}},
                                     CeilingRun{CeilingKind::flops_per_s,
                                                "cublasGemmEx bf16",
                                                989e9,
                                                {1'000'000, 1'010'000, 1'040'000}}});
  rec.config.budget = {12'500'000, 50'000'000, 5, 100};
  rec.config.l2_flush = true;
  rec.config.l2_flush_mode = "write+read";
  rec.config.schedule = "ABCCBA";
  rec.config.launch_cost_ns = 1234;
  rec.deviations = {"device lock contended: waited 3 s", "L2 flush disabled by --no-flush"};
  rec.results = {full_result(), fallback_result()};
  // Version 10: the default check's tolerances, on the row it checked.
  rec.results[0].answer_check = AnswerCheck{1e-5, 1e-8};
  derive_summaries(rec);
  return rec;
}

// The full record with the phases a user waits for: two candidates of one size, wall-clock
// phases in fresh processes and warm, a device-time warm call, a graph capture, measured totals
// and each candidate's runtime.
inline Record phases_record(const std::string& run_id = "20261129T112650Z-4242-0badcafe") {
  Record rec = full_record(run_id);
  const RowKey warp{"saxpy", {{"n", "1048576"}}, "warp"};
  const RowKey cupy{"saxpy", {{"n", "1048576"}}, "cupy"};
  using P = Phase;
  using S = PhaseSetting;
  const Statistic wall = Statistic::synchronized_wall_clock;
  rec.phases = {
      {warp, P::process_start, wall, S::fresh_cached, {30'000'000, 31'000'000, 29'500'000}, {}},
      {warp, P::init, wall, S::fresh_cached, {900'000'000, 950'000'000, 920'000'000}, {}},
      {warp, P::cold_compile, wall, S::fresh_cold, {1'800'000'000, 1'900'000'000}, {}},
      {warp, P::cached_load, wall, S::fresh_cached, {12'000'000, 11'000'000, 13'000'000}, {}},
      {warp, P::conversion, wall, S::fresh_cached, {2'000'000, 2'100'000, 1'900'000}, {}},
      {warp, P::first_launch, wall, S::fresh_cached, {150'000, 160'000, 155'000}, {}},
      {warp, P::warm_call, Statistic::device_busy, S::warm_process, {3'100, 3'150, 3'120}, {}},
      {warp, P::end_to_end, wall, S::warm_process, {21'000, 20'500, 22'000, 20'800}, {}},
      {warp, P::kernel_call, wall, S::warm_process, {15'000, 15'200, 14'900}, {}},
      {warp, P::graph_capture, wall, S::warm_process, {400'000, 380'000}, 2},
      {cupy, P::process_start, wall, S::fresh_cached, {30'500'000, 30'000'000, 31'500'000}, {}},
      {cupy, P::init, wall, S::fresh_cached, {300'000'000, 310'000'000, 305'000'000}, {}},
      {cupy, P::cached_load, wall, S::fresh_cached, {5'000'000, 5'500'000, 4'800'000}, {}},
      {cupy, P::end_to_end, wall, S::warm_process, {40'000, 41'000, 39'500}, {}},
  };
  rec.totals = {
      {warp, 1, S::fresh_cached, {1'000'000'000, 1'010'000'000, 990'000'000}},
      {warp, 100, S::fresh_cached, {1'003'000'000, 1'012'000'000, 995'000'000}},
      {cupy, 1, S::fresh_cached, {340'000'000, 345'000'000, 338'000'000}},
      {cupy, 100, S::fresh_cached, {345'000'000, 350'000'000, 342'000'000}},
  };
  // Phases are of the rows a record holds: here the warm calls' failures stand for them (the
  // record's own rows are of other cases, so it draws no comparison).
  rec.failures = {{warp, "UserCodeError", "the warm call raised (synthetic)"},
                  {cupy, "UserCodeError", "the warm call raised (synthetic)"}};
  rec.runtimes = {
      {"warp", "warp", "1.2.2", "cuda:0", "sm_90", "warp", {}},
      {"cupy", "cupy", "13.6.0", "cuda:0", "sm_90", "cupy", {"compiled by NVRTC"}},
  };
  return rec;
}

// A sweep whose two implementations cross: case "copy" over "bytes" from 1e4 to 1e9 (12 sizes, a
// decade in 2.2 steps). "a" costs 5 us + 10 ps/byte, "b" 20 us + 2.5 ps/byte: "a" leads up to
// 1.9 MB, "b" from 5.3 MB on, each size's comparison decided (four passes of eight samples, 0.3%
// noise), so the crossover is the bracket of those two measured sizes. Both grow flat, then
// linearly. The L2 (full_record's 50 MiB) lies inside the sweep.
inline Record sweep_crossing_record(const std::string& run_id = "20261201T090000Z-4248-5eed5eed") {
  Record rec = full_record(run_id);
  rec.results.clear();
  std::uint64_t state = 17;  // a fixed LCG: the same record on every platform
  const auto noise = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * 0.006;
  };
  for (int i = 0; i < 12; ++i) {
    const double bytes = std::round(std::pow(10.0, 4.0 + 5.0 * i / 11.0));
    for (const auto& [name, fixed_ns, ns_per_byte] :
         {std::tuple{"a", 5'000.0, 0.01}, std::tuple{"b", 20'000.0, 0.0025}}) {
      Result r = full_result();
      r.row = {"copy", {{"bytes", std::to_string(static_cast<long long>(bytes))}}, name};
      r.workload.flops.reset();
      r.workload.bytes = 2 * bytes;
      Measurement& m = r.measurement;
      m.null_test.reset();
      m.retries = 0;
      m.samples.clear();
      const double t = fixed_ns + ns_per_byte * bytes;
      for (int k = 0; k < 32; ++k) {
        const auto busy = static_cast<Nanos>(std::llround(t * (1 + noise())));
        Sample smp = sample(busy, busy + 700, 1, 0);
        smp.clock = ClockReading{1980, 0};
        m.samples.push_back(smp);
      }
      m.pass_sizes = {8, 8, 8, 8};
      m.measure_iterations = 32;
      // What gives 8 samples a pass under half the budget (an estimate of 2.78 to 3.13 ms, each
      // pass warming up 2), not the sweep's own times: only the counts are under test here.
      m.warmup_iterations = 8;
      m.estimate_ns = 3'000'000;
      m.ledger = ledger_of(m);
      rec.results.push_back(std::move(r));
    }
  }
  derive_summaries(rec);
  return rec;
}

// A program timed by its NVTX ranges (`gpumeter run --repeat 2`): a training step's ranges, one
// range whose instances launched nothing (no row), kernels outside every range and a copy without
// device work, from two processes (the command and a forked worker) in each of two runs (one
// pass each).
inline Record program_record(const std::string& run_id = "20261201T120000Z-4250-0fab1e00") {
  Record rec = full_record(run_id);
  rec.results.clear();
  rec.ceilings = {};
  rec.config.l2_flush = false;
  rec.config.l2_flush_mode.clear();
  rec.config.schedule = "program";
  rec.config.launch_cost_ns.reset();
  rec.deviations = {"an unmodified program timed by its NVTX ranges"};
  std::uint64_t state = 5;
  const auto noise = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * 0.004;
  };
  for (const auto& [name, busy_ns, kernels] :
       {std::tuple{"forward", 208'000.0, 7}, std::tuple{"backward", 224'000.0, 15},
        std::tuple{"optimizer", 215'000.0, 8}}) {
    Result r = full_result();
    r.row = {name, {}, "train"};
    r.workload = {};
    r.memory = {};
    Measurement& m = r.measurement;
    m = Measurement{};
    m.origin = RowOrigin::program_range;
    m.reason = "NVTX ranges of an unmodified program (gpumeter run)";
    for (int k = 0; k < 10; ++k) {
      const auto busy = static_cast<Nanos>(std::llround(busy_ns * (1 + noise())));
      m.samples.push_back(sample(busy, busy + 20'000, kernels, 0));
    }
    m.pass_sizes = {5, 5};
    m.measure_iterations = 10;
    m.estimate_ns = static_cast<Nanos>(busy_ns);
    rec.results.push_back(std::move(r));
  }
  ProgramRun p;
  p.command = {"python", "train_step.py", "--steps", "10"};
  p.range_regex = "^(forward|backward|optimizer|data)$";
  p.engine_threads =
      "launches of PyTorch's autograd engine threads count toward the caller's ranges";
  p.runs = 2;
  p.processes = {{4250, 4249, ProcessOrigin::command, 40, 155, 155, 1},
                 {4251, 4250, ProcessOrigin::fork, 10, 0, 0, 1},
                 {4262, 4249, ProcessOrigin::command, 40, 155, 155, 2},
                 {4263, 4262, ProcessOrigin::fork, 10, 0, 0, 2}};
  p.ranges = {{"", "backward", 10, 10},
              {"", "data", 10, 0},
              {"", "forward", 10, 10},
              {"", "optimizer", 10, 10}};
  p.outside = {{4250, 4250, "python", "void at::native::fill_kernel<float>", 6, 30'000, 28'000, 1},
               {4262, 4262, "python", "void at::native::fill_kernel<float>", 6, 30'500, 28'100, 2}};
  p.launches_without_work = {{4250, 4250, "cudaMemcpyAsync", 2, false, 1},
                             {4262, 4262, "cudaMemcpyAsync", 2, false, 2}};
  rec.program = p;
  derive_summaries(rec);
  return rec;
}

// Two implementations of one case, timed with `method`, every sample 0 ns: what a coarse clock
// or a forged record gives. Their comparison is refused ("not compared"), never an error.
inline Record zero_sample_record(TimingMethod method,
                                 const std::string& run_id = "20261129T112652Z-4244-00000000") {
  Record rec = full_record(run_id);
  Result a = full_result();
  a.measurement.method = method;
  a.measurement.null_test.reset();
  for (Sample& s : a.measurement.samples) {
    s = sample(0, 0, method == TimingMethod::kernel_records ? std::optional<int>(1) : std::nullopt,
               0);
  }
  if (!sees_kernels(method)) a.measurement.retries = 0;  // only CUPTI repeats a phase
  a.measurement.ledger = ledger_of(a.measurement);
  Result b = a;
  b.row.implementation = "other";
  rec.results = {a, b};
  derive_summaries(rec);
  return rec;
}

// Text a record may hold, chosen to break every output it reaches if it were not made inert:
// line breaks that would add a heading or a table, ESC, NUL, a C1 CSI and a right-to-left
// override for a terminal, spreadsheet formulas, a param value with ", z=" in it, a backslash
// before a pipe. The reader accepts all of it: it is text, and text is rendered inert.
inline Record hostile_text_record(const std::string& run_id = "20261129T112653Z-4245-00000000") {
  Record rec = full_record(run_id);
  const std::string nul(1, '\0');
  Result& r = rec.results[1];
  r.row.case_name = "# case\\|x";
  r.row.implementation = "=HYPERLINK(\"http://x\")";
  r.row.params = {{"n", "v, z=1"}, {"+k", "@SUM(A1)"}};
  r.measurement.reason = "CUPTI unavailable\n# heading\n| a | b |\n|---|---|\n| 1 | 2 |";
  rec.deviations = {"ESC \x1b[2J\x1b[31mred" + nul + "NUL", "\n# heading\n| a | b |",
                    "C1 \xc2\x9b"
                    "31m, RLO \xe2\x80\xae<img src=x>[link](http://x)"};
  rec.host.hostname = "-host\x1b]0;title\x07";
  rec.device.name = "@NVIDIA";
  rec.failures.push_back({{"+failed\r\n# heading", {{"p", "a|b"}}, "-impl"},
                          "OffThreadLaunch",
                          "message\n## heading"});
  derive_summaries(rec);
  return rec;
}

// Names that are markdown (emphasis, code, HTML, an entity, strikethrough, math) on a result
// and on failures, and a failure of every kind a run records: what `report` must show, not obey,
// and what its CSV must say of every row (status and error).
inline Record markup_and_failures_record(
    const std::string& run_id = "20261129T112654Z-4246-00000002") {
  Record rec = full_record(run_id);
  rec.results[0].row.case_name = "**bold** `code` <script>alert(1)</script>";
  rec.results[0].row.implementation = "&amp; ~~old~~ $x$ _em_";
  const auto failure = [](const std::string& c, const std::string& error,
                          const std::string& message) {
    return Failure{{c, {{"n", "1"}}, ""}, error, message};
  };
  rec.failures = {
      failure("skip", "Skipped", "needs bf16"),
      failure("check", "VerificationFailed", "output 3 is 2.5, expected 2"),
      failure("throw", "UserCodeError", "the benchmark's setup threw std::bad_alloc: `oom`"),
      failure("crash", "Crashed",
              "the case's process was killed by signal 11 (Segmentation fault)"),
      failure("hang", "Timeout", "the case ran longer than --timeout 60 s"),
      failure("lost", "RecordsLost", "**3** records lost")};
  derive_summaries(rec);
  return rec;
}

// Every optional of the record left empty: "not available" everywhere it can be.
inline Record sparse_record(const std::string& run_id = "20261129T112651Z-4243-00000001") {
  Record rec;
  rec.run_id = run_id;
  rec.created_utc = "2026-11-29T11:26:51Z";
  rec.gpumeter_version = "0.1.0";
  rec.host = {"", "", std::nullopt, ""};
  // A CUDA device that named nothing of itself: the events fallback's row runs on one (the host
  // CPU has no device events).
  rec.device.kind = "cuda";
  rec.device.index = 0;
  rec.device.name = "";
  rec.device.arch = "x86_64";
  rec.config.budget = {12'500'000, 50'000'000, 5, 100};  // fallback_result's samples' budget
  rec.results = {fallback_result()};
  derive_summaries(rec);
  return rec;
}

// The full record's first row alone, run to a target precision: its width reached is what its
// two passes give (the rule reads the spread at its upper bound), and it stopped at the time cap.
inline Record precision_record(const std::string& run_id = "20261129T112655Z-4247-00000003") {
  Record rec = full_record(run_id);
  // A run to a precision records the budget each pass ran with: half full_record's, which its
  // row's counts were made for.
  rec.config.budget = comparison_pass_budget(rec.config.budget);
  rec.results.resize(1);
  Measurement& m = rec.results[0].measurement;
  PrecisionOutcome p;
  p.target = 0.01;
  p.max_time_ns = 2 * kSecond;
  p.reached = *precision_reached({&m});
  p.passes = static_cast<int>(m.pass_sizes.size());
  p.stopped = StopReason::time_cap;
  p.elapsed_ns = 1'500'000'000;
  m.precision = p;
  derive_summaries(rec);
  return rec;
}

}  // namespace gpumeter::testing
