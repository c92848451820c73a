// Test helper: writes a synthetic record of tests/unit/synthetic_record.hpp.
//   gpumeter_make_record DIR [VARIANT]   write it atomically into DIR under a new run id, print
//                                        the path. VARIANT: full (the default), zero-device and
//                                        zero-wall (two rows of 0 ns samples, device time or
//                                        wall clock), hostile-text (text that would break every
//                                        output if it were not made inert), markup-and-failures
//                                        (names that are markdown; a failure of every kind),
//                                        sweep-crossing (a sweep over bytes of two
//                                        implementations that cross)
//   gpumeter_make_record --stdout        print the full record with phases, its run id fixed
//                                        (regenerates tests/data/record_vN.json)
//   gpumeter_make_record --stdout sweep-crossing
//                                        print the crossing sweep, its run id fixed
//                                        (regenerates tests/data/sweep_crossing.json)
//   gpumeter_make_record --scaling KIND N
//                                        print a record for scripts/reader-scaling.sh:
//                                        KIND keys (the full record with N extra keys), elements
//                                        (with an extra array of N empty objects), growth (a
//                                        sweep of one implementation over N sizes), rows (the
//                                        same, one sample a row) or sweep (a
//                                        real-shaped sweep of N MB: cases of two
//                                        implementations, 200 samples each), or comparisons (one
//                                        case of N + 1 implementations: N comparisons)
#include <algorithm>
#include <cstddef>
#include <exception>
#include <iostream>
#include <random>
#include <string>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "synthetic_record.hpp"

namespace {

// A sweep as a GPU run writes it: cases of two implementations of 200 samples each (clock
// readings, a null test, memory), each case one param value, until the text holds `mb` MB.
std::string sweep_of(std::size_t mb) {
  namespace t = gpumeter::testing;
  gpumeter::Record rec = t::full_record();
  rec.results.clear();
  std::mt19937_64 random(15);
  const gpumeter::Result base = t::full_result();
  std::size_t bytes = gpumeter::serialize(rec).size();
  std::size_t per_case = 0;
  for (std::size_t i = 0; per_case == 0 || bytes + per_case <= mb * 1'000'000; ++i) {
    for (const char* implementation : {"naive", "tiled"}) {
      gpumeter::Result r = base;
      r.row.case_name = "gemm";
      r.row.params = {{"n", std::to_string(1024 + i)}, {"dtype", "bf16"}};
      r.row.implementation = implementation;
      gpumeter::Measurement& m = r.measurement;
      m.samples.clear();
      for (int k = 0; k < 200; ++k) {
        const auto busy = static_cast<gpumeter::Nanos>(12'000 + random() % 2'000);
        gpumeter::Sample s =
            t::sample(busy, busy + 800 + static_cast<gpumeter::Nanos>(random() % 300), 2,
                      static_cast<gpumeter::Nanos>(random() % 600));
        s.clock = gpumeter::ClockReading{1980 - static_cast<int>(random() % 3) * 15, 0};
        m.samples.push_back(s);
      }
      m.pass_sizes = {50, 50, 50, 50};
      m.measure_iterations = 200;
      m.null_test->scaled_ns = {49'000, 49'500, 50'100};
      rec.results.push_back(std::move(r));
    }
    if (per_case == 0) {
      t::derive_summaries(rec);
      per_case = gpumeter::serialize(rec).size() - bytes;
    }
    bytes += per_case;
  }
  t::derive_summaries(rec);
  return gpumeter::serialize(rec);
}

// A sweep of one implementation over `n` sizes (1,000 to 1,000 n elements), each row 5 samples
// of one pass: flat at 5 us up to 500,000 elements, then 0.01 ns an element, 0.3% noise. What
// `gpumeter report` fits a growth to (scripts/growth-scaling.sh).
std::string growth_of(std::size_t n, int samples = 5) {
  namespace t = gpumeter::testing;
  gpumeter::Record rec = t::full_record();
  rec.results.clear();
  std::mt19937_64 random(30);
  const gpumeter::Result base = t::full_result();
  for (std::size_t i = 0; i < n; ++i) {
    gpumeter::Result r = base;
    const double size = 1000.0 * static_cast<double>(i + 1);
    r.row.case_name = "copy";
    r.row.params = {{"n", std::to_string(1000 * (i + 1))}};
    r.row.implementation = "a";
    gpumeter::Measurement& m = r.measurement;
    m.null_test.reset();
    m.samples.clear();
    const double level = std::max(5'000.0, 0.01 * size);
    for (int k = 0; k < samples; ++k) {
      const auto busy = static_cast<gpumeter::Nanos>(
          level * (1 + 0.003 * (static_cast<double>(random() % 2001) / 1000.0 - 1)));
      m.samples.push_back(t::sample(busy, busy + 800, 2, 0));
    }
    m.pass_sizes = {static_cast<std::size_t>(samples)};
    m.measure_iterations = static_cast<std::size_t>(samples);
    rec.results.push_back(std::move(r));
  }
  t::derive_summaries(rec);
  return gpumeter::serialize(rec);
}

// One case of n + 1 implementations, full_result's samples each scaled by its own factor (up to
// +-5%): n comparisons against the first, for gpumeter plot's bounds (issue 36).
std::string comparisons_of(std::size_t n) {
  namespace t = gpumeter::testing;
  gpumeter::Record rec = t::full_record();
  rec.results.clear();
  const gpumeter::Result base = t::full_result();
  for (std::size_t i = 0; i <= n; ++i) {
    gpumeter::Result r = base;
    r.row.implementation = i == 0 ? "base" : "c" + std::to_string(i);
    r.measurement.null_test.reset();
    const double factor = 1.0 + 0.01 * static_cast<double>(static_cast<long long>(i % 11) - 5);
    for (gpumeter::Sample& s : r.measurement.samples) {
      s.device_busy_ns =
          static_cast<gpumeter::Nanos>(static_cast<double>(s.device_busy_ns) * factor);
      s.latency_ns = s.device_busy_ns + 900;
    }
    rec.results.push_back(std::move(r));
  }
  t::derive_summaries(rec);
  return gpumeter::serialize(rec);
}

std::string scaling(const std::string& kind, std::size_t n) {
  std::string text = gpumeter::serialize(gpumeter::testing::full_record());
  std::string fill;
  if (kind == "keys") {
    for (std::size_t i = 0; i < n; ++i) fill += "\"k" + std::to_string(i) + "\": 0, ";
  } else if (kind == "elements") {
    fill = "\"x\": [";
    for (std::size_t i = 0; i < n; ++i) fill += i == 0 ? "{}" : ",{}";
    fill += "], ";
  } else if (kind == "sweep") {
    return sweep_of(n);
  } else if (kind == "growth") {
    return growth_of(n);
  } else if (kind == "rows") {
    return growth_of(n, 1);  // the same sweep, one sample a row: the most rows a record holds
  } else if (kind == "comparisons") {
    return comparisons_of(n);
  } else {
    throw gpumeter::Error("unknown scaling input '" + kind + "'");
  }
  return text.insert(1, fill);
}

gpumeter::Record variant(const std::string& name, const std::string& run_id) {
  using gpumeter::TimingMethod;
  namespace t = gpumeter::testing;
  if (name == "full") return t::full_record(run_id);
  if (name == "zero-device") return t::zero_sample_record(TimingMethod::kernel_records, run_id);
  if (name == "zero-wall") return t::zero_sample_record(TimingMethod::host_clock, run_id);
  if (name == "hostile-text") return t::hostile_text_record(run_id);
  if (name == "markup-and-failures") return t::markup_and_failures_record(run_id);
  if (name == "sweep-crossing") return t::sweep_crossing_record(run_id);
  throw gpumeter::Error("unknown variant '" + name + "'");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--scaling") {
    try {
      std::cout << scaling(argv[2], std::stoul(argv[3]));
    } catch (const std::exception& e) {
      std::cerr << "gpumeter_make_record: " << e.what() << '\n';
      return 1;
    }
    return 0;
  }
  if (argc != 2 && argc != 3) {
    std::cerr
        << "usage: gpumeter_make_record DIR "
           "[full|zero-device|zero-wall|hostile-text|markup-and-failures|sweep-crossing] | "
           "--stdout [sweep-crossing|program] | --scaling keys|elements|sweep|comparisons N\n";
    return 2;
  }
  try {
    const std::string arg = argv[1];
    if (arg == "--stdout" && argc == 3 && std::string(argv[2]) == "sweep-crossing") {
      std::cout << gpumeter::serialize(gpumeter::testing::sweep_crossing_record());
    } else if (arg == "--stdout" && argc == 3 && std::string(argv[2]) == "program") {
      std::cout << gpumeter::serialize(gpumeter::testing::program_record());
    } else if (arg == "--stdout") {
      std::cout << gpumeter::serialize(gpumeter::testing::phases_record());
    } else {
      const gpumeter::Record record = variant(argc == 3 ? argv[2] : "full", gpumeter::new_run_id());
      std::cout << gpumeter::write_record(record, arg).string() << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "gpumeter_make_record: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
