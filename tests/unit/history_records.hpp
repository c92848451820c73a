#pragma once
// Synthetic records over commits for the history's tests: rows of known level, board and timing
// method, so what the history must find is known.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/record.hpp"
#include "synthetic_ledger.hpp"

namespace gpumeter::testing {

// A row of four passes of 20 samples around `ns`; pass levels differ by `pass_step` (a fraction,
// alternating up and down), samples within a pass by 0.1%. `seed` shifts the samples a little so
// that two rows of one level are two measurements, not one copied.
inline Result history_row(const std::string& impl, double ns,
                          TimingMethod method = TimingMethod::kernel_records, int seed = 0,
                          double pass_step = 0.002, const std::string& case_name = "copy") {
  Result r;
  r.row = {case_name, {{"n", "1024"}}, impl};
  r.measurement.method = method;
  r.measurement.timestamp_tick_ns = 1;
  for (int pass = 0; pass < 4; ++pass) {
    const double level = ns * (1.0 + (pass % 2 == 0 ? pass_step : -pass_step));
    for (int i = 0; i < 20; ++i) {
      const auto v = static_cast<Nanos>(level * (1.0 + 0.001 * ((i + seed) % 5 - 2)) + seed % 3);
      // A kernel count only where the method counts kernels (the reader refuses one elsewhere).
      r.measurement.samples.push_back(
          {v, v, sees_kernels(method) ? std::optional<int>(1) : std::nullopt, 0});
    }
    r.measurement.pass_sizes.push_back(20);
  }
  // The counts the default budget gives a call of 2.5 ms (each pass 12.5 ms of warm-up, 50 ms
  // measured): 5 warm-up and 20 measured iterations a pass. Only the counts are read back
  // strictly; the samples' times are the row's own.
  r.measurement.measure_iterations = 80;
  r.measurement.warmup_iterations = 20;
  r.measurement.estimate_ns = 2'500'000;
  r.measurement.ledger = ledger_of(r.measurement);
  r.summary = summarize(r.measurement.samples, method, 0);
  return r;
}

// A record of `commit`, created at `created` (ISO 8601), on a GPU of uuid `uuid` ("" for none).
inline Record history_record(const std::string& run_id, const std::string& commit,
                             const std::string& created, std::vector<Result> results,
                             const std::string& uuid = "GPU-0000",
                             std::vector<Failure> failures = {}) {
  Record rec;
  rec.run_id = run_id;
  rec.project_commit = commit;
  rec.created_utc = created;
  rec.host.hostname = "node1";
  rec.device.kind = "cuda";
  rec.device.index = 0;
  rec.device.name = "NVIDIA H200";
  rec.device.uuid = uuid;
  rec.results = std::move(results);
  rec.failures = std::move(failures);
  return rec;
}

}  // namespace gpumeter::testing
