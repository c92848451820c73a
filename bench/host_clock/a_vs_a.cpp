// How often the host clock's comparison claims a difference that is not there, and whether it
// still catches one that is: a function measured against itself, and against 3x its work, on the
// host backend, by the comparison every front end reads (compare_rows on two rows of one
// comparison). Run with the host's cores kept busy (bench/results/*-host-a-vs-a/ says how).
//
//   gpumeter-host-a-vs-a [COMPARISONS] [N] [WARMUP_MS,MEASURE_MS]
//
// Defaults: 100 comparisons of each kind, N = 20000 (about 20 us a call on the 2-core build
// machine unloaded), a budget of 5,20 ms per implementation. Prints one CSV line per comparison
// (kind, index, the candidate's median over the baseline's, claimed, the sentence) and a summary:
// the claims among A against A (the rule's goal: at most 1 in 100) and the 3x slower caught.
// Uses only what gpumeter had before the host-clock rule (compare, compare_rows), so the same
// source measures the rule before it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_backend.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/record.hpp"

namespace {

volatile double g_sink = 0;

// Host work of n steps, never folded away: its answer goes to a volatile.
void work(std::size_t n) {
  double s = 0;
  for (std::size_t i = 1; i <= n; ++i) s += std::sqrt(static_cast<double>(i));
  g_sink = s;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string first;
  in >> first;
  return first.empty() ? "unknown" : first;
}

struct Tally {
  int claimed = 0;
  int slower = 0;
};

Tally run(gpumeter::Backend& backend, const char* kind, int comparisons, std::size_t n,
          std::size_t candidate_n, const gpumeter::CompareOptions& options) {
  using namespace gpumeter;
  Tally t;
  for (int i = 0; i < comparisons; ++i) {
    const std::vector<Implementation> impls = {
        Implementation("a", Call([n] { work(n); })),
        Implementation("b", Call([candidate_n] { work(candidate_n); })),
    };
    const std::vector<Measurement> m = compare(backend, impls, options);
    std::vector<Result> rows(2);
    for (std::size_t k = 0; k < 2; ++k) {
      rows[k].row = {"work", {{"n", std::to_string(n)}}, impls[k].name};
      rows[k].measurement = m[k];
      summarize_result(rows[k], Ceilings{});
    }
    const Comparison c = compare_rows(rows[0], rows[1]);
    const bool claimed = c.ratio && c.ratio->resolution == Resolution::directional_difference;
    t.claimed += claimed ? 1 : 0;
    t.slower += claimed && c.ratio->speedup < 1 ? 1 : 0;
    const double ratio = c.ratio ? 1 / c.ratio->speedup : 0;
    std::string sentence = describe(c);
    for (char& ch : sentence) {
      if (ch == ',') ch = ';';  // one CSV field
    }
    std::printf("%s,%d,%.4f,%d,%s\n", kind, i + 1, ratio, claimed ? 1 : 0, sentence.c_str());
    std::fflush(stdout);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int comparisons = argc > 1 ? std::atoi(argv[1]) : 100;
  const std::size_t n = argc > 2 ? static_cast<std::size_t>(std::atol(argv[2])) : 20000;
  double warmup_ms = 5;
  double measure_ms = 20;
  if (argc > 3 && std::sscanf(argv[3], "%lf,%lf", &warmup_ms, &measure_ms) != 2) {
    std::fprintf(stderr, "gpumeter-host-a-vs-a: budget WARMUP_MS,MEASURE_MS, got %s\n", argv[3]);
    return 2;
  }
  if (comparisons < 1 || n < 1) {
    std::fprintf(stderr,
                 "usage: gpumeter-host-a-vs-a [COMPARISONS>=1] [N>=1] [WARMUP_MS,MEASURE_MS]\n");
    return 2;
  }
  gpumeter::CompareOptions options;
  options.budget = gpumeter::kMeasureBudget;
  options.budget.warmup_ns = static_cast<gpumeter::Nanos>(warmup_ms * 1e6);
  options.budget.measure_ns = static_cast<gpumeter::Nanos>(measure_ms * 1e6);
  const auto backend = gpumeter::make_host_backend();
  std::printf("# load average at start: %s\n", load_average().c_str());
  std::printf("kind,index,median_ratio,claimed,sentence\n");
  const Tally same = run(*backend, "a_vs_a", comparisons, n, n, options);
  const Tally slow = run(*backend, "a_vs_3a", comparisons, n, 3 * n, options);
  std::printf("# load average at end: %s\n", load_average().c_str());
  std::printf("# A against A: %d claimed differences of %d comparisons (goal: at most 1 in 100)\n",
              same.claimed, comparisons);
  std::printf("# A against 3x the work: %d of %d called slower\n", slow.slower, comparisons);
  return 0;
}
