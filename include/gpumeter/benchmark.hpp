#pragma once
// Benchmark programs (docs/rules.md, "C++ authoring API"): a benchmark is one function plus a
// registration line; parameter axes give its cases (the cartesian product of their values, each
// overridable from the command line); GPUMETER_MAIN gives every such program the same command line
// (gpumeter::main).
//
//   void copy(gpumeter::Setup& s) {
//     const long long bytes = s.get_int("bytes");
//     auto buffers = std::make_shared<MyBuffers>(bytes);   // kept alive by the calls below
//     s.bytes(2.0 * bytes);
//     s.implementation("float4", [buffers] { launch_copy(*buffers); });
//   }
//   GPUMETER_BENCHMARK(copy).axis(gpumeter::int_axis("bytes", {100'000, 1'000'000'000}));
//   GPUMETER_MAIN
//
// Each case runs its implementations in A B C C B A order (A A for one) and becomes rows of one
// record; the record is written case by case, so a crash keeps what was measured.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/measure.hpp"
#include "gpumeter/runner.hpp"

namespace gpumeter {

// The kinds of values an axis holds; they decide how a value given on the command line parses.
enum class AxisKind {
  integer,       // 1000, 1e9 (when integral), ranges start:stop:step
  power_of_two,  // 1024 or 2^10; ranges of exponents 2^10:2^20
  floating,      // 0.5, 1e-3
  text,          // bf16, f32
};

struct Axis {
  std::string name;
  AxisKind kind = AxisKind::integer;
  std::vector<std::string> values;  // canonical text, as params show them ("1024", "0.5")
};

Axis int_axis(std::string name, std::vector<long long> values);
Axis power_of_two_axis(std::string name, std::vector<int> exponents);  // 2^e for each e
Axis float_axis(std::string name, std::vector<double> values);
Axis string_axis(std::string name, std::vector<std::string> values);

// The values `text` gives `axis` on the command line (--axis name=TEXT): a comma-separated
// list, or for integers and powers of two a range "start:stop[:step]" (inclusive; for powers of
// two the step multiplies, "2^10:2^20:4" is 2^10, 2^12, ...). An integer axis takes powers of
// two too: "2^12", and a range written in them ("2^10:2^14:2") steps by its factor. Throws
// ConfigError naming the axis and the value that does not parse, or a value of the wrong kind.
Axis override_axis(const Axis& axis, const std::string& text);

// What a benchmark function sees for one case (one point of its axes), and how it says what to
// measure there.
class Setup {
 public:
  Setup(std::string benchmark, Params params, std::map<std::string, AxisKind> kinds, int device);

  const std::string& benchmark() const { return benchmark_; }
  const Params& params() const { return params_; }
  int device() const { return device_; }  // the device the program measures (--device)

  // An axis value of this case. Throws ConfigError for an axis the benchmark does not have,
  // or of another kind (get_int reads integer and power-of-two axes).
  long long get_int(const std::string& axis) const;
  double get_float(const std::string& axis) const;
  const std::string& get_string(const std::string& axis) const;

  // Per call, for TFLOP/s and TB/s (computed from the axis values by the benchmark).
  Setup& flops(double per_call);
  Setup& bytes(double per_call);
  // Copies (memcpy, memset) the call makes count as device time, for every implementation.
  Setup& count_copies(bool count = true);

  // One implementation: `run` launches (or does) one call; `reset` restores inputs the call
  // overwrites, before each call, untimed, so every call starts from the same inputs.
  Setup& implementation(std::string name, std::function<void()> run,
                        std::function<void()> reset = {});
  // An implementation that can do k times its work: `run(k)` (run(1) is what is timed). It gets a
  // null test beside its timing (docs/rules.md, "the null test"): run(4) must take about 4x the
  // time (within 40%), or its row is marked failed with the observed ratio, shows no times and is
  // compared with nothing. Scale something that costs time (elements, repetitions of the whole
  // operation), not a parameter the work ignores.
  Setup& scalable_implementation(std::string name, std::function<void(int k)> run,
                                 std::function<void()> reset = {});
  // Checks each implementation's output after one untimed call, before anything is timed:
  // `output` reads it, `reference` computes the right answer (once), and every element must
  // satisfy |out - ref| <= tolerance * |ref| + absolute (the absolute floor for values near zero,
  // where a relative error means nothing); else VerificationFailed names the implementation, the
  // element and the error. NaN never passes.
  Setup& reference(std::function<std::vector<double>()> reference,
                   std::function<std::vector<double>()> output, double tolerance,
                   double absolute = 0);
  // Fresh inputs (docs/evaluation.md): `generate(seed)` writes new inputs made from `seed` (a
  // pure function of it) before every call, untimed, with a seed never given before; with a
  // reference, every call's answer is then checked while timed (every iteration where the check
  // is cheap, else a sample): the output is read, generate(seed) runs again and the reference is
  // computed on those inputs. A remembered or copied answer fails as VerificationFailed naming
  // the iteration. A generator may also poison the output buffers (fill them with NaN).
  Setup& fresh_inputs(std::function<void(std::uint64_t seed)> generate);
  // A check of one's own, called with the implementation's name after its untimed call. It
  // throws VerificationFailed for a wrong output; anything else it throws fails the case as
  // UserCodeError (as from the setup, a call or a reset).
  Setup& verify(std::function<void(const std::string& implementation)> check);
  // Keeps an object (buffers, handles) alive until the case has been measured.
  Setup& keep(std::shared_ptr<void> owner);
  // This case is not measured; the record lists it with the reason.
  void skip(std::string reason);

  // For the runtime.
  bool skipped() const { return skip_reason_.has_value(); }
  const std::string& skip_reason() const { return *skip_reason_; }
  Case to_case() const;

 private:
  const std::string& value(const std::string& axis) const;

  std::string benchmark_;
  Params params_;
  std::map<std::string, AxisKind> kinds_;
  int device_ = 0;
  Workload workload_;
  bool count_copies_ = false;
  std::vector<Implementation> implementations_;
  std::function<std::vector<double>()> reference_;
  std::function<std::vector<double>()> output_;
  double tolerance_ = 0;
  double absolute_ = 0;
  std::function<void(const std::string&)> check_;
  std::function<void(std::uint64_t)> generate_;
  std::vector<std::shared_ptr<void>> kept_;
  std::optional<std::string> skip_reason_;
};

using BenchmarkFunction = std::function<void(Setup&)>;

class Benchmark {
 public:
  Benchmark(std::string name, BenchmarkFunction function);

  // Adds an axis (names are unique within a benchmark); returns *this for chaining.
  Benchmark& axis(Axis axis);

  const std::string& name() const { return name_; }
  const std::vector<Axis>& axes() const { return axes_; }
  const BenchmarkFunction& function() const { return function_; }

 private:
  std::string name_;
  BenchmarkFunction function_;
  std::vector<Axis> axes_;
};

// Every benchmark a program registered, in registration order.
class Registry {
 public:
  // Throws ConfigError for a name already registered.
  Benchmark& add(std::string name, BenchmarkFunction function);
  const std::vector<std::unique_ptr<Benchmark>>& benchmarks() const { return benchmarks_; }

 private:
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;
};
Registry& registry();

// One case of a sweep: a benchmark and one value of each of its axes.
struct PlannedCase {
  const Benchmark* benchmark = nullptr;
  Params params;
  std::string label;  // "copy (bytes=100000)": what --filter matches and --list prints
};

// The cases of `benchmarks`, axes overridden by `axis_overrides` ("name=values", each naming an
// axis at least one of the benchmarks has), kept where `filter` (an ECMAScript regex, "" for
// all) matches the label. The cartesian product of a benchmark's axes, the first axis varying
// slowest. Throws ConfigError for an unknown axis, a bad value or a bad regex.
std::vector<PlannedCase> plan_cases(const std::vector<const Benchmark*>& benchmarks,
                                    const std::vector<std::string>& axis_overrides,
                                    const std::string& filter);

// The command line every benchmark program shares (--help lists it); returns the exit code:
// 0 all measured, 1 a case failed or a row failed its null test (the record says why), 2 a usage
// error, 3 an internal error, 4 the device was busy or its lock held by another run.
int main(int argc, char** argv);

}  // namespace gpumeter

#define GPUMETER_DETAIL_CAT2(a, b) a##b
#define GPUMETER_DETAIL_CAT(a, b) GPUMETER_DETAIL_CAT2(a, b)
// Registers `function` (void(gpumeter::Setup&)) under its own name; chain .axis(...) to it.
#define GPUMETER_BENCHMARK(function)                                  \
  [[maybe_unused]] static ::gpumeter::Benchmark& GPUMETER_DETAIL_CAT( \
      gpumeter_benchmark_, __LINE__) = ::gpumeter::registry().add(#function, function)
// The program's main: gpumeter's benchmark command line.
#define GPUMETER_MAIN                    \
  int main(int argc, char** argv) {      \
    return ::gpumeter::main(argc, argv); \
  }
