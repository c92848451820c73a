#include "gpumeter/detail/phases.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "gpumeter/host_clock.hpp"

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

std::vector<PhaseVersus> compare_phases(const std::vector<PhaseReading>& phases) {
  using CaseKey = std::pair<std::string, Params>;
  std::map<CaseKey, std::string> first_of_case;
  std::map<std::tuple<CaseKey, std::string, Phase, PhaseSetting>, const PhaseReading*> by;
  for (const PhaseReading& p : phases) {
    const CaseKey c{p.row.case_name, p.row.params};
    first_of_case.emplace(c, p.row.implementation);
    by[{c, p.row.implementation, p.phase, p.setting}] = &p;
  }
  const auto positive = [](const std::vector<Nanos>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](Nanos x) { return x > 0; });
  };
  std::vector<PhaseVersus> out;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const PhaseReading& p = phases[i];
    const CaseKey c{p.row.case_name, p.row.params};
    const std::string& first = first_of_case[c];
    if (p.row.implementation == first || p.statistic != Statistic::synchronized_wall_clock)
      continue;
    const auto it = by.find({c, first, p.phase, p.setting});
    if (it == by.end()) continue;
    PhaseVersus v{i, first, std::nullopt};
    if (positive(it->second->samples_ns) && positive(p.samples_ns)) {
      v.verdict = compare_host_readings(
          std::vector<double>(it->second->samples_ns.begin(), it->second->samples_ns.end()),
          std::vector<double>(p.samples_ns.begin(), p.samples_ns.end()));
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace gpumeter
