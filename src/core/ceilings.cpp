#include "gpumeter/detail/ceilings.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gpumeter {

std::string_view to_string(CeilingKind kind) {
  switch (kind) {
    case CeilingKind::bytes_per_s:
      return "bytes_per_s";
    case CeilingKind::flops_per_s:
      return "flops_per_s";
  }
  return "unknown";
}

std::optional<CeilingKind> parse_ceiling_kind(std::string_view text) {
  for (auto k : {CeilingKind::bytes_per_s, CeilingKind::flops_per_s}) {
    if (to_string(k) == text) return k;
  }
  return std::nullopt;
}

double ceiling_rate(const CeilingRun& run) {
  if (run.samples_ns.empty()) {
    throw std::invalid_argument("ceiling run '" + run.work + "' has no samples");
  }
  if (!(run.per_call > 0)) {
    throw std::invalid_argument("ceiling run '" + run.work + "' declares no work per call");
  }
  const Nanos fastest = *std::min_element(run.samples_ns.begin(), run.samples_ns.end());
  if (fastest <= 0) {
    throw std::invalid_argument("ceiling run '" + run.work + "' has a sample of no duration");
  }
  return run.per_call / (static_cast<double>(fastest) * 1e-9);
}

Ceilings ceilings_from_runs(TimingMethod method, std::vector<CeilingRun> runs) {
  Ceilings out;
  out.method = method;
  for (const CeilingRun& run : runs) {
    const double rate = ceiling_rate(run);
    std::optional<double>& ceiling =
        run.kind == CeilingKind::bytes_per_s ? out.bytes_per_s : out.flops_per_s;
    ceiling = std::max(ceiling.value_or(rate), rate);
  }
  out.runs = std::move(runs);
  return out;
}

std::optional<Ceilings> join_ceilings(const std::vector<Ceilings>& each) {
  std::vector<const Ceilings*> measured;
  for (const Ceilings& c : each) {
    if (c.flops_per_s || c.bytes_per_s) measured.push_back(&c);
  }
  if (measured.empty()) return Ceilings{};
  const Ceilings& first = *measured.front();
  const auto same_values = [&](const Ceilings* c) {
    return c->flops_per_s == first.flops_per_s && c->bytes_per_s == first.bytes_per_s &&
           c->method == first.method;
  };
  if (!first.method) {
    // No runs to join: only identical ceilings join (a record merged with itself, say).
    if (!std::all_of(measured.begin(), measured.end(), same_values)) return std::nullopt;
    return first;
  }
  std::vector<CeilingRun> runs;
  for (const Ceilings* c : measured) {
    if (c->method != first.method) return std::nullopt;
    for (const CeilingRun& run : c->runs) {
      // The same run twice (records that share one process's ceilings) is one run.
      const bool seen = std::any_of(runs.begin(), runs.end(), [&](const CeilingRun& r) {
        return r.kind == run.kind && r.work == run.work && r.per_call == run.per_call &&
               r.samples_ns == run.samples_ns;
      });
      if (!seen) runs.push_back(run);
    }
  }
  return ceilings_from_runs(*first.method, std::move(runs));
}

bool ceiling_applies(const Ceilings& ceilings, TimingMethod rows) {
  return !ceilings.method || *ceilings.method == rows;
}

bool above_ceiling(double percent_of_ceiling) {
  // Exactly 100 is the ceiling itself, reached; anything more is beyond the fastest run of
  // the ceiling's work, however little (no tolerance: the words are what say it).
  return percent_of_ceiling > 100.0;
}

}  // namespace gpumeter
