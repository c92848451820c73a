#pragma once
// Verdicts read from records only (SPEC P5, P6, P4): the ratio of each implementation of a
// case against the case's first (its baseline), and null tests.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/record.hpp"
#include "gpumeter/verdict.hpp"

namespace gpumeter {

// A case whose params hold this key is a null test: its second implementation does
// `value` times the work of its first (P6).
inline constexpr const char* kNullTestParam = "null_test_scale";

struct CaseComparison {
  std::string case_name;
  std::string baseline;
  std::string candidate;
  std::string statistic;
  // Empty when the two rows cannot be compared; then `refusal` says why.
  std::optional<RatioVerdict> verdict;
  std::optional<SpeedupInterval> interval;
  std::string refusal;
};

struct NullTestOutcome {
  std::string case_name;
  double scale = 0;
  std::optional<NullTestVerdict> verdict;
  std::string refusal;
};

struct Comparisons {
  std::vector<CaseComparison> cases;
  std::vector<NullTestOutcome> null_tests;
};

// Pairs rows by (record, case, params). Rows of different statistics are never compared.
Comparisons compare_records(const std::vector<Record>& records);

// Markdown lines: "- sum-f64: four-chains is 2.7x faster than one-chain (directional
// difference) ...", and each null test with its observed ratio.
std::string render_comparisons(const std::vector<Record>& records);

}  // namespace gpumeter
