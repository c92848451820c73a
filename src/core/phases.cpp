#include "gpumeter/phases.hpp"

#include <array>
#include <utility>

namespace gpumeter {
namespace {

struct PhaseName {
  Phase phase;
  std::string_view name;
  std::string_view title;
};

constexpr std::array kPhases = {
    PhaseName{Phase::process_start, "process_start", "process start"},
    PhaseName{Phase::init, "init", "framework import and init"},
    PhaseName{Phase::cold_compile, "cold_compile", "cold compile (empty caches)"},
    PhaseName{Phase::cached_load, "cached_load", "cached module load"},
    PhaseName{Phase::conversion, "conversion", "conversion and transfer"},
    PhaseName{Phase::first_build, "first_build", "first build"},
    PhaseName{Phase::first_launch, "first_launch", "first launch"},
    PhaseName{Phase::warm_build, "warm_build", "warm build"},
    PhaseName{Phase::refit, "refit", "refit"},
    PhaseName{Phase::rebuild, "rebuild", "rebuild"},
    PhaseName{Phase::warm_call, "warm_call", "warm call (device time)"},
    PhaseName{Phase::kernel_call, "kernel_call", "bare kernel (wall clock)"},
    PhaseName{Phase::end_to_end, "end_to_end", "public call (wall clock)"},
    PhaseName{Phase::graph_capture, "graph_capture", "graph capture"},
    PhaseName{Phase::graph_replay, "graph_replay", "graph replay"},
    PhaseName{Phase::downstream, "downstream", "next stage downstream"},
};

constexpr std::array<std::pair<PhaseSetting, std::string_view>, 3> kSettings = {{
    {PhaseSetting::fresh_cold, "fresh_cold"},
    {PhaseSetting::fresh_cached, "fresh_cached"},
    {PhaseSetting::warm_process, "warm_process"},
}};

}  // namespace

std::string_view to_string(Phase phase) {
  for (const PhaseName& p : kPhases) {
    if (p.phase == phase) return p.name;
  }
  return "unknown";
}

std::string_view phase_title(Phase phase) {
  for (const PhaseName& p : kPhases) {
    if (p.phase == phase) return p.title;
  }
  return "unknown";
}

std::optional<Phase> parse_phase(std::string_view text) {
  for (const PhaseName& p : kPhases) {
    if (p.name == text) return p.phase;
  }
  return std::nullopt;
}

std::string_view to_string(PhaseSetting setting) {
  for (const auto& [s, name] : kSettings) {
    if (s == setting) return name;
  }
  return "unknown";
}

std::optional<PhaseSetting> parse_phase_setting(std::string_view text) {
  for (const auto& [s, name] : kSettings) {
    if (name == text) return s;
  }
  return std::nullopt;
}

bool phase_allows(Phase phase, PhaseSetting setting) {
  // What a fresh process pays happens once per process; the rest is read warm, where a process
  // has paid it already.
  const bool fresh = phase <= Phase::first_launch;
  return fresh == (setting != PhaseSetting::warm_process);
}

bool phase_allows(Phase phase, Statistic statistic) {
  if (statistic == Statistic::synchronized_wall_clock) return true;
  // A device clock sees kernels, not the host work (imports, compiles, Python) the other phases
  // hold: only the kernel itself and its graph's replay may be read in device time.
  return phase == Phase::warm_call || phase == Phase::graph_replay;
}

Spread spread_of(const std::vector<Nanos>& samples_ns) {
  std::vector<double> values(samples_ns.begin(), samples_ns.end());
  Spread s;
  if (values.empty()) return s;
  s.median_ns = quantile(values, 0.5);
  s.p10_ns = quantile(values, 0.1);
  s.p90_ns = quantile(values, 0.9);
  return s;
}

}  // namespace gpumeter
