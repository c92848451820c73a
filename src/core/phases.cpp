#include "gpumeter/detail/phases.hpp"

#include <array>
#include <utility>
#include <vector>

namespace gpumeter {
namespace {

struct PhaseNames {
  Phase phase;
  std::string_view name;   // the record's spelling: the enumerator's name
  std::string_view title;  // what a reader sees
};

// One table for both directions, so a name and its parse can never disagree.
constexpr std::array<PhaseNames, 17> kPhases{{
    {Phase::process_start, "process_start", "process start"},
    {Phase::init, "init", "framework import and init"},
    {Phase::cold_compile, "cold_compile", "cold compile (empty caches)"},
    {Phase::cached_load, "cached_load", "cached module load"},
    {Phase::conversion, "conversion", "conversion and transfer"},
    {Phase::first_build, "first_build", "first build"},
    {Phase::first_launch, "first_launch", "first launch"},
    {Phase::warm_build, "warm_build", "warm build"},
    {Phase::refit, "refit", "refit"},
    {Phase::rebuild, "rebuild", "rebuild"},
    {Phase::warm_call, "warm_call", "warm call (device time)"},
    {Phase::kernel_call, "kernel_call", "bare kernel (wall clock)"},
    {Phase::end_to_end, "end_to_end", "public call (wall clock)"},
    {Phase::graph_capture, "graph_capture", "graph capture"},
    {Phase::graph_replay, "graph_replay", "graph replay"},
    {Phase::downstream, "downstream", "next stage downstream"},
    {Phase::process_exit, "process_exit", "process exit (last synchronize to exit)"},
}};

constexpr std::array<std::pair<PhaseSetting, std::string_view>, 3> kSettings{{
    {PhaseSetting::fresh_cold, "fresh_cold"},
    {PhaseSetting::fresh_cached, "fresh_cached"},
    {PhaseSetting::warm_process, "warm_process"},
}};

// A value outside the enumerators (a cast) names itself as such, never as another phase.
constexpr PhaseNames kUnknownPhase{Phase::warm_call, "unknown", "unknown phase"};

const PhaseNames& names_of(Phase phase) {
  for (const PhaseNames& p : kPhases) {
    if (p.phase == phase) return p;
  }
  return kUnknownPhase;
}

}  // namespace

std::string_view to_string(Phase phase) {
  return names_of(phase).name;
}

std::string_view phase_title(Phase phase) {
  return names_of(phase).title;
}

std::optional<Phase> parse_phase(std::string_view text) {
  for (const PhaseNames& p : kPhases) {
    if (p.name == text) return p.phase;
  }
  return std::nullopt;
}

std::string_view to_string(PhaseSetting setting) {
  for (const auto& [s, name] : kSettings) {
    if (s == setting) return name;
  }
  return "unknown";  // a value outside the enumerators (a cast)
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
  const bool fresh = phase <= Phase::first_launch || phase == Phase::process_exit;
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
