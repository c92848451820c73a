// A user's program of gpumeter, built by tests/consumer/run.sh against the installed package
// and through add_subdirectory: measures a small CPU call on the host backend, writes the
// record, reads it back, prints its table, compares the record with itself, checks that a bad
// record is refused with its named error, and has the `gpumeter` command report the same record.
// Exits 1 when any of that fails or the record does not hold one measured result. It includes
// gpumeter.hpp and nothing else of gpumeter's: the user API must be whole in that one header.
#include <gpumeter/gpumeter.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* kCaseName = "consumer-sum";

int fail(const std::string& why) {
  std::fprintf(stderr, "gpumeter-consumer: FAIL: %s\n", why.c_str());
  return 1;
}

// Runs `command`, returning its exit status (-1 when it did not exit) and its stdout.
int run_command(const std::string& command, std::string& out) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  return (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpumeter-consumer OUT_DIR\n");
    return 2;
  }
  try {
    std::vector<double> data(4096);
    std::iota(data.begin(), data.end(), 1.0);
    volatile double sink = 0;

    gpumeter::Case sum;
    sum.name = kCaseName;
    sum.params = {{"n", std::to_string(data.size())}};
    sum.implementations.push_back(
        {"accumulate",
         gpumeter::Call{[&] { sink = std::accumulate(data.begin(), data.end(), 0.0); }, {}},
         {}});

    auto backend = gpumeter::make_host_backend();
    gpumeter::RunOptions options;
    options.argv.assign(argv, argv + argc);
    options.deviations.push_back("consumer test: host backend");
    gpumeter::Record record = gpumeter::run_cases(*backend, {sum}, options);
    record.run_id = gpumeter::new_run_id();
    const std::filesystem::path file = gpumeter::write_record(record, argv[1]);

    const std::vector<gpumeter::Record> records = gpumeter::read_records({file});
    std::printf("%s\n", gpumeter::render_markdown(records).c_str());
    if (records.size() != 1) return fail("expected 1 record read back");
    const gpumeter::Record& back = records.front();
    if (!back.failures.empty()) return fail("the case failed: " + back.failures.front().message);
    if (back.results.size() != 1) return fail("expected 1 result in the record");
    if (back.results.front().summary.n_samples == 0) return fail("the result has no samples");
    std::printf("consumer: record %s holds 1 result, %zu samples\n", file.c_str(),
                back.results.front().summary.n_samples);

    // Reports from records: the record against itself changes nothing.
    const gpumeter::RecordComparison same = gpumeter::compare_records(back, back);
    const std::string table = gpumeter::render_record_comparison(
        back, back, same, gpumeter::conclude(same, std::nullopt));
    if (table.find(kCaseName) == std::string::npos) {
      return fail("the comparison of the record with itself names no " + std::string(kCaseName));
    }
    // Errors by cause: a text that is not a record is InvalidRecord, never a number.
    try {
      (void)gpumeter::parse_record("{}", "not-a-record.json");
      return fail("parse_record accepted {}");
    } catch (const gpumeter::InvalidRecord& e) {
      std::printf("consumer: {} refused: %s\n", e.what());
    }

    std::string report;
    const std::string command =
        std::string("'") + GPUMETER_CONSUMER_CLI + "' report '" + file.string() + "'";
    const int rc = run_command(command, report);
    if (rc != 0) return fail(command + " exited with " + std::to_string(rc));
    if (report.find(kCaseName) == std::string::npos) {
      return fail(command + " printed no row for " + kCaseName + ":\n" + report);
    }
    std::printf("consumer: %s reported the record (exit 0)\n", GPUMETER_CONSUMER_CLI);
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
