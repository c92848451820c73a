// Test helper: writes a folder of records over commits whose history is known, for
// `gpumeter history` (tests/cli/test_history.sh and the browser test, tests/browser/).
//   gpumeter_make_history_records DIR
// DIR/c1 .. DIR/c7 hold the records of seven commits (c1 twice). Series:
//   copy/kernel (n=1024): device time on GPU-A, 10% slower at c3 (a regression from c2), back at
//     c5 (an improvement from c4); at c6 on GPU-B (the line breaks), at c7 on GPU-A timed by CUDA
//     events (it breaks again);
//   a hostile case, implementation and param (markup and script that must be shown, never run):
//     twice as slow at c4 (a regression from c3).
// c2 holds a failure whose message is hostile; c6's device name is hostile; c7's commit is.
// DIR/junk.json is no record (its text is a script); DIR/nocommit/ holds a record with no commit.
// Prints the commits, oldest first, one a line (a --commits file).
//   gpumeter_make_history_records DIR hostile
// DIR holds two commits' records of one case whose name forges a CI workflow command
// ("dot\n::error title=forged::all benchmarks passed"), 2x slower at the second commit; beside
// them, copies of the first commit's record created "" (empty), "yesterday",
// "9999-99-99T99:99:99Z" and 2999-01-01T00:00:00Z (after any build), which would reverse the order
// of the two commits if their time were believed.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "history_records.hpp"

namespace {

using namespace gpumeter;
using testing::history_record;
using testing::history_row;

// Each runs no script where it is shown as text; where it is obeyed, it marks the page.
const std::string kCase =
    "<script>document.documentElement.setAttribute('data-pwned','case')</script>";
const std::string kImplementation =
    "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','impl')\">";
const std::string kParam =
    "\"><svg onload=\"document.documentElement.setAttribute('data-pwned','param')\">";
const std::string kBoard =
    "</title><script>document.documentElement.setAttribute('data-pwned','board')</script>";
const std::string kMessage =
    "<a href=\"javascript:document.documentElement.setAttribute('data-pwned','link')\">fix</a>";
const std::string kCommit =
    "c7<iframe "
    "src=\"javascript:parent.document.documentElement.setAttribute('data-pwned','commit')\">";

Result hostile(double ns, int seed, TimingMethod method) {
  Result r = history_row(kImplementation, ns, method, seed, 0.002, kCase);
  r.row.params = {{kParam, kParam}};
  return r;
}

void write(Record r, const std::filesystem::path& dir) {
  r.gpumeter_version = "0.1.0";
  r.device.arch = "sm_90";
  finish_record(r);  // its rows' flags and comparisons, as a run's record has them
  write_record(r, dir);
}

}  // namespace

// The hostile mode (see the top of this file).
void hostile_history(const std::filesystem::path& dir) {
  const std::string forged = "dot\n::error title=forged::all benchmarks passed";
  const std::string a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  const std::string b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  const auto row = [&](double ns, int seed) {
    return history_row("unrolled4", ns, TimingMethod::kernel_records, seed, 0.002, forged);
  };
  write(history_record("ci1", a, "2026-12-01T00:00:00Z", {row(10000, 1)}), dir / "a");
  write(history_record("ci2", b, "2026-12-02T00:00:00Z", {row(20000, 2)}), dir / "b");
  int n = 0;
  for (const char* created : {"", "yesterday", "9999-99-99T99:99:99Z", "2999-01-01T00:00:00Z"}) {
    ++n;
    write(history_record("planted" + std::to_string(n), a, created, {row(10000, 10 + n)}),
          dir / ("planted" + std::to_string(n)));
  }
  std::cout << a << "\n" << b << "\n";
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[2]) == "hostile") {
    try {
      hostile_history(argv[1]);
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "gpumeter_make_history_records: " << e.what() << "\n";
      return 1;
    }
  }
  if (argc != 2) {
    std::cerr << "usage: gpumeter_make_history_records DIR [hostile]\n";
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    const std::vector<std::string> commits = {"1111111111111111111111111111111111111111",
                                              "2222222222222222222222222222222222222222",
                                              "3333333333333333333333333333333333333333",
                                              "4444444444444444444444444444444444444444",
                                              "5555555555555555555555555555555555555555",
                                              "6666666666666666666666666666666666666666",
                                              kCommit};
    // (commit, run, copy/kernel's level, the hostile row's level, board, method)
    struct Run {
      int commit;
      double kernel_ns;
      double hostile_ns;
      const char* uuid;
      TimingMethod method;
    };
    const std::vector<Run> runs = {
        {0, 10000, 5000, "GPU-A", TimingMethod::kernel_records},
        {0, 10000, 5000, "GPU-A", TimingMethod::kernel_records},
        {1, 10000, 5000, "GPU-A", TimingMethod::kernel_records},
        {2, 11000, 5000, "GPU-A", TimingMethod::kernel_records},
        {3, 11000, 10000, "GPU-A", TimingMethod::kernel_records},
        {4, 10000, 10000, "GPU-A", TimingMethod::kernel_records},
        {5, 10000, 10000, "GPU-B", TimingMethod::kernel_records},
        {6, 10000, 10000, "GPU-A", TimingMethod::device_events},
    };
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Run& run = runs[i];
      const int seed = static_cast<int>(i) + 1;
      std::vector<Result> rows = {history_row("kernel", run.kernel_ns, run.method, seed)};
      rows.push_back(hostile(run.hostile_ns, seed, run.method));
      std::vector<Failure> failures;
      if (run.commit == 1)
        failures.push_back({{"broken", {}, "one"}, "VerificationFailed", kMessage});
      Record r = history_record(
          "run" + std::to_string(i + 1), commits[static_cast<std::size_t>(run.commit)],
          "2026-12-0" + std::to_string(run.commit + 1) + "T0" + std::to_string(i % 2) + ":00:00Z",
          rows, run.uuid, failures);
      if (run.commit == 5) r.device.name = kBoard;
      write(r, dir / ("c" + std::to_string(run.commit + 1)));
    }
    Record orphan =
        history_record("orphan", "", "2026-12-01T00:00:00Z",
                       {history_row("kernel", 10000, TimingMethod::kernel_records, 99)});
    write(orphan, dir / "nocommit");
    std::ofstream(dir / "junk.json")
        << "<script>document.documentElement.setAttribute('data-pwned','junk')</script>\n";
    for (const std::string& c : commits) std::cout << c << "\n";
  } catch (const std::exception& e) {
    std::cerr << "gpumeter_make_history_records: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
