#pragma once
// What a numeric option accepts, as data: the bounds, whether it must be whole, its unit and so
// how its text is read; and the one reader of such a text (read_number), which every front end
// uses: the benchmark programs, the gpumeter command, the main job, the bench tools (through
// src/cli/number_option.hpp, which hands it to CLI11) and the Python module and `gpumeter
// evaluate` (through the binding). A value means the same wherever it is written: `--precision
// 0.05` and Python's `precision=0.05` are both 5%, `--max-time 10s` and `--max-time 10` both ten
// seconds. The option tables name the rule of each numeric option (option_meaning.hpp), so the
// rule is written once with the option's help.
#include <limits>
#include <string>
#include <string_view>

namespace gpumeter {

// 10^7 s is 116 days: beyond any wait a user means, and small enough that the deadline it
// makes stays far inside the steady clock's range.
inline constexpr double kMaxOptionSeconds = 1e7;

// How an option's text is read, and the unit its value is in.
enum class NumberKind {
  plain,  // a decimal number in `unit`
  // A duration, its value in seconds: "10s", "500ms" or a bare number of seconds. One rule for
  // every option that takes a time (--max-time, --timeout, --lock-timeout, ...), so "10s" and
  // "10" never mean different things in two programs.
  duration,
  // A fraction, its value a fraction of 1: "2%" or "0.02". A bare number of 1 or more is
  // refused, the unit named: `--precision 1` once meant 1% in the benchmark programs and 100% in
  // `gpumeter evaluate`, and nothing a fraction option takes is 1 or more.
  fraction,
  // A size, its value in bytes: "512M", "2G", "1.5G" or bare bytes; K, M, G and T are powers of
  // 1024 (as the memory a process holds is counted), written in capitals, an "iB" after them
  // allowed ("2GiB"). A part of a byte is dropped. One rule for every option that takes an amount
  // of memory (gpumeter evaluate's --memory), so "2G" never means 2e9 in one and 2^31 in another.
  size,
};

// What a numeric option accepts: a finite number from `min` (or above it, when min_excluded)
// to `max`, whole when `integer`, read in `unit` (" s", "%", "": the text after the number in
// messages) as `kind` says. A fraction's bounds are fractions (0.001 for 0.1%).
struct NumberRule {
  double min = 0;
  bool min_excluded = false;
  double max = std::numeric_limits<double>::infinity();
  bool integer = false;
  const char* unit = "";
  NumberKind kind = NumberKind::plain;
};

// A wait that may be 0 (try once): --lock-timeout, gpumeter lock --timeout, --idle-timeout.
inline constexpr NumberRule kWaitSeconds{0,     false, kMaxOptionSeconds,
                                         false, " s",  NumberKind::duration};
// A limit that must leave time to run: --timeout.
inline constexpr NumberRule kLimitSeconds{0,     true, kMaxOptionSeconds,
                                          false, " s", NumberKind::duration};
// A limit on a process that starts Python, imports its code and measures (gpumeter evaluate's
// --timeout): under a second no candidate's process could start an interpreter and measure one
// budget before it is killed, so every candidate would read as timed out, a verdict of the limit
// and not of its code. Infinite is refused as everywhere: a limit that never ends is no limit.
inline constexpr NumberRule kProcessLimitSeconds{1,     false, kMaxOptionSeconds,
                                                 false, " s",  NumberKind::duration};
// Its default, one for every front end that takes it (gpumeter evaluate's --timeout, Python's
// phases(timeout_s=)): ten minutes, past any one candidate's fresh process that measures.
inline constexpr double kProcessLimitDefaultSeconds = 600;
// A declared amount of work per call (flops, bytes): a finite number >= 0. A negative or infinite
// one would give a rate that means nothing; 0 is a call that moves or computes nothing. The one
// rule of work_per_call_valid (summary.hpp), Python's measure(flops=) and evaluate's --flops.
inline constexpr NumberRule kWorkPerCall{};
// A limit on the host memory a process tree may hold (gpumeter evaluate's --memory): under 1M no
// interpreter starts, so every candidate would be killed for the limit and not for its code; at
// most 1024T, past any machine's memory, so the limit stays a whole number a double holds.
inline constexpr NumberRule kMemoryLimitBytes{1024.0 * 1024, false, 0x1p50,
                                              false,         "",    NumberKind::size};
// A CUDA device index (whether it exists is the device's to say).
inline constexpr NumberRule kDeviceIndex{0, false, std::numeric_limits<int>::max(), true, ""};
// A count of things to do, at least one: iterations, repetitions.
inline constexpr NumberRule kPositiveCount{1, false, std::numeric_limits<int>::max(), true, ""};

// A bound as a user would write it: 0, 10000000, 2147483647, 0.5.
std::string bound_text(double v);

// A number of bytes as a size option takes it, in the largest unit that holds it whole: 1M,
// 1536K, 1024T, 100 (bytes).
std::string size_text(double bytes);

// Whether `text` is a decimal number as a user writes one: an optional sign, digits with at most
// one '.', an optional exponent ("2.5", "-1", "1e7", ".5"). strtod also reads hex ("0x10" is 16),
// "inf", "nan" and leading spaces: none of them is a value a user means by a threshold or a time.
bool decimal_syntax(std::string_view text);

// The value of an option's text under its rule, in the rule's unit (seconds for a duration, a
// fraction of 1 for a fraction); or, when the text breaks the rule, what it must be.
struct NumberValue {
  double value = 0;
  // "" when the text is valid; else what the value must be, to follow "must be ": "> 0 s",
  // "a fraction, written 5% or 0.05".
  std::string must;
  // Whether the text is shown quoted (it is not a number of the rule's syntax: '', 'abc').
  bool quoted = false;
  bool ok() const { return must.empty(); }
};
NumberValue read_number(std::string_view text, const NumberRule& rule);

// "" when `text` is a value `rule` accepts; otherwise the line that says why, naming `name` as
// the front end spells it ("--timeout", "precision"): "--timeout must be > 0 s, got 0",
// "--precision must be a fraction, written 2% or 0.02, got 2".
std::string number_problem(std::string_view name, std::string_view text, const NumberRule& rule);

// "" when `value`, a number already in the rule's unit (a fraction of 1 for a fraction: no text,
// so no bare-percent question), is one `rule` accepts; otherwise the line that says why, in
// read_number's words: "fail_on_regression must be a fraction from 0% to 10000% (0 to 100), got
// 150". For a value a front end was handed as a number, not as text.
std::string value_problem(std::string_view name, double value, const NumberRule& rule);

// What --help shows of the rule beside the option's name: ">= 0 s", "0.1% to 50%".
std::string number_rule_text(const NumberRule& rule);

}  // namespace gpumeter
