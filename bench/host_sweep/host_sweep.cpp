// The cost of gpumeter's own bookkeeping in sweeps of 100, 1,000 and 10,000 trivial cases on the
// host backend: what a case costs beyond its measurement, and the bytes it writes.
//
// Two parts, both on the host backend:
//  - runtime: the real benchmark runtime (gpumeter::main, the command line every benchmark program
//    has), a registered benchmark of one trivial implementation swept over N values of an axis,
//    checkpoint on. Reported: wall time per case (measurement included) and the bytes the process
//    handed to write() per case (/proc/self/io wchar: the journal, the record, nothing else is
//    written with --quiet).
//  - bookkeeping: the runtime's per-case steps after measurement, timed alone. One trivial case is
//    measured for real once (run_case, host backend); its rows are recorded N times under N
//    params, as the sweep does:
//      after:  RunRecorder::add + checkpoint per case, finish() at the end;
//      before: what the runtime did until this change, per case: a whole record header read
//              (host, device state, commit), the rows merged, and the whole record serialized
//              and written atomically as the partial record (write_partial); at the end the
//              record written (serialized, parsed back) and read again for the table.
//    "before" at 10,000 cases would take hours (it is quadratic): its per-case cost is timed over
//    the last 10 cases of a run of 10,000 only, with the first 9,990 added without checkpoints.
//
//   gpumeter-host-sweep OUT_DIR [--sizes 100,1000,10000] [--skip-runtime] [--shard K/N|all]
// writes OUT_DIR/host_sweep.json and OUT_DIR/host_sweep.csv and prints the CSV.
//
// In a cluster's array job the sizes are dealt as a benchmark program's cases are (B10,
// docs/cluster.md): --shard K/N, else a Slurm array task's or a Kubernetes indexed Job's index;
// each size costs its number of cases, so the dealing balances the tasks' time. The runtime part's
// own sweep is every case of its size (--shard all): the array's index is this program's.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/benchmark.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/run_recorder.hpp"
#include "gpumeter/runner.hpp"
#include "temporary_file.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

volatile std::uint64_t g_sink = 0;

// The trivial case: one implementation that adds one to a counter.
void trivial(gpumeter::Setup& s) {
  s.implementation("add-one", [] { g_sink = g_sink + 1; });
}
GPUMETER_BENCHMARK(trivial).axis(gpumeter::int_axis("n", {1}));

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Bytes this process has handed to write() so far.
std::uint64_t written_bytes() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "wchar:") return value;
  }
  return 0;
}

std::uint64_t directory_bytes(const fs::path& dir) {
  std::uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(dir)) total += fs::file_size(e.path());
  return total;
}

const gpumeter::Budget kTinyBudget{1000, 1000, 2, 1000};  // 1 us each: a few samples a row

nlohmann::ordered_json run_runtime(std::size_t n, const fs::path& out) {
  const fs::path dir = out / ("runtime-" + std::to_string(n));
  fs::remove_all(dir);
  std::vector<std::string> args = {"gpumeter-host-sweep",
                                   "--timing",
                                   "host",
                                   "--budget",
                                   "0.001,0.001",
                                   "--axis",
                                   "n=1:" + std::to_string(n),
                                   "--quiet",
                                   "--no-lock",
                                   "--out",
                                   dir.string(),
                                   "--shard",
                                   "all"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  const std::uint64_t before = written_bytes();
  const auto t = Clock::now();
  const int rc = gpumeter::main(static_cast<int>(argv.size()), argv.data());
  const double wall = seconds_since(t);
  const std::uint64_t bytes = written_bytes() - before;
  nlohmann::ordered_json j;
  j["part"] = "runtime";
  j["cases"] = n;
  j["exit_code"] = rc;
  j["wall_s"] = wall;
  j["wall_us_per_case"] = wall * 1e6 / static_cast<double>(n);
  j["bytes_written"] = bytes;
  j["bytes_written_per_case"] = static_cast<double>(bytes) / static_cast<double>(n);
  j["record_bytes"] = directory_bytes(dir);
  fs::remove_all(dir);
  return j;
}

// The rows of one measured trivial case, as the case of param n=i.
std::vector<gpumeter::Result> rows_of(const std::vector<gpumeter::Result>& measured,
                                      std::size_t i) {
  std::vector<gpumeter::Result> rows = measured;
  for (gpumeter::Result& r : rows) r.row.params = {{"n", std::to_string(i + 1)}};
  return rows;
}

double median_us(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2] * 1e6;
}

struct Measured {
  gpumeter::Record header;
  std::vector<gpumeter::Result> rows;
};

nlohmann::ordered_json bookkeeping_after(std::size_t n, const Measured& m, const fs::path& out) {
  const fs::path dir = out / ("after-" + std::to_string(n));
  fs::remove_all(dir);
  fs::create_directories(dir);
  gpumeter::Record header = m.header;
  header.run_id = gpumeter::new_run_id();
  gpumeter::RunRecorder recorder(dir, n);
  recorder.begin(header);
  std::vector<std::vector<gpumeter::Result>> cases;
  cases.reserve(n);
  for (std::size_t i = 0; i < n; ++i) cases.push_back(rows_of(m.rows, i));
  double per_case_s = 0;
  double last10_s = 0;
  std::vector<double> each;
  each.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto t = Clock::now();
    recorder.add(std::move(cases[i]));
    recorder.checkpoint();
    const double s = seconds_since(t);
    each.push_back(s);
    per_case_s += s;
    if (i + 10 >= n) last10_s += s;
  }
  const auto t = Clock::now();
  recorder.finish();
  const double finish_s = seconds_since(t);
  nlohmann::ordered_json j;
  j["part"] = "bookkeeping";
  j["variant"] = "after";
  j["cases"] = n;
  j["case_us_mean"] = per_case_s * 1e6 / static_cast<double>(n);
  j["case_us_median"] = median_us(each);
  j["case_us_last10"] = last10_s * 1e6 / 10;
  j["finish_ms"] = finish_s * 1e3;
  j["total_us_per_case"] = (per_case_s + finish_s) * 1e6 / static_cast<double>(n);
  j["bytes_written"] = recorder.bytes_written();
  j["bytes_per_case"] = static_cast<double>(recorder.bytes_written()) / static_cast<double>(n);
  fs::remove_all(dir);
  return j;
}

// What write_partial did after every case until this change.
std::uint64_t old_write_partial(const gpumeter::Record& record, const fs::path& dir,
                                std::size_t done, std::size_t total) {
  gpumeter::Record partial = record;
  gpumeter::finish_record(partial);
  partial.deviations.push_back(gpumeter::partial_record_deviation(done, total));
  const std::string text = gpumeter::serialize(partial);
  gpumeter::write_file_atomically(dir / ("gpumeter-" + record.run_id + ".partial.json"), text,
                                  true);
  return text.size();
}

nlohmann::ordered_json bookkeeping_before(std::size_t n, const Measured& m, gpumeter::Backend& b,
                                          const gpumeter::RunOptions& options,
                                          const fs::path& out) {
  const fs::path dir = out / ("before-" + std::to_string(n));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Quadratic: every case at 100; the last 10 of 1,000 and 10,000 alone.
  const bool every_case = n <= 100;
  gpumeter::Record run;
  run.run_id = gpumeter::new_run_id();
  double per_case_s = 0;
  double last10_s = 0;
  std::uint64_t bytes = 0;
  std::uint64_t last10_bytes = 0;
  std::vector<double> each;
  for (std::size_t i = 0; i < n; ++i) {
    const bool timed = every_case || i + 10 >= n;
    const auto t = Clock::now();
    // run_cases built the whole header for every case, and the runtime merged it in.
    if (timed || i == 0) {
      const gpumeter::Record one = gpumeter::run_header(b, options);
      if (i == 0) {
        run.created_utc = one.created_utc;
        run.gpumeter_version = one.gpumeter_version;
        gpumeter::copy_measured_setup(one, run);
      }
      gpumeter::add_deviations_once(one, run);
    }
    for (gpumeter::Result& r : rows_of(m.rows, i)) {
      const gpumeter::Measurement& mm = r.measurement;
      r.summary = gpumeter::summarize(mm.samples, mm.method, mm.retries, r.workload, run.ceilings);
      run.results.push_back(std::move(r));
    }
    std::uint64_t written = 0;
    if (timed) written = old_write_partial(run, dir, i + 1, n);
    const double s = seconds_since(t);
    if (timed) {
      each.push_back(s);
      per_case_s += s;
      bytes += written;
    }
    if (i + 10 >= n) {
      last10_s += s;
      last10_bytes += written;
    }
  }
  // The end: comparisons, the record written (serialized and parsed back), read for the table.
  const auto t = Clock::now();
  gpumeter::finish_record(run);  // the comparisons and the rows' flags, as a record is finished
  const fs::path path = gpumeter::write_record(run, dir);
  const std::vector<gpumeter::Record> back = gpumeter::read_records({path});
  const double finish_s = seconds_since(t);
  const std::uint64_t record_bytes = fs::file_size(path);
  nlohmann::ordered_json j;
  j["part"] = "bookkeeping";
  j["variant"] = "before";
  j["cases"] = n;
  j["every_case_timed"] = every_case;
  j["case_us_mean"] =
      every_case ? nlohmann::ordered_json(per_case_s * 1e6 / static_cast<double>(n)) : nullptr;
  j["case_us_median"] = every_case ? nlohmann::ordered_json(median_us(each)) : nullptr;
  j["case_us_last10"] = last10_s * 1e6 / 10;
  j["finish_ms"] = finish_s * 1e3;
  j["total_us_per_case"] =
      every_case ? nlohmann::ordered_json((per_case_s + finish_s) * 1e6 / static_cast<double>(n))
                 : nullptr;
  j["bytes_written"] = every_case ? nlohmann::ordered_json(bytes + record_bytes) : nullptr;
  j["bytes_per_case"] = every_case
                            ? nlohmann::ordered_json(static_cast<double>(bytes + record_bytes) /
                                                     static_cast<double>(n))
                            : nullptr;
  j["bytes_per_case_last10"] = static_cast<double>(last10_bytes) / 10;
  fs::remove_all(dir);
  return j;
}

std::string cell(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v.get<double>());
    return text;
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gpumeter-host-sweep OUT_DIR [--sizes 100,1000,10000] [--skip-runtime] "
                 "[--shard K/N|all]\n";
    return 2;
  }
  const fs::path out = argv[1];
  std::vector<std::size_t> sizes = {100, 1000, 10000};
  bool runtime = true;
  std::optional<std::string> shard_option;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--skip-runtime") {
      runtime = false;
    } else if (a == "--shard" && i + 1 < argc) {
      shard_option = argv[++i];
    } else if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) sizes.push_back(std::stoul(item));
    } else {
      std::cerr << "gpumeter-host-sweep: unknown argument " << a << '\n';
      return 2;
    }
  }
  // This task's sizes, dealt by the core as a benchmark program's cases are, by their cost.
  std::string shard_text = "all";
  try {
    std::optional<std::string_view> given;
    if (shard_option) given = *shard_option;
    if (const std::optional<gpumeter::Shard> shard =
            gpumeter::resolve_shard(given, gpumeter::process_environment())) {
      std::vector<gpumeter::RowKey> keys;
      std::vector<double> costs;
      for (const std::size_t n : sizes) {
        keys.push_back(gpumeter::RowKey{"host_sweep", {{"cases", std::to_string(n)}}, ""});
        costs.push_back(static_cast<double>(n));
      }
      const gpumeter::ShardPlan plan = gpumeter::plan_shard(*shard, keys, costs);
      std::vector<std::size_t> mine;
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        if (plan.cases[k].shard == shard->index) mine.push_back(sizes[k]);
      }
      shard_text = gpumeter::shard_label(shard->index, shard->count) + " (" + shard->origin + ")";
      std::cerr << "gpumeter-host-sweep: " << shard_text << ": " << mine.size() << " of the "
                << sizes.size() << " sizes\n";
      sizes = std::move(mine);
    }
  } catch (const gpumeter::ConfigError& e) {
    std::cerr << "gpumeter-host-sweep: " << e.what() << '\n';
    return 2;
  }
  fs::create_directories(out);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();

  auto backend = gpumeter::make_host_backend();
  gpumeter::RunOptions options;
  options.budget = kTinyBudget;
  Measured m;
  m.header = gpumeter::run_header(*backend, options);
  {
    gpumeter::Case c;
    c.name = "trivial";
    c.implementations.emplace_back("add-one", gpumeter::Call{[] { g_sink = g_sink + 1; }, {}});
    gpumeter::RunFindings findings;
    gpumeter::CaseOutcome one = gpumeter::run_case(*backend, c, options, findings);
    if (one.results.empty()) {
      std::cerr << "gpumeter-host-sweep: the trivial case failed: " << one.failures.front().message
                << '\n';
      return 1;
    }
    m.rows = std::move(one.results);
  }

  for (const std::size_t n : sizes) {
    std::cerr << "cases " << n << ": bookkeeping after\n";
    rows.push_back(bookkeeping_after(n, m, out));
    std::cerr << "cases " << n << ": bookkeeping before\n";
    rows.push_back(bookkeeping_before(n, m, *backend, options, out));
    if (runtime) {
      std::cerr << "cases " << n << ": the runtime\n";
      rows.push_back(run_runtime(n, out));
    }
  }
  for (auto& r : rows) r["shard"] = shard_text;

  gpumeter::write_file_atomically(out / "host_sweep.json", rows.dump(2) + "\n", true);
  const std::vector<std::string> columns = {"part",
                                            "variant",
                                            "cases",
                                            "case_us_mean",
                                            "case_us_median",
                                            "case_us_last10",
                                            "finish_ms",
                                            "total_us_per_case",
                                            "bytes_per_case",
                                            "bytes_per_case_last10",
                                            "wall_us_per_case",
                                            "bytes_written_per_case",
                                            "exit_code",
                                            "shard"};
  std::ostringstream csv;
  for (std::size_t i = 0; i < columns.size(); ++i) csv << (i ? "," : "") << columns[i];
  csv << '\n';
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      csv << (i ? "," : "") << (r.contains(columns[i]) ? cell(r[columns[i]]) : "");
    }
    csv << '\n';
  }
  gpumeter::write_file_atomically(out / "host_sweep.csv", csv.str(), true);
  std::cout << csv.str();
  return 0;
}
