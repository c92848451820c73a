// Comparisons run to a target precision, on the device, with every check on (fresh inputs before
// each call and its answer checked, as for a candidate). Three parts:
//   - time: how long a comparison of a kernel with itself takes to reach a target, by kernel
//     size (about 1, 5, 20 and 200 us) and target (5%, 2%, 1%), --time-repeat runs a cell;
//   - claims: A against A to a 2% target, --repeat times per size (how many claim a difference),
//     and a 1% longer copy at 20 us and at 1 us to a 0.5% target, --changes times (how many find
//     it);
//   - quantization: one case of 17 copies of a 1-block kernel, each 8 SM cycles (about 4 ns)
//     longer than the one before, over about two 32 ns timestamp steps: whether the levels the
//     rules read (trimmed means) follow a change far below one step, or stay on the steps;
//   - cost: where a precision pass of the 1 us kernel spends its wall time: passes of the precision
//     budget timed whole with every check on, without fresh inputs and checks, without the L2
//     flush, with the warm-up cut to its least, and a pass of one iteration per phase (what a
//     phase costs beside its iterations).
// Writes one record per group under --out and summary.json; prints a table last.
//
//   gpumeter-precision --out DIR [--parts time,claims,quantization,cost] [--repeat 25]
//                      [--changes 20]
//                      [--time-repeat 3] [--cap-s 5] [--quantization-repeat 10]
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "cuda_memory.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/gpumeter.hpp"
#include "known_kernels.hpp"
#include "number_option.hpp"
#include "temporary_file.hpp"

namespace {

using gpumeter::testkit::cuda_ok;

// Every call as a candidate's: fresh inputs (a fill of a small buffer under the inputs label)
// and its answer checked (a tiny kernel under the check label, drawn as the driver draws).
gpumeter::Call checked_call(std::function<void()> run, void* buffer) {
  gpumeter::Call call{std::move(run), {}};
  call.prepare = [buffer](std::uint64_t seed) {
    cuda_ok(cudaMemsetAsync(buffer, static_cast<int>(seed & 0xff), 4096, cudaStreamLegacy),
            "fresh inputs");
  };
  call.check = [](std::uint64_t) { gpumeter::testkit::launch_empty(cudaStreamLegacy); };
  return call;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Kernel {
  std::string name;
  std::function<void()> run;
  std::function<void()> plus1;  // about 1% longer
};

struct Tally {
  int compared = 0, found = 0, reached = 0;
  int stops_target = 0, stops_time = 0, stops_passes = 0;
  std::vector<double> widths, seconds, estimates, medians_us, ms_per_pass;
};

void count(const gpumeter::Record& back, Tally& t) {
  for (const gpumeter::Comparison& c : back.comparisons) {
    if (!c.difference || !c.precision) continue;
    ++t.compared;
    t.found += c.difference->found();
    t.reached += c.precision->target_met();
    t.stops_target += c.precision->stopped == gpumeter::StopReason::target_reached;
    t.stops_time += c.precision->stopped == gpumeter::StopReason::time_cap;
    t.stops_passes += c.precision->stopped == gpumeter::StopReason::pass_cap;
    t.widths.push_back(c.precision->reached);
    t.seconds.push_back(static_cast<double>(c.precision->elapsed_ns) / 1e9);
    t.estimates.push_back(c.difference->estimate);
    if (c.precision->passes > 0) {
      t.ms_per_pass.push_back(static_cast<double>(c.precision->elapsed_ns) / 1e6 /
                              c.precision->passes);
    }
  }
  for (const gpumeter::Result& r : back.results) {
    t.medians_us.push_back(r.summary.device_busy.median_ns / 1e3);
  }
}

nlohmann::json tally_json(const Tally& t) {
  return {
      {"compared", t.compared},
      {"found", t.found},
      {"target_reached", t.reached},
      {"stops", {{"target", t.stops_target}, {"time", t.stops_time}, {"passes", t.stops_passes}}},
      {"median_reached", median(t.widths)},
      {"median_seconds", median(t.seconds)},
      {"max_seconds",
       t.seconds.empty() ? 0.0 : *std::max_element(t.seconds.begin(), t.seconds.end())},
      {"median_estimate", median(t.estimates)},
      {"median_kernel_us", median(t.medians_us)},
      {"median_ms_per_pass", median(t.ms_per_pass)},
      {"seconds", t.seconds},
      {"reached", t.widths},
      {"estimates", t.estimates}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-precision: comparisons run to a target precision", "gpumeter-precision"};
  std::string out_dir = "precision";
  std::string parts = "time,claims,quantization,cost";
  int repeat = 25;
  int changes = 20;
  int time_repeat = 3;
  int quantization_repeat = 10;
  double cap_s = 5;
  long long one_us_cycles = 800;
  app.add_option("--out", out_dir, "directory for the records and summary.json");
  app.add_option("--parts", parts,
                 "which parts to run: time, claims, quantization, cost (comma list)")
      ->check([](const std::string& text) {
        std::size_t at = 0;
        while (at <= text.size()) {
          const std::size_t comma = std::min(text.find(',', at), text.size());
          const std::string part = text.substr(at, comma - at);
          if (part != "time" && part != "claims" && part != "quantization" && part != "cost") {
            return "'" + part + "' is no part: time, claims, quantization or cost";
          }
          at = comma + 1;
        }
        return std::string();
      });
  gpumeter::check_number(app.add_option("--repeat", repeat, "A-against-A comparisons per size"),
                         gpumeter::kPositiveCount);
  gpumeter::check_number(app.add_option("--changes", changes, "comparisons per 1% change"),
                         gpumeter::kPositiveCount);
  gpumeter::check_number(app.add_option("--time-repeat", time_repeat, "runs per size and target"),
                         gpumeter::kPositiveCount);
  gpumeter::check_number(
      app.add_option("--quantization-repeat", quantization_repeat, "cases of the 17 copies"),
      gpumeter::kPositiveCount);
  app.add_option("--cap-s", cap_s, "the time cap of every comparison, in seconds")
      ->check(CLI::Range(0.1, 3600.0));
  app.add_option("--one-us-cycles", one_us_cycles,
                 "SM cycles the 1-block kernel of about 1 us spins (its floor is about 0.6 us)")
      ->check(CLI::Range(0LL, 1000000LL));
  if (const auto done = gpumeter::testkit::parse_command_line(app, argc, argv)) return *done;
  const auto wanted = [&](const std::string& part) {
    return ("," + parts + ",").find("," + part + ",") != std::string::npos;
  };
  try {
    gpumeter::prepare_output_directory(out_dir);
  } catch (const gpumeter::Error& e) {
    std::fprintf(stderr, "gpumeter-precision: --out %s: %s\n", out_dir.c_str(), e.what());
    return 2;
  }
  try {
    const gpumeter::CudaAvailability avail = gpumeter::cuda_availability(0);
    if (!avail.usable) throw gpumeter::DeviceError(avail.reason);
    const std::unique_ptr<gpumeter::Backend> backend = gpumeter::make_cuda_backend();
    gpumeter::testkit::DeviceMemory fresh(4096);
    void* buffer = fresh.get();
    const auto spin_ns = [](std::uint64_t ns) {
      return [ns] { gpumeter::testkit::launch_spin(ns, nullptr, cudaStreamLegacy); };
    };
    const auto spin_cycles = [](long long c) {
      return [c] { gpumeter::testkit::launch_spin_cycles(c, cudaStreamLegacy); };
    };
    // The 1 us kernel spins on SM cycles: one spinning on the 32 ns global timer ends on its
    // steps, so a copy 10 ns longer would often be the same kernel. 20 cycles are about 1% of it
    // at 1980 MHz; the records' medians say what each was.
    const std::vector<Kernel> kernels{
        {"1us", spin_cycles(one_us_cycles), spin_cycles(one_us_cycles + 20)},
        {"5us", spin_ns(5000), nullptr},
        {"20us", spin_ns(20000), spin_ns(20200)},  // 20224 ns on 32 ns steps: +1.1%
        {"200us", spin_ns(200000), nullptr}};
    const auto pair_case = [&](const std::string& name, int r, const std::function<void()>& a,
                               const std::function<void()>& b) {
      gpumeter::Case c;
      c.name = name;
      c.params = {{"repeat", std::to_string(r)}};
      c.implementations.push_back({"A", checked_call(a, buffer), {}});
      c.implementations.push_back({"B", checked_call(b, buffer), {}});
      return c;
    };
    const auto run_record = [&](const std::string& group, const std::vector<gpumeter::Case>& cases,
                                std::optional<gpumeter::PrecisionTarget> precision,
                                const gpumeter::Budget& budget) {
      gpumeter::RunOptions run;
      run.argv.assign(argv, argv + argc);
      run.precision = precision;
      run.budget = budget;
      gpumeter::Record record = gpumeter::run_cases(*backend, cases, run);
      record.run_id = gpumeter::new_run_id() + "-" + group;
      const auto path = gpumeter::write_record(record, out_dir);
      gpumeter::Record back = gpumeter::read_record(path);  // counted as any reader would
      if (!back.failures.empty()) {
        throw gpumeter::Error(group + ": " + back.failures.front().error + ": " +
                              back.failures.front().message);
      }
      return back;
    };
    const auto cap = static_cast<gpumeter::Nanos>(cap_s * 1e9);
    nlohmann::json summary;
    std::vector<std::string> lines;
    const auto say = [&](const std::string& line) {
      lines.push_back(line);
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    };
    char buf[400];

    if (wanted("time")) {
      say("time to an answer: A against A, every check on, cap " +
          gpumeter::format_shortest(cap_s) + " s, " + std::to_string(time_repeat) + " runs a cell");
      say("size   kernel us  target  median s   max s  median reached  ms/pass  "
          "stops target/time/passes");
      for (const Kernel& k : kernels) {
        for (const double target : {0.05, 0.02, 0.01}) {
          std::vector<gpumeter::Case> cases;
          for (int r = 0; r < time_repeat; ++r)
            cases.push_back(pair_case("time_" + k.name, r, k.run, k.run));
          const std::string group =
              "time_" + k.name + "_" + gpumeter::format_shortest(100 * target);
          Tally t;
          count(run_record(group, cases, gpumeter::PrecisionTarget{target, cap},
                           gpumeter::kMeasureBudget),
                t);
          summary["time"][k.name][gpumeter::format_shortest(100 * target)] = tally_json(t);
          std::snprintf(
              buf, sizeof buf, "%-6s %9.3f  %5.1f%%  %8.2f  %6.2f  %13.2f%%  %7.2f  %d/%d/%d",
              k.name.c_str(), median(t.medians_us), 100 * target, median(t.seconds),
              t.seconds.empty() ? 0.0 : *std::max_element(t.seconds.begin(), t.seconds.end()),
              100 * median(t.widths), median(t.ms_per_pass), t.stops_target, t.stops_time,
              t.stops_passes);
          say(buf);
        }
      }
    }

    if (wanted("claims")) {
      int claims = 0, compared = 0;
      for (const Kernel& k : kernels) {
        std::vector<gpumeter::Case> cases;
        for (int r = 0; r < repeat; ++r)
          cases.push_back(pair_case("a_vs_a_" + k.name, r, k.run, k.run));
        Tally t;
        count(run_record("a_vs_a_" + k.name, cases, gpumeter::PrecisionTarget{0.02, cap},
                         gpumeter::kMeasureBudget),
              t);
        claims += t.found;
        compared += t.compared;
        summary["claims"]["a_vs_a"][k.name] = tally_json(t);
        std::snprintf(buf, sizeof buf,
                      "A against A %-6s to 2%%: claims %2d of %2d; median estimate %+7.3f%%, "
                      "reached %5.2f%%, %5.2f s",
                      k.name.c_str(), t.found, t.compared, 100 * median(t.estimates),
                      100 * median(t.widths), median(t.seconds));
        say(buf);
      }
      std::snprintf(buf, sizeof buf, "A against A: %d claim(s) in %d comparisons", claims,
                    compared);
      say(buf);
      for (const Kernel& k : kernels) {
        if (!k.plus1) continue;
        std::vector<gpumeter::Case> cases;
        for (int r = 0; r < changes; ++r)
          cases.push_back(pair_case("plus_1pct_" + k.name, r, k.run, k.plus1));
        Tally t;
        count(run_record("plus_1pct_" + k.name, cases, gpumeter::PrecisionTarget{0.005, cap},
                         gpumeter::kMeasureBudget),
              t);
        summary["claims"]["plus_1pct"][k.name] = tally_json(t);
        std::snprintf(
            buf, sizeof buf,
            "%-6s against 1%% longer to 0.5%%: found %2d of %2d; median estimate %+7.3f%%, "
            "reached %5.2f%%, %5.2f s",
            k.name.c_str(), t.found, t.compared, 100 * median(t.estimates), 100 * median(t.widths),
            median(t.seconds));
        say(buf);
      }
    }

    if (wanted("quantization")) {
      constexpr int kCopies = 17;
      constexpr long long kStep = 8;
      std::vector<gpumeter::Case> cases;
      for (int r = 0; r < quantization_repeat; ++r) {
        gpumeter::Case c;
        c.name = "quantization";
        c.params = {{"repeat", std::to_string(r)}};
        for (int k = 0; k < kCopies; ++k) {
          c.implementations.push_back({"plus_" + std::to_string(k * kStep),
                                       checked_call(spin_cycles(one_us_cycles + k * kStep), buffer),
                                       {}});
        }
        cases.push_back(std::move(c));
      }
      const gpumeter::Record back =
          run_record("quantization", cases, std::nullopt, gpumeter::kMeasureBudget);
      // Every sample of each copy, and each of its passes' levels as the rules read them.
      std::map<std::string, std::vector<double>> samples, levels;
      gpumeter::Nanos tick = 1;
      for (const gpumeter::Result& r : back.results) {
        std::size_t at = 0;
        tick = std::max(tick, r.measurement.timestamp_tick_ns);
        for (const std::size_t n : r.measurement.pass_sizes) {
          std::vector<double> pass;
          for (std::size_t i = at; i < at + n; ++i) {
            pass.push_back(static_cast<double>(r.measurement.samples[i].device_busy_ns));
          }
          at += n;
          samples[r.row.implementation].insert(samples[r.row.implementation].end(), pass.begin(),
                                               pass.end());
          levels[r.row.implementation].push_back(gpumeter::trimmed_mean(pass));
        }
      }
      // A line through the copies' levels: the residuals say whether the levels follow the
      // cycles or sit on the steps (a sawtooth up to half a step either way).
      std::vector<double> x, level, med, share;
      for (int k = 0; k < kCopies; ++k) {
        const std::string name = "plus_" + std::to_string(k * kStep);
        const std::vector<double>& s = samples[name];
        const std::vector<double>& l = levels[name];
        x.push_back(static_cast<double>(k * kStep));
        level.push_back(std::accumulate(l.begin(), l.end(), 0.0) / static_cast<double>(l.size()));
        med.push_back(median(s));
        std::map<double, std::size_t> counts;
        for (double v : s) ++counts[v];
        std::size_t most = 0;
        for (const auto& [v, n] : counts) most = std::max(most, n);
        share.push_back(static_cast<double>(most) / static_cast<double>(s.size()));
      }
      const auto fit = [&](const std::vector<double>& y) {
        const double n = static_cast<double>(y.size());
        const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
        const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
        double sxy = 0, sxx = 0;
        for (std::size_t i = 0; i < y.size(); ++i) {
          sxy += (x[i] - mx) * (y[i] - my);
          sxx += (x[i] - mx) * (x[i] - mx);
        }
        const double slope = sxy / sxx;
        double worst = 0, squares = 0;
        std::vector<double> residuals;
        for (std::size_t i = 0; i < y.size(); ++i) {
          const double r = y[i] - (my + slope * (x[i] - mx));
          residuals.push_back(r);
          worst = std::max(worst, std::fabs(r));
          squares += r * r;
        }
        return nlohmann::json{{"slope_ns_per_cycle", slope},
                              {"largest_residual_ns", worst},
                              {"rms_residual_ns", std::sqrt(squares / n)},
                              {"residuals_ns", residuals}};
      };
      const nlohmann::json by_level = fit(level);
      const nlohmann::json by_median = fit(med);
      summary["quantization"] = {{"tick_ns", tick},
                                 {"cycles", x},
                                 {"level_ns", level},
                                 {"median_ns", med},
                                 {"most_common_share", share},
                                 {"levels", by_level},
                                 {"medians", by_median}};
      say("quantization: 17 copies of a 1-block kernel 8 cycles apart, step " +
          std::to_string(tick) + " ns, " + std::to_string(quantization_repeat) + " cases");
      say("cycles  level ns  median ns  most common reading's share  level residual ns");
      for (std::size_t i = 0; i < x.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%6.0f  %8.2f  %9.1f  %27.3f  %+17.2f", x[i], level[i],
                      med[i], share[i], by_level["residuals_ns"][i].get<double>());
        say(buf);
      }
      std::snprintf(buf, sizeof buf,
                    "levels: slope %.4f ns per cycle, largest residual %.2f ns, rms %.2f ns "
                    "(half a step is %.1f ns); medians: largest residual %.2f ns",
                    by_level["slope_ns_per_cycle"].get<double>(),
                    by_level["largest_residual_ns"].get<double>(),
                    by_level["rms_residual_ns"].get<double>(), 0.5 * static_cast<double>(tick),
                    by_median["largest_residual_ns"].get<double>());
      say(buf);
    }

    if (wanted("cost")) {
      // Each configuration's passes timed whole on the host clock, as the precision rule runs
      // them (measure() with the precision pass budget): the differences between rows say what
      // the flush, the checks and the warm-up cost a pass.
      gpumeter::CudaBackendOptions no_flush_options;
      no_flush_options.l2_flush = false;
      const std::unique_ptr<gpumeter::Backend> no_flush =
          gpumeter::make_cuda_backend(no_flush_options);
      const gpumeter::Call checked = checked_call(kernels.front().run, buffer);
      const gpumeter::Call plain{kernels.front().run, {}};
      const gpumeter::Budget least_warmup{0, gpumeter::kPrecisionPassBudget.measure_ns,
                                          gpumeter::kPrecisionPassBudget.min_iterations,
                                          gpumeter::kPrecisionPassBudget.max_iterations};
      const gpumeter::Budget one_each{0, 0, 1, 1};
      struct Config {
        const char* name;
        gpumeter::Backend* backend;
        const gpumeter::Call* call;
        gpumeter::Budget budget;
      };
      const std::vector<Config> configs{
          {"every check on", backend.get(), &checked, gpumeter::kPrecisionPassBudget},
          {"no fresh inputs or checks", backend.get(), &plain, gpumeter::kPrecisionPassBudget},
          {"no L2 flush (not valid)", no_flush.get(), &checked, gpumeter::kPrecisionPassBudget},
          {"least warm-up", backend.get(), &checked, least_warmup},
          {"one iteration a phase", backend.get(), &checked, one_each},
      };
      constexpr int kPasses = 20;
      say("cost of a precision pass of the 1 us kernel, " + std::to_string(kPasses) +
          " passes each, host clock");
      say("configuration               ms/pass  calib+warm+measure iters  us/iter  checks  "
          "call us");
      for (const Config& c : configs) {
        std::vector<double> ms;
        gpumeter::Measurement last;
        for (int p = 0; p < kPasses; ++p) {
          const auto t0 = std::chrono::steady_clock::now();
          last = gpumeter::measure(*c.backend, *c.call, gpumeter::MeasureOptions{c.budget, false});
          ms.push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count());
        }
        const std::size_t iters =
            gpumeter::kCalibrationRuns + last.warmup_iterations + last.measure_iterations;
        const double per_iter_us = 1e3 * median(ms) / static_cast<double>(iters);
        std::vector<double> busy;
        for (const gpumeter::Sample& x : last.samples) {
          busy.push_back(static_cast<double>(x.device_busy_ns));
        }
        summary["cost"][c.name] = {{"ms_per_pass", ms},
                                   {"median_ms", median(ms)},
                                   {"warmup_iterations", last.warmup_iterations},
                                   {"measure_iterations", last.measure_iterations},
                                   {"checked_iterations", last.ledger.checked_iterations},
                                   {"estimate_ns", last.estimate_ns}};
        std::snprintf(buf, sizeof buf, "%-26s %8.2f  %6zu+%zu+%-14zu %8.1f  %6zu  %7.2f", c.name,
                      median(ms), gpumeter::kCalibrationRuns, last.warmup_iterations,
                      last.measure_iterations, per_iter_us, last.ledger.checked_iterations,
                      median(busy) / 1e3);
        say(buf);
      }
    }
    if (wanted("cost")) {
      // A phase's own steps, each timed on the host clock around the backend's call (the order
      // the driver uses, one iteration of the 1 us kernel): what a phase costs beside its
      // iterations, piece by piece.
      gpumeter::DeviceSteps& steps = *backend;
      gpumeter::Collector& collector = *backend;
      gpumeter::EnvironmentProbe& probe = *backend;
      std::map<std::string, std::vector<double>> us;
      const auto timed = [&](const char* name, const std::function<void()>& fn) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        us[name].push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count());
      };
      try {
        for (int r = 0; r < 20; ++r) {
          timed("synchronize", [&] { steps.synchronize(); });
          timed("device processes (NVML)", [&] { (void)probe.new_device_processes(); });
          timed("read clock", [&] { (void)probe.read_clock(); });
          timed("open_phase", [&] { collector.open_phase(gpumeter::PhaseRequest{1, 0}); });
          timed("prepare: canary + L2 flush + drain", [&] {
            collector.begin_prepare(0);
            steps.clear_cache(0);
            collector.end_prepare(0);
            steps.drain(0, "preparation");
          });
          timed("the call + drain", [&] {
            collector.begin_iteration(0);
            kernels.front().run();
            collector.end_iteration(0);
            steps.after_user_code(0, "the measured call");
            steps.drain(0, "the measured call");
          });
          timed("close_phase", [&] { (void)collector.close_phase(); });
        }
      } catch (const std::exception& e) {
        collector.abandon_phase();
        say(std::string("a phase's steps: stopped: ") + e.what());
      }
      say("a phase's steps, 20 times each, host clock: median us");
      for (const auto& [name, v] : us) {
        summary["phase_steps_us"][name] = v;
        std::snprintf(buf, sizeof buf, "%-36s %10.1f", name.c_str(), median(v));
        say(buf);
      }
    }
    std::ofstream(out_dir + "/summary.json") << summary.dump(2) << "\n";
    std::printf("\n");
    for (const std::string& l : lines) std::printf("%s\n", l.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-precision: %s\n", e.what());
    return 1;
  }
}
