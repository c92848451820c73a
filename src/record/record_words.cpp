// The record format's words for each timing method and statistic (record_json.hpp says why they
// differ from the names users read). The only place in the code that spells them.
#include "record_json.hpp"

namespace gpumeter::record_json {
namespace {

struct RecordWords {
  TimingMethod method;
  std::string_view method_word;
  std::string_view statistic_word;
};
constexpr RecordWords kRecordWords[] = {
    {TimingMethod::kernel_records, "cupti", "device_busy"},
    {TimingMethod::device_events, "cuda-events", "cuda_event"},
    {TimingMethod::host_clock, "host-wall", "synchronized_wall_clock"},
};

}  // namespace

bool is_software_version_field(std::string_view name) {
  for (const std::string_view key : kSoftwareVersionFields) {
    if (key == name) return true;
  }
  return false;
}

std::string_view record_word(TimingMethod method) {
  for (const RecordWords& w : kRecordWords) {
    if (w.method == method) return w.method_word;
  }
  return "unknown";
}

std::string_view record_word(Statistic statistic) {
  for (const RecordWords& w : kRecordWords) {
    if (statistic_of(w.method) == statistic) return w.statistic_word;
  }
  return "unknown";
}

std::optional<TimingMethod> method_of_record_word(std::string_view word) {
  for (const RecordWords& w : kRecordWords) {
    if (w.method_word == word) return w.method;
  }
  return std::nullopt;
}

std::optional<Statistic> statistic_of_record_word(std::string_view word) {
  for (const RecordWords& w : kRecordWords) {
    if (w.statistic_word == word) return statistic_of(w.method);
  }
  return std::nullopt;
}

}  // namespace gpumeter::record_json
