// Does a comparison claim differences that are not there, and find the ones that are? Runs
// A B B A comparisons through the library (run_cases, so each is a case of a record with its
// comparison and the rule that applied) and counts what they claim:
//   - an implementation against itself, 20 times each, for a 1-block kernel, a 20 us kernel, a
//     memory-bound kernel of about 50 us and a call of 3 kernels: how many claim a difference;
//   - a 20 us kernel against a copy of itself that spins 1% longer: how many find it slower;
//   - a 1-block kernel against copies that spin k more SM cycles: how often each is found, and
//     the smallest difference found 19 times in 20.
// Writes one record per group under --out and a summary JSON; prints a table last.
//
//   gpumeter-a-vs-a --out DIR [--repeat 20] [--checks] [--no-sweep]
#include <CLI/CLI.hpp>
#include <cstddef>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "cuda_memory.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/gpumeter.hpp"
#include "known_kernels.hpp"
#include "number_option.hpp"
#include "temporary_file.hpp"

namespace {

using gpumeter::testkit::cuda_ok;
using gpumeter::testkit::DeviceMemory;

struct Group {
  std::string name;   // the record's cases are named after it
  std::string label;  // one row of the printed table
  std::vector<gpumeter::Case> cases;
};

// With --checks, every call runs as a candidate's does: fresh inputs before it (a fill of a small
// buffer under the inputs label) and its answer checked after it (a tiny kernel under the check
// label, drawn as the driver draws), so the comparisons pass through every check gpumeter makes.
struct Checks {
  bool on = false;
  void* buffer = nullptr;
};

gpumeter::Call call_of(std::function<void()> run, const Checks& checks) {
  gpumeter::Call call{std::move(run), {}};
  if (!checks.on) return call;
  void* buffer = checks.buffer;
  call.prepare = [buffer](std::uint64_t seed) {
    cuda_ok(cudaMemsetAsync(buffer, static_cast<int>(seed & 0xff), 4096, cudaStreamLegacy),
            "fresh inputs");
  };
  call.check = [](std::uint64_t) { gpumeter::testkit::launch_empty(cudaStreamLegacy); };
  return call;
}

gpumeter::Case pair_case(const std::string& name, int repeat, std::function<void()> a,
                         std::function<void()> b, const std::string& b_name, const Checks& checks) {
  gpumeter::Case c;
  c.name = name;
  c.params = {{"repeat", std::to_string(repeat)}};
  c.implementations.push_back({"A", call_of(std::move(a), checks), {}});
  c.implementations.push_back({b_name, call_of(std::move(b), checks), {}});
  return c;
}

struct Tally {
  int compared = 0;
  int slower = 0;
  int faster = 0;
  std::vector<double> estimates;
  std::vector<double> detectable;
  double median_estimate() const { return median(estimates); }
  double median_detectable() const { return median(detectable); }
  static double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

Tally tally(const gpumeter::Record& record, const std::string& case_name) {
  Tally t;
  for (const gpumeter::Comparison& c : record.comparisons) {
    if (c.baseline.case_name != case_name || !c.difference) continue;
    ++t.compared;
    if (c.difference->slower()) ++t.slower;
    if (c.difference->faster()) ++t.faster;
    t.estimates.push_back(c.difference->estimate);
    t.detectable.push_back(c.difference->smallest_detectable);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-a-vs-a: how often A B B A comparisons claim a difference, and find one",
               "gpumeter-a-vs-a"};
  std::string out_dir = "a-vs-a";
  int repeat = 20;
  app.add_option("--out", out_dir, "directory for the records and summary.json");
  gpumeter::check_number(app.add_option("--repeat", repeat, "comparisons per kind"),
                         gpumeter::kPositiveCount);
  Checks checks;
  bool no_sweep = false;
  app.add_flag("--checks", checks.on,
               "fresh inputs before every call and its answer checked, as for a candidate");
  app.add_flag("--no-sweep", no_sweep, "leave out the 1-block sweep of longer copies");
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;
  try {
    gpumeter::prepare_output_directory(out_dir);  // before anything is measured
  } catch (const gpumeter::Error& e) {
    std::fprintf(stderr, "gpumeter-a-vs-a: --out %s: %s\n", out_dir.c_str(), e.what());
    return 2;
  }
  try {
    const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(0);
    if (!avail.usable) throw gpumeter::DeviceError(avail.reason);
    const std::unique_ptr<gpumeter::Backend> backend = gpumeter::make_cuda_backend();
    int sms = 0;
    cuda_ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");

    // About 50 us of HBM traffic: 96 MiB read and 96 MiB written, beyond the 60 MB L2.
    const std::size_t each_way = std::size_t{96} << 20;
    DeviceMemory in(each_way);
    DeviceMemory out(each_way);
    cuda_ok(cudaMemset(in.get(), 1, each_way), "cudaMemset");
    DeviceMemory fresh(4096);
    checks.buffer = fresh.get();
    void* pin = in.get();
    void* pout = out.get();
    const auto copy = [=] {
      gpumeter::testkit::launch_copy(pin, pout, each_way / 16, sms * 4, cudaStreamLegacy);
    };
    const auto empty = [] { gpumeter::testkit::launch_empty(cudaStreamLegacy); };
    const auto three = [] {
      for (int k = 0; k < 3; ++k) gpumeter::testkit::launch_empty(cudaStreamLegacy);
    };
    const auto spin_ns = [](std::uint64_t ns) {
      return [ns] { gpumeter::testkit::launch_spin(ns, nullptr, cudaStreamLegacy); };
    };
    const auto spin_cycles = [](long long c) {
      return [c] { gpumeter::testkit::launch_spin_cycles(c, cudaStreamLegacy); };
    };

    const std::vector<std::pair<std::string, std::function<void()>>> same{
        {"one_block", empty},
        {"spin_20us", spin_ns(20000)},
        {"membound_50us", copy},
        {"three_kernels", three}};
    // Extra SM cycles for the 1-block sweep, finest where it matters: on the H200 (run
    // bf99b08) +256 cycles read +16% and was found 12 times in 20, +512 read +39% and was
    // found 20 times in 20; the rule's smallest detectable difference there was about 24%.
    const std::vector<long long> extra_cycles{128, 256, 320, 384, 448, 512, 768, 1024};

    std::vector<Group> groups;
    Group avsa{"a-vs-a", "A against A", {}};
    for (const auto& [name, fn] : same) {
      for (int r = 0; r < repeat; ++r)
        avsa.cases.push_back(pair_case(name, r, fn, fn, "A-again", checks));
    }
    groups.push_back(std::move(avsa));
    Group longer{"one-percent", "20 us kernel against one 1% longer", {}};
    for (int r = 0; r < repeat; ++r) {
      longer.cases.push_back(pair_case("spin_20us_vs_1pct", r, spin_ns(20000), spin_ns(20200),
                                       "B-1pct-longer", checks));
    }
    groups.push_back(std::move(longer));
    Group sweep{"one-block-sweep", "1-block kernel against longer copies", {}};
    for (const long long k : extra_cycles) {
      for (int r = 0; r < repeat; ++r) {
        sweep.cases.push_back(pair_case("spin_cycles_plus_" + std::to_string(k), r, spin_cycles(0),
                                        spin_cycles(k), "B-longer", checks));
      }
    }
    if (!no_sweep) groups.push_back(std::move(sweep));

    nlohmann::json summary;
    std::vector<std::string> lines;
    int claims = 0;
    int total = 0;
    for (const Group& g : groups) {
      gpumeter::RunOptions run;
      run.argv.assign(argv, argv + argc);
      gpumeter::Record record = gpumeter::run_cases(*backend, g.cases, run);
      record.run_id = gpumeter::new_run_id() + "-" + g.name;
      const auto path = gpumeter::write_record(record, out_dir);
      // Counted from the record read back: what any reader of the evidence would count.
      const gpumeter::Record back = gpumeter::read_record(path);
      if (!back.failures.empty()) {
        throw gpumeter::Error(g.name + ": " + back.failures.front().error + ": " +
                              back.failures.front().message);
      }
      std::vector<std::string> names;
      for (const gpumeter::Case& c : g.cases) {
        if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
      }
      for (const std::string& name : names) {
        const Tally t = tally(back, name);
        const int found = t.slower + t.faster;
        if (g.name == "a-vs-a") {
          claims += found;
          total += t.compared;
        }
        summary[g.name][name] = {{"compared", t.compared},
                                 {"found_slower", t.slower},
                                 {"found_faster", t.faster},
                                 {"median_estimate", t.median_estimate()},
                                 {"median_smallest_detectable", t.median_detectable()},
                                 {"record", path.filename().string()}};
        char line[256];
        std::snprintf(line, sizeof line,
                      "%-26s %-20s claims %2d of %2d (slower %2d, faster %2d)  median estimate "
                      "%+7.3f%%  median smallest detectable %6.3f%%",
                      g.label.c_str(), name.c_str(), found, t.compared, t.slower, t.faster,
                      100 * t.median_estimate(), 100 * t.median_detectable());
        lines.push_back(line);
      }
    }
    summary["a-vs-a"]["total_claims"] = claims;
    summary["a-vs-a"]["total_compared"] = total;
    // The smallest sweep difference found in at least 19 of 20 (95%) comparisons.
    double smallest = -1;
    for (const long long k : extra_cycles) {
      if (no_sweep) break;
      const nlohmann::json& s = summary["one-block-sweep"]["spin_cycles_plus_" + std::to_string(k)];
      if (s["found_slower"].get<int>() * 20 >= 19 * s["compared"].get<int>()) {
        smallest = s["median_estimate"].get<double>();
        summary["one-block-sweep"]["smallest_found_19_in_20"] = {{"extra_cycles", k},
                                                                 {"median_estimate", smallest}};
        break;
      }
    }
    std::ofstream(out_dir + "/summary.json") << summary.dump(2) << "\n";
    for (const std::string& l : lines) std::printf("%s\n", l.c_str());
    std::printf("A against A: %d claim(s) in %d comparisons\n", claims, total);
    if (smallest >= 0) {
      std::printf("1-block kernel: the smallest difference found 19 times in 20: %.1f%%\n",
                  100 * smallest);
    } else {
      std::printf("1-block kernel: no difference of the sweep was found 19 times in 20\n");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-a-vs-a: %s\n", e.what());
    return 1;
  }
}
