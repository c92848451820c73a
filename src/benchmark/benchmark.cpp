#include "gpumeter/benchmark.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <set>
#include <string>
#include <system_error>
#include <utility>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/pattern.hpp"

namespace gpumeter {
namespace {

std::string kind_name(AxisKind kind) {
  switch (kind) {
    case AxisKind::integer:
      return "an integer";
    case AxisKind::power_of_two:
      return "a power of two";
    case AxisKind::floating:
      return "a number";
    case AxisKind::text:
      return "a text";
  }
  return "a value";
}

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = text.find(sep, start);
    parts.push_back(
        trim(text.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

[[noreturn]] void bad_value(const std::string& axis, const std::string& value, AxisKind kind,
                            const std::string& why = {}) {
  throw ConfigError("axis '" + axis + "': '" + value + "' is not " + kind_name(kind) +
                    (why.empty() ? "" : " (" + why + ")"));
}

// A whole number, written plainly (1000) or in scientific notation that is integral (1e9).
long long parse_integer(const std::string& axis, const std::string& text, AxisKind kind) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc{} && end == text.data() + text.size()) return v;
  double d = 0;
  const auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (dec != std::errc{} || dend != text.data() + text.size() || !std::isfinite(d) ||
      d != std::floor(d) || std::fabs(d) > 9.0e18) {
    bad_value(axis, text, kind);
  }
  return static_cast<long long>(d);
}

bool is_power_of_two(long long v) {
  return v > 0 && (v & (v - 1)) == 0;
}

// "2^10" or "1024": the exponent.
int parse_exponent(const std::string& axis, const std::string& text) {
  if (text.rfind("2^", 0) == 0) {
    const long long e = parse_integer(axis, text.substr(2), AxisKind::power_of_two);
    if (e < 0 || e > 62) bad_value(axis, text, AxisKind::power_of_two, "exponents 0 to 62");
    return static_cast<int>(e);
  }
  const long long v = parse_integer(axis, text, AxisKind::power_of_two);
  if (!is_power_of_two(v)) bad_value(axis, text, AxisKind::power_of_two);
  int e = 0;
  while ((1LL << e) != v) ++e;
  return e;
}

std::string integer_text(long long v) {
  return std::to_string(v);
}

// Ranges: "start:stop[:step]", inclusive of stop when the steps land on it.
std::vector<std::string> integer_range(const std::string& axis, const std::string& text) {
  const std::vector<std::string> p = split(text, ':');
  if (p.size() < 2 || p.size() > 3)
    bad_value(axis, text, AxisKind::integer, "a range is start:stop[:step]");
  const long long start = parse_integer(axis, p[0], AxisKind::integer);
  const long long stop = parse_integer(axis, p[1], AxisKind::integer);
  const long long step = p.size() == 3 ? parse_integer(axis, p[2], AxisKind::integer) : 1;
  if (step <= 0 || stop < start)
    bad_value(axis, text, AxisKind::integer, "a range needs start <= stop and a positive step");
  // Unsigned: stop - start of two long longs may not fit one (e.g. -9e18:9e18), and the loop
  // counts values rather than stepping past stop, which could wrap around near the limits.
  const unsigned long long span =
      static_cast<unsigned long long>(stop) - static_cast<unsigned long long>(start);
  const unsigned long long last = span / static_cast<unsigned long long>(step);
  if (last >= 100000) bad_value(axis, text, AxisKind::integer, "more than 100000 values");
  std::vector<std::string> out;
  for (unsigned long long i = 0; i <= last; ++i) {
    // In unsigned arithmetic (C++20 converts back modulo 2^64): the value is in [start, stop].
    out.push_back(integer_text(static_cast<long long>(static_cast<unsigned long long>(start) +
                                                      i * static_cast<unsigned long long>(step))));
  }
  return out;
}

std::vector<std::string> power_range(const std::string& axis, const std::string& text) {
  const std::vector<std::string> p = split(text, ':');
  if (p.size() < 2 || p.size() > 3)
    bad_value(axis, text, AxisKind::power_of_two, "a range is 2^a:2^b[:factor]");
  const int a = parse_exponent(axis, p[0]);
  const int b = parse_exponent(axis, p[1]);
  const int step = p.size() == 3 ? parse_exponent(axis, p[2]) : 1;  // a factor: 4 is 2 exponents
  if (b < a || step < 1)
    bad_value(axis, text, AxisKind::power_of_two,
              "a range needs start <= stop and a factor of at least 2");
  std::vector<std::string> out;
  for (int e = a; e <= b; e += step) out.push_back(integer_text(1LL << e));
  return out;
}

}  // namespace

Axis int_axis(std::string name, std::vector<long long> values) {
  Axis a{std::move(name), AxisKind::integer, {}};
  for (long long v : values) a.values.push_back(integer_text(v));
  return a;
}

Axis power_of_two_axis(std::string name, std::vector<int> exponents) {
  Axis a{std::move(name), AxisKind::power_of_two, {}};
  for (int e : exponents) {
    if (e < 0 || e > 62) throw ConfigError("axis '" + a.name + "': exponent out of [0, 62]");
    a.values.push_back(integer_text(1LL << e));
  }
  return a;
}

Axis float_axis(std::string name, std::vector<double> values) {
  Axis a{std::move(name), AxisKind::floating, {}};
  for (double v : values) {
    if (!std::isfinite(v)) throw ConfigError("axis '" + a.name + "': a value is not finite");
    a.values.push_back(format_shortest(v));
  }
  return a;
}

Axis string_axis(std::string name, std::vector<std::string> values) {
  return Axis{std::move(name), AxisKind::text, std::move(values)};
}

Axis override_axis(const Axis& axis, const std::string& text) {
  Axis out{axis.name, axis.kind, {}};
  if (trim(text).empty()) throw ConfigError("axis '" + axis.name + "': no values given");
  for (const std::string& item : split(text, ',')) {
    if (item.empty())
      throw ConfigError("axis '" + axis.name + "': an empty value in '" + text + "'");
    switch (axis.kind) {
      case AxisKind::integer:
        // Powers of two are integers too: "2^12" is 4096, and a range written in them
        // ("2^10:2^14[:factor]") steps by a factor, as on a power-of-two axis.
        if (item.find(':') != std::string::npos && item.find("2^") != std::string::npos) {
          for (std::string& v : power_range(axis.name, item)) out.values.push_back(std::move(v));
        } else if (item.find(':') != std::string::npos) {
          for (std::string& v : integer_range(axis.name, item)) out.values.push_back(std::move(v));
        } else if (item.rfind("2^", 0) == 0) {
          out.values.push_back(integer_text(1LL << parse_exponent(axis.name, item)));
        } else {
          out.values.push_back(integer_text(parse_integer(axis.name, item, axis.kind)));
        }
        break;
      case AxisKind::power_of_two:
        if (item.find(':') != std::string::npos) {
          for (std::string& v : power_range(axis.name, item)) out.values.push_back(std::move(v));
        } else {
          out.values.push_back(integer_text(1LL << parse_exponent(axis.name, item)));
        }
        break;
      case AxisKind::floating: {
        double d = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
        if (ec != std::errc{} || end != item.data() + item.size() || !std::isfinite(d)) {
          bad_value(axis.name, item, axis.kind);
        }
        out.values.push_back(format_shortest(d));
        break;
      }
      case AxisKind::text:
        out.values.push_back(item);
        break;
    }
  }
  // The same value twice would make two cases of one row.
  std::set<std::string> seen;
  for (const std::string& v : out.values) {
    if (!seen.insert(v).second) {
      throw ConfigError("axis '" + axis.name + "': the value " + v + " is given twice");
    }
  }
  return out;
}

// --- Setup ---------------------------------------------------------------------------------------

Setup::Setup(std::string benchmark, Params params, std::map<std::string, AxisKind> kinds,
             int device)
    : benchmark_(std::move(benchmark)),
      params_(std::move(params)),
      kinds_(std::move(kinds)),
      device_(device) {}

const std::string& Setup::value(const std::string& axis) const {
  const auto it = params_.find(axis);
  if (it == params_.end()) {
    throw ConfigError("benchmark '" + benchmark_ + "' reads axis '" + axis +
                      "', which it does not declare");
  }
  return it->second;
}

long long Setup::get_int(const std::string& axis) const {
  const std::string& v = value(axis);
  const AxisKind k = kinds_.at(axis);
  if (k != AxisKind::integer && k != AxisKind::power_of_two) {
    throw ConfigError("benchmark '" + benchmark_ + "': axis '" + axis + "' holds " + kind_name(k) +
                      ", read with get_int");
  }
  return parse_integer(axis, v, k);
}

double Setup::get_float(const std::string& axis) const {
  const std::string& v = value(axis);
  const AxisKind k = kinds_.at(axis);
  if (k == AxisKind::text) {
    throw ConfigError("benchmark '" + benchmark_ + "': axis '" + axis +
                      "' holds a text, read with get_float");
  }
  return std::strtod(v.c_str(), nullptr);
}

const std::string& Setup::get_string(const std::string& axis) const {
  return value(axis);
}

Setup& Setup::flops(double per_call) {
  if (!work_per_call_valid(per_call)) {
    throw ConfigError("benchmark '" + benchmark_ +
                      "': flops per call must be a finite number >= 0");
  }
  workload_.flops = per_call;
  return *this;
}

Setup& Setup::bytes(double per_call) {
  if (!work_per_call_valid(per_call)) {
    throw ConfigError("benchmark '" + benchmark_ +
                      "': bytes per call must be a finite number >= 0");
  }
  workload_.bytes = per_call;
  return *this;
}

Setup& Setup::count_copies(bool count) {
  count_copies_ = count;
  return *this;
}

Setup& Setup::implementation(std::string name, std::function<void()> run,
                             std::function<void()> reset) {
  if (name.empty())
    throw ConfigError("benchmark '" + benchmark_ + "': an implementation needs a name");
  if (!run)
    throw ConfigError("benchmark '" + benchmark_ + "': implementation '" + name +
                      "' has nothing to run");
  for (const Implementation& i : implementations_) {
    if (i.name == name) {
      throw ConfigError("benchmark '" + benchmark_ + "': two implementations are named '" + name +
                        "'");
    }
  }
  implementations_.push_back(
      Implementation{std::move(name), Call{std::move(run), std::move(reset)}, {}, {}});
  return *this;
}

Setup& Setup::scalable_implementation(std::string name, std::function<void(int k)> run,
                                      std::function<void()> reset) {
  if (!run) {
    throw ConfigError("benchmark '" + benchmark_ + "': implementation '" + name +
                      "' has nothing to run");
  }
  implementation(
      std::move(name), [run] { run(1); }, std::move(reset));
  implementations_.back().scaled = std::move(run);
  return *this;
}

Setup& Setup::reference(std::function<std::vector<double>()> reference,
                        std::function<std::vector<double>()> output, double tolerance,
                        double absolute) {
  if (!reference || !output) {
    throw ConfigError("benchmark '" + benchmark_ +
                      "': a reference needs a reference and an output");
  }
  if (const std::string problem = tolerance_problem(tolerance, absolute); !problem.empty()) {
    throw ConfigError("benchmark '" + benchmark_ + "': the reference's tolerance: " + problem);
  }
  absolute_ = absolute;
  reference_ = std::move(reference);
  output_ = std::move(output);
  tolerance_ = tolerance;
  return *this;
}

Setup& Setup::fresh_inputs(std::function<void(std::uint64_t seed)> generate) {
  if (!generate)
    throw ConfigError("benchmark '" + benchmark_ + "': fresh_inputs needs a generator");
  generate_ = std::move(generate);
  return *this;
}

Setup& Setup::verify(std::function<void(const std::string&)> check) {
  check_ = std::move(check);
  return *this;
}

Setup& Setup::keep(std::shared_ptr<void> owner) {
  kept_.push_back(std::move(owner));
  return *this;
}

void Setup::skip(std::string reason) {
  skip_reason_ = reason.empty() ? std::string("skipped by the benchmark") : std::move(reason);
}

Case Setup::to_case() const {
  if (implementations_.empty()) {
    throw ConfigError("benchmark '" + benchmark_ + "' declared no implementation for " +
                      (params_.empty() ? std::string("its case") : format_params(params_)));
  }
  Case c;
  c.name = benchmark_;
  c.params = params_;
  c.workload = workload_;
  c.count_copies = count_copies_;
  // The reference is computed once, on first use, and shared by every implementation's check.
  auto expected = std::make_shared<std::optional<std::vector<double>>>();
  // The core's rule on atol against the size of the reference's answer, at the first check.
  auto atol_held = std::make_shared<bool>(false);
  auto kept = std::make_shared<std::vector<std::shared_ptr<void>>>(kept_);
  for (const Implementation& impl : implementations_) {
    Implementation copy = impl;
    const std::string name = impl.name;
    const auto reference = reference_;
    const auto output = output_;
    const double tolerance = tolerance_;
    const double absolute = absolute_;
    const auto check = check_;
    // The output against the reference, element by element.
    const auto compare_outputs = [name, tolerance, absolute, atol_held,
                                  this_benchmark = benchmark_](const std::vector<double>& got,
                                                               const std::vector<double>& want) {
      if (!*atol_held) {
        *atol_held = true;
        double largest = 0;
        for (const double w : want) largest = std::max(largest, std::fabs(w));  // NaN ignored
        if (const std::string problem = absolute_tolerance_problem(tolerance, absolute, largest);
            !problem.empty()) {
          throw ConfigError("benchmark '" + this_benchmark +
                            "': the reference's tolerance: " + problem);
        }
      }
      if (got.size() != want.size()) {
        throw VerificationFailed(name + ": output has " + std::to_string(got.size()) +
                                 " values, the reference " + std::to_string(want.size()));
      }
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double off = std::fabs(got[i] - want[i]);
        const double err = off / std::max(std::fabs(want[i]), 1e-30);
        if (!(off <= tolerance * std::fabs(want[i]) + absolute)) {  // NaN fails too
          throw VerificationFailed(
              name + ": element " + std::to_string(i) + " is " + format_shortest(got[i]) +
              ", the reference " + format_shortest(want[i]) + " (relative error " +
              format_significant(err, 2) + ", tolerance " + format_significant(tolerance, 2) +
              (absolute > 0 ? " plus " + format_significant(absolute, 2) : std::string()) + ")");
        }
      }
    };
    if (generate_) {
      // B11: fresh inputs before every call; the answer read back first, then the same seed's
      // inputs made again (the call may have written them) and the reference computed on them.
      const auto generate = generate_;
      copy.call.prepare = [generate](std::uint64_t seed) { generate(seed); };
      copy.call.check = [=](std::uint64_t seed) {
        (void)kept;
        if (check) check(name);
        if (!reference) return;
        const std::vector<double> got = output();
        generate(seed);
        compare_outputs(got, reference());
      };
      copy.verify = [kept] { (void)kept; };
    } else if (reference_ || check_) {
      copy.verify = [=] {
        (void)kept;  // the case's buffers live as long as its implementations
        if (check) check(name);
        if (!reference) return;
        if (!expected->has_value()) *expected = reference();
        compare_outputs(output(), **expected);
      };
    } else {
      copy.verify = [kept] { (void)kept; };
    }
    c.implementations.push_back(std::move(copy));
  }
  return c;
}

// --- Benchmark and registry --------------------------------------------------------------------

Benchmark::Benchmark(std::string name, BenchmarkFunction function)
    : name_(std::move(name)), function_(std::move(function)) {}

Benchmark& Benchmark::axis(Axis axis) {
  if (axis.name.empty()) throw ConfigError("benchmark '" + name_ + "': an axis needs a name");
  if (axis.values.empty())
    throw ConfigError("benchmark '" + name_ + "': axis '" + axis.name + "' has no values");
  for (const Axis& a : axes_) {
    if (a.name == axis.name)
      throw ConfigError("benchmark '" + name_ + "': two axes are named '" + axis.name + "'");
  }
  axes_.push_back(std::move(axis));
  return *this;
}

Benchmark& Registry::add(std::string name, BenchmarkFunction function) {
  for (const auto& b : benchmarks_) {
    if (b->name() == name) throw ConfigError("two benchmarks are named '" + name + "'");
  }
  benchmarks_.push_back(std::make_unique<Benchmark>(std::move(name), std::move(function)));
  return *benchmarks_.back();
}

Registry& registry() {
  static Registry r;  // filled by static registrations before main
  return r;
}

std::vector<PlannedCase> plan_cases(const std::vector<const Benchmark*>& benchmarks,
                                    const std::vector<std::string>& axis_overrides,
                                    const std::string& filter) {
  // name -> values text; each must name an axis some benchmark declares.
  std::map<std::string, std::string> overrides;
  for (const std::string& o : axis_overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError("--axis '" + o + "': expected name=values (e.g. bytes=1e5,1e6)");
    }
    const std::string name = trim(o.substr(0, eq));
    bool known = false;
    for (const Benchmark* b : benchmarks) {
      for (const Axis& a : b->axes()) known = known || a.name == name;
    }
    if (!known)
      throw ConfigError("--axis '" + o + "': no selected benchmark has an axis '" + name + "'");
    overrides[name] = o.substr(eq + 1);
  }
  // The core's bounded matcher (pattern.hpp): a long or deeply nested pattern is refused in one
  // line, never a signal from a recursing engine.
  std::optional<NamePattern> pattern;
  if (!filter.empty()) pattern.emplace(filter, "--filter");

  std::vector<PlannedCase> out;
  for (const Benchmark* b : benchmarks) {
    std::vector<Axis> axes;
    for (const Axis& a : b->axes()) {
      const auto it = overrides.find(a.name);
      axes.push_back(it == overrides.end() ? a : override_axis(a, it->second));
    }
    // The cartesian product, the first axis varying slowest: an odometer of value indices.
    std::vector<std::size_t> at(axes.size(), 0);
    for (;;) {
      PlannedCase c;
      c.benchmark = b;
      for (std::size_t i = 0; i < axes.size(); ++i) c.params[axes[i].name] = axes[i].values[at[i]];
      c.label = case_label(RowKey{b->name(), c.params, ""});
      if (!pattern || pattern->search(c.label)) out.push_back(std::move(c));
      bool done = true;
      for (std::size_t k = axes.size(); k-- > 0;) {
        if (++at[k] < axes[k].values.size()) {
          done = false;
          break;
        }
        at[k] = 0;
      }
      if (done) break;
    }
  }
  return out;
}

}  // namespace gpumeter
