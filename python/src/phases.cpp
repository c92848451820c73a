// The phases a user waits for, total(N), crossovers and growth as typed Python classes,
// read-only. Every number is the core's (total_n.hpp, growth.hpp): nothing is recomputed here.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "binding.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/growth.hpp"
#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/total_n.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::python {
namespace {

// A name the core's parser knows, or the ConfigError that says which argument is not one.
template <typename T>
T named(const char* argument, const std::string& text, std::optional<T> parsed) {
  if (!parsed) throw ConfigError(argument, "is not one gpumeter knows: '" + text + "'");
  return *parsed;
}

}  // namespace

void bind_phase_types(nb::module_& m) {
  nb::class_<PhaseReading>(m, "PhaseReading",
                           "One phase of one candidate: every sample, its statistic and where "
                           "it was taken (a fresh process, cold or cached, or warm).")
      .def(
          "__init__",
          [](PhaseReading* self, std::string case_name, std::map<std::string, std::string> params,
             std::string implementation, const std::string& phase, const std::string& statistic,
             const std::string& setting, std::vector<Nanos> samples_ns,
             std::optional<int> recaptures) {
            new (self) PhaseReading{
                RowKey{std::move(case_name), std::move(params), std::move(implementation)},
                named("phase", phase, parse_phase(phase)),
                named("statistic", statistic, parse_statistic(statistic)),
                named("setting", setting, parse_phase_setting(setting)),
                std::move(samples_ns),
                recaptures};
          },
          nb::arg("case_name"), nb::arg("params"), nb::arg("implementation"), nb::arg("phase"),
          nb::arg("statistic"), nb::arg("setting"), nb::arg("samples_ns"),
          nb::arg("recaptures") = nb::none(),
          "One phase's samples as phases() took them; with_phases() puts them in a record, which "
          "is read back as strictly as a file.")
      .def_ro("row", &PhaseReading::row, "The case, its params and the candidate.")
      .def_prop_ro(
          "phase", [](const PhaseReading& p) { return std::string(to_string(p.phase)); },
          "\"process_start\", \"init\", \"cold_compile\", \"cached_load\", ...")
      .def_prop_ro(
          "title", [](const PhaseReading& p) { return std::string(phase_title(p.phase)); },
          "The phase as reports name it.")
      .def_prop_ro(
          "statistic", [](const PhaseReading& p) { return std::string(to_string(p.statistic)); },
          "\"synchronized_wall_clock\" or \"device_busy\": never compared with each other.")
      .def_prop_ro(
          "setting", [](const PhaseReading& p) { return std::string(to_string(p.setting)); },
          "\"fresh_cold\", \"fresh_cached\" or \"warm_process\".")
      .def_ro("samples_ns", &PhaseReading::samples_ns,
              "One per fresh process, or per call when warm.")
      .def_ro("recaptures", &PhaseReading::recaptures, "Graph captures taken; None otherwise.")
      .def_prop_ro(
          "spread", [](const PhaseReading& p) { return spread_of(p.samples_ns); },
          "Median, p10 and p90 of the samples.")
      .def_prop_ro(
          "median_ns", [](const PhaseReading& p) { return spread_of(p.samples_ns).median_ns; },
          "The median of the samples, in ns.")
      .def("__repr__", [](const PhaseReading& p) {
        return "PhaseReading(" + row_label(p.row) + ", " + std::string(to_string(p.phase)) + ", " +
               std::string(to_string(p.setting)) + ", median_ns=" +
               (p.samples_ns.empty() ? std::string("None")
                                     : format_shortest(spread_of(p.samples_ns).median_ns)) +
               ")";
      });

  nb::class_<MeasuredTotal>(m, "MeasuredTotal",
                            "N calls timed as one loop from a fresh process: spawn, set-up, N "
                            "calls, synchronized. One sample per process; never a median "
                            "multiplied.")
      .def(
          "__init__",
          [](MeasuredTotal* self, std::string case_name, std::map<std::string, std::string> params,
             std::string implementation, int calls, const std::string& setting,
             std::vector<Nanos> samples_ns) {
            new (self) MeasuredTotal{
                RowKey{std::move(case_name), std::move(params), std::move(implementation)}, calls,
                named("setting", setting, parse_phase_setting(setting)), std::move(samples_ns)};
          },
          nb::arg("case_name"), nb::arg("params"), nb::arg("implementation"), nb::arg("calls"),
          nb::arg("setting"), nb::arg("samples_ns"))
      .def_ro("row", &MeasuredTotal::row)
      .def_ro("calls", &MeasuredTotal::calls, "N.")
      .def_prop_ro("setting",
                   [](const MeasuredTotal& t) { return std::string(to_string(t.setting)); })
      .def_ro("samples_ns", &MeasuredTotal::samples_ns)
      .def_prop_ro("spread", [](const MeasuredTotal& t) { return spread_of(t.samples_ns); })
      .def_prop_ro("median_ns",
                   [](const MeasuredTotal& t) { return spread_of(t.samples_ns).median_ns; });

  nb::class_<CandidateRuntime>(m, "CandidateRuntime",
                               "The runtime a candidate launched its work through, resolved "
                               "before timing.")
      .def(
          "__init__",
          [](CandidateRuntime* self, std::string implementation, std::string runtime,
             std::string version, std::string device_alias, std::string arch,
             std::string synchronized_by, std::vector<std::string> notes) {
            new (self) CandidateRuntime{std::move(implementation), std::move(runtime),
                                        std::move(version),        std::move(device_alias),
                                        std::move(arch),           std::move(synchronized_by),
                                        std::move(notes)};
          },
          nb::arg("implementation"), nb::arg("runtime"), nb::arg("version") = "",
          nb::arg("device_alias") = "", nb::arg("arch") = "", nb::arg("synchronized_by") = "",
          nb::arg("notes") = std::vector<std::string>{})
      .def_ro("implementation", &CandidateRuntime::implementation)
      .def_ro("runtime", &CandidateRuntime::runtime, "\"warp\", \"cupy\", \"torch\", ...")
      .def_ro("version", &CandidateRuntime::version)
      .def_ro("device_alias", &CandidateRuntime::device_alias, "The runtime's name: \"cuda:0\".")
      .def_ro("arch", &CandidateRuntime::arch, "\"sm_90\".")
      .def_ro("synchronized_by", &CandidateRuntime::synchronized_by,
              "The runtime whose synchronize ended each wall-clock phase.")
      .def_ro("notes", &CandidateRuntime::notes);

  nb::class_<TotalTerm>(m, "TotalTerm", "One term of total(N); median_ns None: not measured.")
      .def_prop_ro("phase", [](const TotalTerm& t) { return std::string(to_string(t.phase)); })
      .def_prop_ro("title", [](const TotalTerm& t) { return std::string(phase_title(t.phase)); })
      .def_prop_ro("setting", [](const TotalTerm& t) { return std::string(to_string(t.setting)); })
      .def_ro("median_ns", &TotalTerm::median_ns);

  nb::class_<TotalAtN>(m, "TotalAtN", "total(N) predicted by the decomposition beside measured.")
      .def_ro("calls", &TotalAtN::calls)
      .def_ro("predicted_ns", &TotalAtN::predicted_ns, "None when a required term is missing.")
      .def_ro("measured_ns", &TotalAtN::measured_ns,
              "Spawn to the synchronize after the N-th call; None when no total of N was measured.")
      .def_ro("measured_to_exit_ns", &TotalAtN::measured_to_exit_ns,
              "measured_ns and the median process exit: what a one-shot tool's user waits for; "
              "None when the exit was not measured.")
      .def_ro("measured_over_predicted", &TotalAtN::measured_over_predicted)
      .def_ro("measured_samples", &TotalAtN::measured_samples,
              "The fresh processes the measured median is of.");

  nb::class_<TotalN>(m, "TotalN",
                     "total(N) = init + compile or load + conversion + build + capture + N x per "
                     "call, for one candidate and setting.")
      .def_ro("row", &TotalN::row)
      .def_prop_ro("setting", [](const TotalN& t) { return std::string(to_string(t.setting)); })
      .def_ro("fixed", &TotalN::fixed, "The fixed terms, in order.")
      .def_ro("per_call", &TotalN::per_call, "The public call, warm, synchronized wall clock.")
      .def_ro("at", &TotalN::at, "Each N: predicted and measured.")
      .def_prop_ro(
          "absent",
          [](const TotalN& t) {
            std::vector<std::string> out;
            for (const Phase p : t.absent) out.emplace_back(to_string(p));
            return out;
          },
          "Terms the candidate does not have (not measured), left out of the sum.")
      .def_prop_ro(
          "missing",
          [](const TotalN& t) {
            std::vector<std::string> out;
            for (const Phase p : t.missing) out.emplace_back(to_string(p));
            return out;
          },
          "Required terms not measured: no total is predicted.");

  nb::class_<Crossover>(m, "Crossover",
                        "Where one candidate overtakes another: a bracket of two measured "
                        "points, never an interpolated one.")
      .def_ro("first", &Crossover::first, "The candidate ahead at `low`.")
      .def_ro("second", &Crossover::second, "The candidate ahead at `high`.")
      .def_ro("low", &Crossover::low)
      .def_ro("high", &Crossover::high)
      .def_ro("axis", &Crossover::axis, "\"calls\" for N, else the param swept.")
      .def_prop_ro(
          "setting",
          [](const Crossover& c) -> std::optional<std::string> {
            if (!c.setting) return std::nullopt;
            return std::string(to_string(*c.setting));
          },
          "For crossovers in N: the setting of the totals; None for a size axis.")
      .def_prop_ro("statistic",
                   [](const Crossover& c) { return std::string(to_string(c.statistic)); })
      .def_ro("resolved", &Crossover::resolved,
              "Both ends decided by the rule of the statistic; False: the medians change order "
              "within the resolution.");

  nb::class_<GrowthRegime>(m, "GrowthRegime",
                           "A stretch of sizes over which time grows as size^exponent.")
      .def_ro("low", &GrowthRegime::low)
      .def_ro("high", &GrowthRegime::high)
      .def_ro("points", &GrowthRegime::points)
      .def_ro("exponent", &GrowthRegime::exponent)
      .def_ro("r_squared", &GrowthRegime::r_squared, "Of the log-log fit.")
      .def_ro("max_residual", &GrowthRegime::max_residual, "Largest |log10 residual|.")
      .def_ro("label", &GrowthRegime::label);

  nb::class_<Growth>(m, "Growth", "How one implementation's time grows along a numeric axis.")
      .def_ro("row", &Growth::row,
              "The case, the params other than the axis, the "
              "implementation.")
      .def_ro("axis", &Growth::axis)
      .def_prop_ro("statistic", [](const Growth& g) { return std::string(to_string(g.statistic)); })
      .def_ro("sizes", &Growth::sizes)
      .def_ro("median_ns", &Growth::median_ns)
      .def_ro("regimes", &Growth::regimes);

  nb::class_<SweepAnalysis>(m, "SweepAnalysis",
                            "Every numeric axis of a record: growth per implementation and "
                            "crossover brackets between implementations.")
      .def_ro("axes", &SweepAnalysis::axes)
      .def_ro("growth", &SweepAnalysis::growth)
      .def_ro("crossovers", &SweepAnalysis::crossovers);
}

}  // namespace gpumeter::python
