// Raw material for calibrating comparisons on the GPU: many A B B A comparisons of one
// implementation with itself, and of a kernel with a slightly longer copy of itself, each pass
// kept apart. Writes one JSON line per comparison: the kind, the known difference, and the
// device_busy samples of each pass in schedule order (A pass 0, B pass 0, B pass 1, A pass 1).
//
//   gpumeter-a-vs-a --out passes.jsonl [--repeat 40]
#include <CLI/CLI.hpp>
#include <cstddef>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda_memory.hpp"
#include "gpumeter/calibration.hpp"
#include "gpumeter/cuda_backend.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "known_kernels.hpp"

namespace {

using gpumeter::testkit::cuda_ok;
using gpumeter::testkit::DeviceMemory;

struct Experiment {
  std::string kind;
  std::string variant;
  double extra = 0;  // what B adds over A, in the kind's own unit (ns or cycles); 0: A vs A
  int repeat = 0;
  std::function<void()> a;
  std::function<void()> b;
};

std::vector<std::uint64_t> busy(const gpumeter::Measurement& m) {
  std::vector<std::uint64_t> v;
  for (const gpumeter::Sample& s : m.samples)
    v.push_back(static_cast<std::uint64_t>(s.device_busy_ns));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpumeter-a-vs-a: per-pass samples of A-vs-A and known-difference comparisons"};
  std::string out_path = "a-vs-a.jsonl";
  int repeat = 40;
  app.add_option("--out", out_path, "JSON lines, one per comparison");
  app.add_option("--repeat", repeat, "comparisons per A-vs-A kind");
  CLI11_PARSE(app, argc, argv);
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

    std::vector<Experiment> plan{
        {"one_block", "A-vs-A", 0, repeat, empty, empty},
        {"spin_20us", "A-vs-A", 0, repeat, spin_ns(20000), spin_ns(20000)},
        {"membound_50us", "A-vs-A", 0, repeat, copy, copy},
        {"three_kernels", "A-vs-A", 0, repeat, three, three},
        {"spin_20us", "B 1% longer", 200, repeat / 2, spin_ns(20000), spin_ns(20200)},
    };
    for (long long extra : {0LL, 2LL, 4LL, 8LL, 16LL, 32LL, 64LL, 128LL}) {
      plan.push_back({"spin_cycles_1block", "B +" + std::to_string(extra) + " cycles",
                      static_cast<double>(extra), repeat / 2, spin_cycles(0), spin_cycles(extra)});
    }

    const gpumeter::MeasureOptions pass{gpumeter::comparison_pass_budget(gpumeter::kMeasureBudget),
                                        {}};
    std::ofstream f(out_path);
    for (const Experiment& e : plan) {
      for (int r = 0; r < e.repeat; ++r) {
        const gpumeter::Call a{e.a, {}};
        const gpumeter::Call b{e.b, {}};
        nlohmann::json j;
        j["kind"] = e.kind;
        j["variant"] = e.variant;
        j["extra"] = e.extra;
        j["repeat"] = r;
        j["passes"] = nlohmann::json::array();
        for (const auto& [who, call] :
             {std::pair{"A", &a}, std::pair{"B", &b}, std::pair{"B", &b}, std::pair{"A", &a}}) {
          const gpumeter::Measurement m = gpumeter::measure(*backend, *call, pass);
          j["passes"].push_back({{"impl", who}, {"busy_ns", busy(m)}, {"retries", m.retries}});
        }
        f << j.dump() << "\n";
      }
      std::printf("done: %s %s x%d\n", e.kind.c_str(), e.variant.c_str(), e.repeat);
      std::fflush(stdout);
    }
    if (!f) throw std::runtime_error("cannot write " + out_path);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumeter-a-vs-a: %s\n", e.what());
    return 1;
  }
}
