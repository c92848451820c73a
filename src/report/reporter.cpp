// The reporters behind reporter.hpp: each renders whole, from the records it is given.
#include "gpumeter/detail/reporter.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/detail/compare_table.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/table.hpp"

namespace gpumeter {
namespace {

// The table for people, then the comparisons and null tests beside the timings.
class MarkdownReporter final : public Reporter {
 public:
  explicit MarkdownReporter(TableLayout layout) : layout_(layout) {}
  std::string render(const std::vector<Record>& records) const override {
    std::string out =
        render_markdown(records, layout_) + "\n" + render_comparisons(records, layout_);
    if (std::string phases = render_phases(records, layout_); !phases.empty()) {
      out += "\n" + phases;
    }
    if (std::string program = render_program(records); !program.empty()) {
      out += "\n" + program;
    }
    return out;
  }

 private:
  TableLayout layout_;
};

// The rows alone, for machines.
class CsvReporter final : public Reporter {
 public:
  std::string render(const std::vector<Record>& records) const override {
    return render_csv(records);
  }
};

class CompareReporter final : public Reporter {
 public:
  explicit CompareReporter(std::optional<GateOptions> gate) : gate_(std::move(gate)) {}
  std::string render(const std::vector<Record>& records) const override {
    if (records.size() != 2) {
      throw std::invalid_argument("a comparison report is of two records (base and new), not " +
                                  std::to_string(records.size()));
    }
    const RecordComparison comparison = compare_records(records[0], records[1]);
    return render_record_comparison(records[0], records[1], comparison,
                                    conclude(comparison, gate_));
  }

 private:
  std::optional<GateOptions> gate_;
};

}  // namespace

std::unique_ptr<Reporter> make_reporter(ReportFormat format) {
  switch (format) {
    case ReportFormat::csv:
      return std::make_unique<CsvReporter>();
    case ReportFormat::wide_markdown:
      return std::make_unique<MarkdownReporter>(TableLayout::wide);
    case ReportFormat::markdown:
      break;
  }
  return std::make_unique<MarkdownReporter>(TableLayout::narrow);
}

std::unique_ptr<Reporter> make_compare_reporter(std::optional<GateOptions> gate) {
  return std::make_unique<CompareReporter>(std::move(gate));
}

ComparedRecords compare_and_report(const Record& base, const Record& next,
                                   const std::optional<GateOptions>& gate) {
  const RecordComparison comparison = compare_records(base, next);
  CompareConclusion conclusion = conclude(comparison, gate);
  std::string report = render_record_comparison(base, next, comparison, conclusion);
  return {std::move(report), std::move(conclusion)};
}

}  // namespace gpumeter
