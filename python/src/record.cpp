// The record model as typed Python classes, read-only: what measure() and compare() return and
// what read_record() reads. Every value comes from the core and every sentence from its wording
// (wording.hpp: the comparisons, the null test, a result's line, a device's label); the reports
// from its Reporter (reporter.hpp). Nothing is recomputed or reworded here.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "binding.hpp"
#include "gpumeter/candidate_verdict.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/growth.hpp"
#include "gpumeter/detail/precision.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/shard.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/tolerance.hpp"
#include "gpumeter/detail/total_n.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/host_clock.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter::python {
namespace {

using StrDict = nb::typed<nb::dict, std::string, nb::any>;

std::string text(std::string_view s) {
  return std::string(s);
}

std::string quoted(const std::string& s) {
  return nb::cast<std::string>(nb::repr(nb::str(s.c_str(), s.size())));
}

void bind_values(nb::module_& m) {
  nb::class_<Spread>(m, "Spread", "A statistic's median, 10th and 90th percentile, in ns.")
      .def_ro("median_ns", &Spread::median_ns, "The median, in nanoseconds.")
      .def_ro("p10_ns", &Spread::p10_ns, "The 10th percentile, in nanoseconds.")
      .def_ro("p90_ns", &Spread::p90_ns, "The 90th percentile, in nanoseconds.")
      .def_prop_ro(
          "median_us", [](const Spread& s) { return s.median_ns / 1e3; },
          "The median, in microseconds.")
      .def("__repr__", [](const Spread& s) {
        return "Spread(median_ns=" + format_shortest(s.median_ns) +
               ", p10_ns=" + format_shortest(s.p10_ns) + ", p90_ns=" + format_shortest(s.p90_ns) +
               ")";
      });

  nb::class_<ClockReading>(m, "ClockReading",
                           "The SM clock and NVML's throttle reasons around "
                           "one sample.")
      .def_ro("sm_mhz", &ClockReading::sm_mhz, "The lower SM clock of the readings around it.")
      .def_ro("throttle_reasons", &ClockReading::throttle_reasons,
              "NVML's clock-event reasons around it, a bit mask.")
      .def_prop_ro(
          "throttle_text",
          [](const ClockReading& c) { return describe_throttle_reasons(c.throttle_reasons); },
          "The mask with the names of the bits: \"0x4 (SW power cap)\".");

  nb::class_<Sample>(m, "Sample", "One measured iteration.")
      .def_ro("device_busy_ns", &Sample::device_busy_ns,
              "The row's statistic: the union of the call's kernel intervals (CUPTI), the event "
              "pair's time, or the synchronized wall clock, in ns.")
      .def_ro("latency_ns", &Sample::latency_ns,
              "End of the call's last interval minus start of its first, in ns.")
      .def_ro("n_kernels", &Sample::n_kernels,
              "Kernels the iteration ran; None where the method cannot count them.")
      .def_ro("uncounted_copy_ns", &Sample::uncounted_copy_ns,
              "Copy and fill time seen but not counted, in ns.")
      .def_prop_ro(
          "clock", [](const Sample& s) { return s.clock; },
          "The clock state around the sample; None where it could not be read.");

  nb::class_<ClockSummary>(m, "ClockSummary", "A row's SM clocks and its clock-flagged samples.")
      .def_ro("samples", &ClockSummary::samples, "Readings summarized, one per sample.")
      .def_ro("min_mhz", &ClockSummary::min_mhz, "The lowest SM clock.")
      .def_ro("median_mhz", &ClockSummary::median_mhz, "The median SM clock.")
      .def_ro("max_mhz", &ClockSummary::max_mhz, "The highest SM clock: the row's reference.")
      .def_ro("flagged", &ClockSummary::flagged,
              "Samples that may have run slower for their clock: below 95% of the reference, or "
              "under a thermal or hardware slowdown.")
      .def_ro("below_reference", &ClockSummary::below_reference,
              "Samples below 95% of the reference clock.")
      .def_ro("sw_power_cap", &ClockSummary::sw_power_cap,
              "Samples with the software power cap set around them (routine; no flag alone).")
      .def_ro("hw_slowdown", &ClockSummary::hw_slowdown, "Samples under a hardware slowdown.")
      .def_ro("sw_thermal", &ClockSummary::sw_thermal, "Samples under a software thermal limit.")
      .def_ro("hw_thermal", &ClockSummary::hw_thermal, "Samples under a hardware thermal limit.")
      .def_ro("hw_power_brake", &ClockSummary::hw_power_brake, "Samples under the power brake.");

  nb::class_<Summary>(m, "Summary", "A row's summary, as the core computed it from its samples.")
      .def_prop_ro(
          "method", [](const Summary& s) { return text(to_string(s.method)); },
          "How the samples were taken: \"kernel-records\", \"device-events\" or \"host-clock\".")
      .def_ro("n_samples", &Summary::n_samples, "Measured samples, every pass together.")
      .def_prop_ro(
          "device_busy", [](const Summary& s) { return s.device_busy; },
          "The row's statistic, in ns.")
      .def_prop_ro(
          "latency", [](const Summary& s) { return s.latency; }, "The call's latency, in ns.")
      .def_ro("max_n_kernels", &Summary::max_n_kernels,
              "The most kernels one iteration ran; None where the method cannot count them.")
      .def_ro("gap_ns", &Summary::gap_ns, "Median latency minus median device_busy, in ns.")
      .def_ro("median_uncounted_copy_ns", &Summary::median_uncounted_copy_ns,
              "The median copy and fill time not counted, in ns.")
      .def_ro("retries", &Summary::retries, "Phases measured again after lost records.")
      .def_ro("tflops", &Summary::tflops, "TFLOP/s at the median, when flops were declared.")
      .def_ro("tbs", &Summary::tbs, "TB/s at the median, when bytes were declared.")
      .def_ro("pct_of_peak_flops", &Summary::pct_of_peak_flops,
              "Percent of the device's measured FLOP/s ceiling (timed like the row).")
      .def_ro("pct_of_peak_bandwidth", &Summary::pct_of_peak_bandwidth,
              "Percent of the device's measured bandwidth ceiling (timed like the row).")
      .def_ro("above_flops_ceiling", &Summary::above_flops_ceiling,
              "Whether the FLOP/s percent is above 100; None without a percent.")
      .def_ro("above_bandwidth_ceiling", &Summary::above_bandwidth_ceiling,
              "Whether the bandwidth percent is above 100; None without a percent.")
      .def_prop_ro(
          "clock", [](const Summary& s) { return s.clock; },
          "The row's clocks; None where a clock was not read for every sample.")
      // Readable, and labelled by its statistic: a host row's reading is a wall clock, never
      // shown as device time.
      .def("__repr__", [](const Summary& s) {
        const std::string name = statistic_title(statistic_of(s.method));
        return "Summary(" + std::string(to_string(s.method)) + ": " + name + " median " +
               time_text(s.device_busy.median_ns) + " [p10 " + time_text(s.device_busy.p10_ns) +
               ", p90 " + time_text(s.device_busy.p90_ns) + "], latency median " +
               time_text(s.latency.median_ns) + ", " + std::to_string(s.n_samples) + " samples)";
      });

  nb::class_<RowKey>(m, "RowKey", "Which row: a case, its parameter values, an implementation.")
      .def_ro("case_name", &RowKey::case_name, "The case.")
      .def_ro("params", &RowKey::params, "The case's parameter values, by axis name.")
      .def_ro("implementation", &RowKey::implementation,
              "The implementation; \"\" for a failure of the whole case.")
      .def("__str__", [](const RowKey& r) { return row_label(r); });

  nb::class_<MemoryUse>(m, "MemoryUse", "Memory of a case; None where a counter could not be read.")
      .def_ro("gpu_context_floor_bytes", &MemoryUse::gpu_context_floor_bytes,
              "This process's device memory when the timing backend started (NVML).")
      .def_ro("gpu_after_case_bytes", &MemoryUse::gpu_after_case_bytes,
              "This process's device memory after the case was measured (NVML).")
      .def_prop_ro(
          "gpu_workload_bytes", [](const MemoryUse& u) { return u.gpu_workload_bytes(); },
          "After the case less the floor: what the workload holds on the device.")
      .def_ro("host_peak_rss_bytes", &MemoryUse::host_peak_rss_bytes,
              "The process's peak resident host memory while the case ran (VmHWM).")
      .def_ro("own_process", &MemoryUse::own_process, "The case ran in a process of its own.")
      .def_ro("host_peak_reset", &MemoryUse::host_peak_reset,
              "The host peak was reset before the case (else it covers the whole process).");

  nb::class_<TimestampCheck>(m, "TimestampCheck",
                             "How a row's timestamps were checked against the device's own clock.")
      .def_ro("phases", &TimestampCheck::phases, "Phases whose timestamps were checked.")
      .def_ro("converted", &TimestampCheck::converted,
              "Phases converted from another CUPTI client's unit.")
      .def_ro("min_scale", &TimestampCheck::min_scale, "The smallest units per ns converted.")
      .def_ro("max_scale", &TimestampCheck::max_scale, "The largest units per ns converted.");

  nb::class_<Ledger>(m, "Ledger",
                     "What every activity record of a row's phases was, the canaries that prove "
                     "collection was on, and the fresh inputs and answer checks (B11).")
      .def_ro("iteration_records", &Ledger::iteration_records,
              "Activity records attributed to an iteration: what the samples are made of.")
      .def_ro("harness_records", &Ledger::harness_records,
              "gpumeter's own: resets, fresh inputs, L2 flushes, probes, canaries, checks.")
      .def_ro("unaccounted_records", &Ledger::unaccounted_records,
              "Records that are neither (0 in a row with numbers).")
      .def_ro("canaries_launched", &Ledger::canaries_launched, "Canary kernels launched.")
      .def_ro("canaries_seen", &Ledger::canaries_seen, "Canary kernels recorded.")
      .def_ro("iterations", &Ledger::iterations, "Iterations of every phase.")
      .def_ro("fresh_inputs", &Ledger::fresh_inputs, "Iterations given fresh inputs.")
      .def_ro("checked_iterations", &Ledger::checked_iterations,
              "Iterations whose answer was checked while timed.")
      .def_ro("inputs_records", &Ledger::inputs_records,
              "Records of the work that made fresh inputs.")
      .def_ro("inputs_busy_ns", &Ledger::inputs_busy_ns,
              "Device time of the work that made fresh inputs, in ns.")
      .def_ro("reset_records", &Ledger::reset_records, "Records of the resets' work.")
      .def_ro("reset_busy_ns", &Ledger::reset_busy_ns, "Device time of the resets, in ns.")
      .def_ro("check_records", &Ledger::check_records, "Records of the checks' work.")
      .def_ro("check_busy_ns", &Ledger::check_busy_ns, "Device time of the checks, in ns.")
      .def("__repr__", [](const Ledger& l) {
        return "Ledger(iteration_records=" + std::to_string(l.iteration_records) +
               ", harness_records=" + std::to_string(l.harness_records) +
               ", unaccounted_records=" + std::to_string(l.unaccounted_records) +
               ", canaries=" + std::to_string(l.canaries_seen) + "/" +
               std::to_string(l.canaries_launched) +
               ", iterations=" + std::to_string(l.iterations) +
               ", fresh_inputs=" + std::to_string(l.fresh_inputs) +
               ", checked_iterations=" + std::to_string(l.checked_iterations) + ")";
      });

  nb::class_<AnswerCheck>(m, "AnswerCheck",
                          "The tolerances a row's answers were checked with: |out - ref| <= "
                          "rtol * |ref| + atol, element by element.")
      .def_ro("rtol", &AnswerCheck::rtol, "The relative tolerance.")
      .def_ro("atol", &AnswerCheck::atol, "The absolute tolerance.")
      .def("__repr__", [](const AnswerCheck& a) {
        return "AnswerCheck(rtol=" + format_shortest(a.rtol) + ", atol=" + format_shortest(a.atol) +
               ")";
      });

  nb::class_<PrecisionOutcome>(m, "PrecisionOutcome",
                               "What a measurement run to a target precision did.")
      .def_ro("target", &PrecisionOutcome::target, "The relative precision asked for.")
      .def_prop_ro(
          "max_time_s", [](const PrecisionOutcome& p) { return to_ms(p.max_time_ns) / 1e3; },
          "The cap on the passes' time, in seconds.")
      .def_ro("reached", &PrecisionOutcome::reached,
              "The width reached: the smallest detectable difference of the case's comparisons "
              "(the widest), or a lone row's level half-width; relative.")
      .def_ro("passes", &PrecisionOutcome::passes, "Passes of each implementation.")
      .def_prop_ro(
          "stopped", [](const PrecisionOutcome& p) { return to_string(p.stopped); },
          "Why it stopped: 'target_reached', 'time_cap' or 'pass_cap'.")
      .def_prop_ro(
          "elapsed_s", [](const PrecisionOutcome& p) { return to_ms(p.elapsed_ns) / 1e3; },
          "The passes' wall time, in seconds.")
      .def_prop_ro("target_met", &PrecisionOutcome::target_met, "Whether reached <= target.")
      .def("__str__", [](const PrecisionOutcome& p) { return precision_words(p); });

  nb::class_<NullTestOutcome>(m, "NullTest",
                              "A row's null test: k times the work must take about k times the "
                              "time.")
      .def_prop_ro(
          "row", [](const NullTestOutcome& n) { return n.row; }, "The row tested.")
      .def_ro("scale", &NullTestOutcome::scale, "How many times the work was scaled.")
      .def_prop_ro(
          "observed_ratio",
          [](const NullTestOutcome& n) {
            return n.verdict ? std::optional<double>(n.verdict->observed_ratio) : std::nullopt;
          },
          "The scaled work's median time over the row's; None when not evaluated.")
      .def_prop_ro(
          "failed", [](const NullTestOutcome& n) { return n.failed(); },
          "Whether it failed (or could not be evaluated): the row's times are not the work's.")
      .def_ro("refusal", &NullTestOutcome::refusal, "Why it was not evaluated; \"\" when it was.")
      .def_prop_ro(
          "text", [](const NullTestOutcome& n) { return describe(n); },
          "The sentence: \"4x the work took 4.0x the time: pass\".")
      .def("__str__", [](const NullTestOutcome& n) { return describe(n); });

  nb::class_<RowFlags>(m, "RowFlags",
                       "A row's flags, decided once where its record was finished and checked "
                       "when it was read: what a reader of its times must know beside them.")
      .def_ro("clock_flagged", &RowFlags::clock_flagged,
              "Samples that may have run slower for their SM clock.")
      .def_ro("low_clock", &RowFlags::low_clock,
              "The whole row ran below 95% of the highest SM clock of its record's rows.")
      .def_ro("retries", &RowFlags::retries,
              "Phases measured again after activity records were lost.")
      .def_ro("uncounted_copy", &RowFlags::uncounted_copy,
              "The call also ran copies or fills, which device_busy does not count.")
      .def_ro("copy_exceeds_busy", &RowFlags::copy_exceeds_busy,
              "Those copies took longer than the work: the time may not be the work's.")
      .def_ro("drops_unproven", &RowFlags::drops_unproven,
              "The collector's drop counter was not live: a lost record could have gone unseen.")
      .def_ro("call_overhead", &RowFlags::call_overhead,
              "The host clock read the call at or under its floor: it measures the call's "
              "overhead, not work.");

  nb::class_<RelativeDifference>(m, "RelativeDifference",
                                 "A device-time difference with its interval (candidate / "
                                 "baseline - 1).")
      .def_ro("estimate", &RelativeDifference::estimate, "0.028 is 2.8% slower, -0.2 20% faster.")
      .def_ro("low", &RelativeDifference::low, "The interval's lower end.")
      .def_ro("high", &RelativeDifference::high, "The interval's upper end.")
      .def_ro("confidence", &RelativeDifference::confidence,
              "The interval's confidence (0.99; 0.95 in a record before schema version 9).")
      .def_ro("smallest_detectable", &RelativeDifference::smallest_detectable,
              "The smallest difference this run would have found with probability 0.95.")
      .def_ro("degrees_of_freedom", &RelativeDifference::degrees_of_freedom,
              "Of the passes' spread.")
      .def_ro("timestamp_tick_ns", &RelativeDifference::timestamp_tick_ns,
              "The timestamps' step, in ns.")
      .def_prop_ro(
          "slower", [](const RelativeDifference& d) { return d.slower(); },
          "The whole interval is above 0.")
      .def_prop_ro(
          "faster", [](const RelativeDifference& d) { return d.faster(); },
          "The whole interval is below 0.");

  nb::class_<RatioVerdict>(m, "RatioVerdict",
                           "A host-clock comparison: the passes' interval, the 1.5x floor and the "
                           "means together (records before schema version 11: the 1.5x "
                           "resolution on the medians alone).")
      .def_ro("speedup", &RatioVerdict::speedup, "Baseline time / candidate time.")
      .def_prop_ro(
          "resolution", [](const RatioVerdict& v) { return to_string(v.resolution); },
          "\"directional difference\" or \"no measured difference at this precision\".")
      .def_prop_ro(
          "claimed",
          [](const RatioVerdict& v) { return v.resolution == Resolution::directional_difference; },
          "Whether the rule claims a difference (then `wording` gives its direction).")
      .def_ro("wording", &RatioVerdict::wording,
              "\"1.6x faster\", \"2.0x slower\"; without a claim \"1.3x the time\".")
      .def_ro("label", &RatioVerdict::label,
              "What the passes support: \"directional difference\", or \"no difference this "
              "machine can resolve now (...; passes spread 43%; load average 6.9)\".")
      .def_ro("spread", &RatioVerdict::spread,
              "The widest side's spread of pass levels (highest over lowest, less 1); None with "
              "one pass a side.")
      .def_ro("load_average", &RatioVerdict::load_average,
              "The host's 1-minute load average when the rows were measured; None where not "
              "read.")
      .def_ro("by_passes", &RatioVerdict::by_passes,
              "Judged by the passes (schema version 11 on), not the medians alone.");

  m.def(
      "compare_host_passes",
      [](const PassSamples& baseline, const PassSamples& candidate, Nanos tick_ns,
         std::optional<double> load_average) {
        try {
          return compare_host_passes(baseline, candidate, tick_ns, load_average);
        } catch (const std::invalid_argument& e) {
          throw nb::value_error(e.what());
        }
      },
      nb::arg("baseline"), nb::arg("candidate"), nb::arg("tick_ns") = 1,
      nb::arg("load_average") = nb::none(),
      "The host-clock rule over two sides' passes (each a list of readings in ns, in the order "
      "they ran): a claim only where the passes' 99% interval excludes no difference, the "
      "medians differ by 1.5x or more and the means agree. ValueError on an empty side or a "
      "reading that is not positive.");

  nb::class_<Comparison>(m, "Comparison",
                         "An implementation against its case's first (the baseline), by the rule "
                         "of their statistic; str() is its sentence.")
      .def_prop_ro(
          "baseline", [](const Comparison& c) { return c.baseline.implementation; },
          "The baseline implementation's name.")
      .def_prop_ro(
          "candidate", [](const Comparison& c) { return c.candidate.implementation; },
          "The candidate implementation's name.")
      .def_prop_ro(
          "baseline_row", [](const Comparison& c) { return c.baseline; }, "The baseline's row.")
      .def_prop_ro(
          "candidate_row", [](const Comparison& c) { return c.candidate; }, "The candidate's row.")
      .def_prop_ro(
          "statistic", [](const Comparison& c) { return text(to_string(c.statistic)); },
          "The statistic both rows hold.")
      .def_prop_ro(
          "rule", [](const Comparison& c) { return to_string(c.rule); },
          "\"relative_difference\" (device time) or \"resolution_1.5x\" (wall clock).")
      .def_prop_ro(
          "difference", [](const Comparison& c) { return c.difference; },
          "The difference with its interval; None when refused or not given by the rule.")
      .def_prop_ro(
          "ratio", [](const Comparison& c) { return c.ratio; },
          "The 1.5x rule's verdict (wall clock only); None otherwise.")
      .def_prop_ro(
          "estimate",
          [](const Comparison& c) {
            return c.difference ? std::optional<double>(c.difference->estimate) : std::nullopt;
          },
          "The relative difference of the passes (candidate / baseline - 1, from each pass's "
          "level): the centre of the interval [low, high]. Not the ratio of the medians that the "
          "1.5x rule's sentence states for wall clock (\"4.8x slower\"): that is median_ratio. "
          "None without a difference.")
      .def_prop_ro(
          "median_ratio",
          [](const Comparison& c) {
            return c.ratio && c.ratio->speedup > 0 ? std::optional<double>(1 / c.ratio->speedup)
                                                   : std::nullopt;
          },
          "The candidate's median over the baseline's, as the 1.5x rule's sentence states it "
          "(wall clock: \"4.8x slower\" is 4.8); None where that rule was not applied.")
      .def_prop_ro(
          "low",
          [](const Comparison& c) {
            return c.difference ? std::optional<double>(c.difference->low) : std::nullopt;
          },
          "The interval's lower end; None without a difference.")
      .def_prop_ro(
          "high",
          [](const Comparison& c) {
            return c.difference ? std::optional<double>(c.difference->high) : std::nullopt;
          },
          "The interval's upper end; None without a difference.")
      .def_prop_ro(
          "smallest_detectable",
          [](const Comparison& c) {
            return c.difference ? std::optional<double>(c.difference->smallest_detectable)
                                : std::nullopt;
          },
          "The smallest difference the run would have found; None without a difference.")
      .def_ro("refusal", &Comparison::refusal, "Why the two were not compared; \"\" if they were.")
      .def_ro("baseline_mean_ns", &Comparison::baseline_mean_ns,
              "The baseline's mean time per call over every sample, in ns.")
      .def_ro("candidate_mean_ns", &Comparison::candidate_mean_ns,
              "The candidate's mean time per call over every sample, in ns.")
      .def_prop_ro(
          "inputs",
          [](const Comparison& c) -> std::optional<std::string> {
            if (!c.fresh_inputs) return std::nullopt;
            return std::string(*c.fresh_inputs ? "fresh" : "fixed");
          },
          "\"fresh\" (both sides got new inputs before every call), \"fixed\", or None where a "
          "row does not say.")
      .def_prop_ro(
          "compared", [](const Comparison& c) { return c.compared(); }, "Not refused.")
      .def_prop_ro(
          "slower", [](const Comparison& c) { return c.difference && c.difference->slower(); },
          "The candidate is slower: the whole interval is above 0.")
      .def_prop_ro(
          "faster", [](const Comparison& c) { return c.difference && c.difference->faster(); },
          "The candidate is faster: the whole interval is below 0.")
      .def_prop_ro(
          "finding",
          [](const Comparison& c) {
            return c.compared() ? std::string(to_string(direction_of(c))) : std::string();
          },
          "What the comparison found by its statistic's rule (the core's reading, the one every "
          "front end shows): \"faster\", \"slower\" or \"no difference\"; \"\" when refused.")
      .def_prop_ro(
          "found",
          [](const Comparison& c) {
            return c.compared() && direction_of(c) != Verdict::no_difference;
          },
          "Whether the comparison claims a difference (finding is \"faster\" or \"slower\"): "
          "what a front end asks instead of reading the words.")
      .def_prop_ro(
          "text", [](const Comparison& c) { return describe(c); },
          "The sentence a reader sees first: \"b is 2.8% slower than a (99% interval 2.6% to "
          "3.0%)\".")
      .def("__str__", [](const Comparison& c) { return describe(c); })
      .def("__repr__", [](const Comparison& c) {
        // Each number beside the sentence named for what it is.
        std::string out = "Comparison(" + quoted(describe(c));
        if (c.difference) {
          out += ", estimate=" + format_significant(c.difference->estimate, 3) +
                 " (relative difference of the passes)";
        }
        if (c.ratio && c.ratio->speedup > 0) {
          out += ", median_ratio=" + format_significant(1 / c.ratio->speedup, 3);
        }
        return out + ")";
      });
}

void bind_header(nb::module_& m) {
  nb::class_<HostIdentity>(m, "HostIdentity", "The host a record was made on.")
      .def_ro("hostname", &HostIdentity::hostname)
      .def_ro("cpu_model", &HostIdentity::cpu_model)
      .def_ro("logical_cores", &HostIdentity::logical_cores)
      .def_ro("os", &HostIdentity::os);

  nb::class_<DeviceIdentity>(m, "DeviceIdentity", "The device a record measured.")
      .def_ro("kind", &DeviceIdentity::kind, "\"cuda\" or \"host\".")
      .def_ro("index", &DeviceIdentity::index)
      .def_ro("name", &DeviceIdentity::name)
      .def_ro("uuid", &DeviceIdentity::uuid, "\"\" when not available.")
      .def_ro("arch", &DeviceIdentity::arch, "\"sm_90\", or the host CPU's architecture.")
      .def_ro("multiprocessors", &DeviceIdentity::multiprocessors)
      .def_ro("l2_bytes", &DeviceIdentity::l2_bytes)
      .def_ro("memory_bytes", &DeviceIdentity::memory_bytes)
      .def_prop_ro(
          "label", [](const DeviceIdentity& d) { return device_label(d, true); },
          "The device as every report names it: \"NVIDIA H200 (cuda:0, GPU-...)\".");

  nb::class_<Board>(m, "Board",
                    "The board a row ran on: its device's uuid and name, and its clocks as read "
                    "when its run began (None: not read). Rows of two boards are never compared.")
      .def_ro("uuid", &Board::uuid, "\"\" when the device has none (the host CPU).")
      .def_ro("name", &Board::name)
      .def_ro("sm_clock_mhz", &Board::sm_clock_mhz)
      .def_ro("sm_clock_max_mhz", &Board::sm_clock_max_mhz)
      .def_ro("memory_clock_mhz", &Board::memory_clock_mhz)
      .def_prop_ro(
          "label", [](const Board& b) { return board_label(b); },
          "\"NVIDIA H200 GPU-...\": the name, then the uuid where there is one.");

  nb::class_<Shard>(m, "Shard", "Which share of a sweep one task measured.")
      .def_ro("index", &Shard::index, "Numbered from 0: shard 0 of 4 is the first.")
      .def_ro("count", &Shard::count)
      .def_prop_ro(
          "source", [](const Shard& s) { return std::string(to_string(s.source)); },
          "\"option\" (shard=, --shard), \"slurm\" or \"kubernetes\".")
      .def_ro("origin", &Shard::origin, "What was read, as read.");

  nb::class_<DealtCase>(m, "DealtCase",
                        "One case of a sharded sweep and the shard it was dealt to.")
      .def_prop_ro(
          "row", [](const DealtCase& c) { return c.row; }, "The case (implementation \"\").")
      .def_ro("cost", &DealtCase::cost)
      .def_ro("shard", &DealtCase::shard);

  nb::class_<ShardPlan>(m, "ShardPlan",
                        "A shard's part of a record: which shard, and the dealing of every case of "
                        "the sweep.")
      .def_ro("shard", &ShardPlan::shard)
      .def_ro("cases", &ShardPlan::cases, "Every case of the whole sweep, with its shard.")
      .def_prop_ro(
          "own_cases", [](const ShardPlan& p) { return own_cases(p); },
          "How many cases were dealt to this shard (0: an empty part of the sweep).")
      .def("__str__", [](const ShardPlan& p) { return describe_shard(p); });

  nb::class_<DeviceState>(m, "DeviceState",
                          "The device's state when the record was made; None: not available.")
      .def_ro("driver_version", &DeviceState::driver_version)
      .def_prop_ro(
          "software_versions",
          [](const DeviceState& s) {
            std::map<std::string, int> out;
            for (const SoftwareVersion& v : s.software_versions) out[v.name] = v.value;
            return out;
          },
          "The versions of the software the backend measured through, by the record's name "
          "(\"cuda_driver_version\": 12040, ...); those not read are absent.")
      .def_ro("sm_clock_mhz", &DeviceState::sm_clock_mhz)
      .def_ro("sm_clock_max_mhz", &DeviceState::sm_clock_max_mhz)
      .def_ro("memory_clock_mhz", &DeviceState::memory_clock_mhz)
      .def_ro("temperature_c", &DeviceState::temperature_c)
      .def_ro("power_w", &DeviceState::power_w)
      .def_ro("throttle_reasons", &DeviceState::throttle_reasons)
      .def_ro("utilization_pct", &DeviceState::utilization_pct)
      .def_ro("memory_free_bytes", &DeviceState::memory_free_bytes)
      .def_ro("memory_used_bytes", &DeviceState::memory_used_bytes)
      .def_ro("compute_processes", &DeviceState::compute_processes);

  nb::class_<CeilingRun>(m, "CeilingRun", "One piece of ceiling work, timed like a row.")
      .def_prop_ro(
          "kind", [](const CeilingRun& r) { return text(to_string(r.kind)); },
          "\"bytes_per_s\" or \"flops_per_s\".")
      .def_ro("work", &CeilingRun::work, "What ran: \"cudaMemcpyAsync device to device, ...\".")
      .def_ro("per_call", &CeilingRun::per_call, "Bytes read plus written, or flops, per call.")
      .def_ro("samples_ns", &CeilingRun::samples_ns, "Each iteration's reading, in ns.");

  nb::class_<Ceilings>(m, "Ceilings", "The device's measured ceilings, what % of peak divides by.")
      .def_ro("flops_per_s", &Ceilings::flops_per_s)
      .def_ro("bytes_per_s", &Ceilings::bytes_per_s)
      .def_prop_ro(
          "method",
          [](const Ceilings& c) {
            return c.method ? std::optional<std::string>(text(to_string(*c.method))) : std::nullopt;
          },
          "The method that timed the runs: that of the rows they divide.")
      .def_prop_ro(
          "statistic",
          [](const Ceilings& c) {
            return c.method ? std::optional<std::string>(text(to_string(statistic_of(*c.method))))
                            : std::nullopt;
          },
          "The statistic of the runs.")
      .def_prop_ro(
          "rule", [](const Ceilings&) { return text(kCeilingRule); },
          "How a run's samples give its rate: \"fastest_sample\".")
      .def_ro("runs", &Ceilings::runs);

  nb::class_<Budget>(m, "Budget", "How long each phase runs, and the bounds on its iterations.")
      .def_ro("warmup_ns", &Budget::warmup_ns)
      .def_ro("measure_ns", &Budget::measure_ns)
      .def_ro("min_iterations", &Budget::min_iterations)
      .def_ro("max_iterations", &Budget::max_iterations);

  nb::class_<RunConfig>(m, "RunConfig", "How the run measured.")
      .def_prop_ro(
          "budget", [](const RunConfig& c) { return c.budget; },
          "One implementation's budget (each pass gets half).")
      .def_ro("l2_flush", &RunConfig::l2_flush, "Whether the L2 was flushed before every call.")
      .def_ro("l2_flush_mode", &RunConfig::l2_flush_mode, "\"write+read\", or \"\".")
      .def_ro("schedule", &RunConfig::schedule, "\"ABCCBA\".")
      .def_ro("launch_cost_ns", &RunConfig::launch_cost_ns,
              "What the instrumentation adds to each launch, in ns; None when not measured.");

  nb::class_<Failure>(m, "Failure", "A case (or implementation) that produced no number, and why.")
      .def_prop_ro(
          "row", [](const Failure& f) { return f.row; }, "Which row failed.")
      .def_ro("error", &Failure::error, "The error's class name: \"OffThreadLaunch\", ...")
      .def_ro("message", &Failure::message, "What happened and what to do.");
}

// The typed views of one record.
void bind_views(nb::module_& m) {
  nb::class_<ResultRef>(m, "Result",
                        "One implementation measured: its summary (computed by the C++ core), its "
                        "raw samples and its record. Times are in nanoseconds.")
      .def_prop_ro(
          "name", [](const ResultRef& r) { return r.get().row.implementation; },
          "The implementation's name.")
      .def_prop_ro(
          "case_name", [](const ResultRef& r) { return r.get().row.case_name; },
          "The case's name (measure()'s and compare()'s `name`).")
      .def_prop_ro(
          "params", [](const ResultRef& r) { return r.get().row.params; },
          "The case's parameter values, by axis name.")
      .def_prop_ro(
          "row", [](const ResultRef& r) { return r.get().row; }, "Which row of the record.")
      .def_prop_ro(
          "method", [](const ResultRef& r) { return text(to_string(r.get().measurement.method)); },
          "How it was timed: \"kernel-records\", \"device-events\" or \"host-clock\".")
      .def_prop_ro(
          "statistic",
          [](const ResultRef& r) {
            return text(to_string(statistic_of(r.get().measurement.method)));
          },
          "What device_busy holds: \"device_busy\", \"device_event\" or "
          "\"synchronized_wall_clock\".")
      .def_prop_ro(
          "reason", [](const ResultRef& r) { return r.get().measurement.reason; },
          "Why this method, when it is a fallback; \"\" otherwise.")
      .def_prop_ro(
          "summary", [](const ResultRef& r) { return r.get().summary; }, "The whole summary.")
      .def_prop_ro(
          "device_busy", [](const ResultRef& r) { return r.get().summary.device_busy; },
          "The statistic: with CUPTI the union of the call's kernel intervals; the Python call "
          "between kernels is never in it. On a row timed otherwise it holds that row's "
          "statistic (statistic names it; time and wall_clock read it by that name).")
      .def_prop_ro(
          "time", [](const ResultRef& r) { return r.get().summary.device_busy; },
          "The row's statistic, whichever it is (statistic names it): device_busy with CUPTI, "
          "the wall clock on the host clock.")
      .def_prop_ro(
          "wall_clock",
          [](const ResultRef& r) {
            const Result& res = r.get();
            return statistic_of(res.measurement.method) == Statistic::synchronized_wall_clock
                       ? std::optional<Spread>(res.summary.device_busy)
                       : std::nullopt;
          },
          "The wall clock around each call, on a row timed by it (the host clock, or the "
          "synchronized wall clock); None on a row that measured device time.")
      .def_prop_ro(
          "latency", [](const ResultRef& r) { return r.get().summary.latency; },
          "End of the call's last kernel minus start of its first.")
      .def_prop_ro(
          "gap_ns", [](const ResultRef& r) { return r.get().summary.gap_ns; },
          "Median latency minus median device_busy.")
      .def_prop_ro(
          "n_samples", [](const ResultRef& r) { return r.get().summary.n_samples; },
          "Measured samples, both passes together.")
      .def_prop_ro(
          "max_n_kernels", [](const ResultRef& r) { return r.get().summary.max_n_kernels; },
          "The most kernels one iteration ran; None where the method cannot count them.")
      .def_prop_ro(
          "uncounted_copy_ns",
          [](const ResultRef& r) { return r.get().summary.median_uncounted_copy_ns; },
          "The median copy and fill time not counted (count_copies=False).")
      .def_prop_ro(
          "retries", [](const ResultRef& r) { return r.get().summary.retries; },
          "Phases measured again after lost records.")
      .def_prop_ro(
          "ledger", [](const ResultRef& r) { return r.get().measurement.ledger; },
          "What every record of the row's phases was, its canaries, fresh inputs and checks.")
      .def_prop_ro(
          "checked_iterations",
          [](const ResultRef& r) { return r.get().measurement.ledger.checked_iterations; },
          "Iterations whose answer was checked while timed (fresh_inputs).")
      .def_prop_ro(
          "answer_check", [](const ResultRef& r) { return r.get().answer_check; },
          "The tolerances (rtol, atol) the default check held its answers to, as the record "
          "states them; None where no such check was made (a verify of your own, or none).")
      .def_prop_ro(
          "origin", [](const ResultRef& r) { return text(to_string(r.get().measurement.origin)); },
          "How the row was measured: \"harness\" (gpumeter's own measurement of a call), "
          "\"program_range\" (an NVTX range of a program, gpumeter run) or \"before_ledgers\" "
          "(a row of a record from before ledgers were kept).")
      .def_prop_ro(
          "tflops", [](const ResultRef& r) { return r.get().summary.tflops; },
          "TFLOP/s at the median; None without `flops`.")
      .def_prop_ro(
          "tbs", [](const ResultRef& r) { return r.get().summary.tbs; },
          "TB/s at the median; None without `bytes`.")
      .def_prop_ro(
          "pct_of_peak_flops", [](const ResultRef& r) { return r.get().summary.pct_of_peak_flops; },
          "Percent of the measured FLOP/s ceiling; None without one.")
      .def_prop_ro(
          "pct_of_peak_bandwidth",
          [](const ResultRef& r) { return r.get().summary.pct_of_peak_bandwidth; },
          "Percent of the measured bandwidth ceiling; None without one.")
      .def_prop_ro(
          "above_flops_ceiling",
          [](const ResultRef& r) { return r.get().summary.above_flops_ceiling; },
          "The row ran faster than the fastest run of the FLOP/s ceiling's work (a finding, not "
          "an error); None without a percent.")
      .def_prop_ro(
          "above_bandwidth_ceiling",
          [](const ResultRef& r) { return r.get().summary.above_bandwidth_ceiling; },
          "As above_flops_ceiling, for bandwidth.")
      .def_prop_ro(
          "flops", [](const ResultRef& r) { return r.get().workload.flops; },
          "The declared floating-point operations per call.")
      .def_prop_ro(
          "bytes", [](const ResultRef& r) { return r.get().workload.bytes; },
          "The declared bytes moved per call.")
      .def_prop_ro(
          "count_copies", [](const ResultRef& r) { return r.get().count_copies; },
          "Whether copies and fills count as device time.")
      .def_prop_ro(
          "samples", [](const ResultRef& r) { return r.get().measurement.samples; },
          "Every measured iteration, pass after pass, in the order they ran.")
      .def_prop_ro(
          "pass_sizes", [](const ResultRef& r) { return r.get().measurement.pass_sizes; },
          "How many samples each pass holds (two passes: A B C C B A, or A A alone).")
      .def_prop_ro(
          "timestamp_tick_ns",
          [](const ResultRef& r) { return r.get().measurement.timestamp_tick_ns; },
          "The resolution of the timestamps, in ns.")
      .def_prop_ro(
          "estimate_ns", [](const ResultRef& r) { return r.get().measurement.estimate_ns; },
          "One call's time as calibration estimated it, in ns.")
      .def_prop_ro(
          "warmup_iterations",
          [](const ResultRef& r) { return r.get().measurement.warmup_iterations; },
          "Warm-up iterations run.")
      .def_prop_ro(
          "measure_iterations",
          [](const ResultRef& r) { return r.get().measurement.measure_iterations; },
          "Measured iterations, every pass together.")
      .def_prop_ro(
          "drop_counter_live",
          [](const ResultRef& r) { return r.get().measurement.drop_counter_live; },
          "Whether a lost record would have been seen.")
      .def_prop_ro(
          "timestamp_check", [](const ResultRef& r) { return r.get().measurement.timestamp_check; },
          "How the timestamps were checked against the device's clock; None where the method "
          "needs no check.")
      .def_prop_ro(
          "precision", [](const ResultRef& r) { return r.get().measurement.precision; },
          "What a run to a target precision did (target, reached, passes, why it stopped); None "
          "for a measurement with a fixed budget.")
      .def_prop_ro(
          "memory", [](const ResultRef& r) { return r.get().memory; },
          "The case's memory, each figure in its own domain.")
      .def_prop_ro(
          "board", [](const ResultRef& r) { return r.get().board; },
          "The board the row ran on (a record joined from several boards keeps each row's).")
      .def_prop_ro(
          "gpu_workload_bytes",
          [](const ResultRef& r) { return r.get().memory.gpu_workload_bytes(); },
          "This process's device memory above its context floor after the case (NVML; whatever "
          "the process allocated since it first opened the device counts); None: not available.")
      .def_prop_ro(
          "host_peak_rss_bytes",
          [](const ResultRef& r) { return r.get().memory.host_peak_rss_bytes; },
          "The host's peak resident set while the case ran (VmHWM); None: not available.")
      .def_prop_ro(
          "clock", [](const ResultRef& r) { return r.get().summary.clock; },
          "The row's clocks; None where the clock could not be read.")
      .def_prop_ro(
          "median_sm_clock_mhz",
          [](const ResultRef& r) {
            const auto& c = r.get().summary.clock;
            return c ? std::optional<double>(c->median_mhz) : std::nullopt;
          },
          "The SM clock's median over the samples; None: not read.")
      .def_prop_ro(
          "min_sm_clock_mhz",
          [](const ResultRef& r) {
            const auto& c = r.get().summary.clock;
            return c ? std::optional<int>(c->min_mhz) : std::nullopt;
          },
          "The lowest SM clock; None: not read.")
      .def_prop_ro(
          "max_sm_clock_mhz",
          [](const ResultRef& r) {
            const auto& c = r.get().summary.clock;
            return c ? std::optional<int>(c->max_mhz) : std::nullopt;
          },
          "The highest SM clock (the row's reference); None: not read.")
      .def_prop_ro(
          "clock_flagged_samples",
          [](const ResultRef& r) {
            const auto& c = r.get().summary.clock;
            return c ? std::optional<std::size_t>(c->flagged) : std::nullopt;
          },
          "Samples that may have run slower for their clock; None: not read.")
      .def_prop_ro(
          "clock_below_reference_samples",
          [](const ResultRef& r) {
            const auto& c = r.get().summary.clock;
            return c ? std::optional<std::size_t>(c->below_reference) : std::nullopt;
          },
          "Samples below 95% of the row's highest clock; None: not read.")
      .def_prop_ro(
          "throttle_reason_samples",
          [](const ResultRef& r) -> std::optional<std::map<std::string, std::size_t>> {
            const auto& c = r.get().summary.clock;
            if (!c) return std::nullopt;
            return std::map<std::string, std::size_t>{{"sw_power_cap", c->sw_power_cap},
                                                      {"hw_slowdown", c->hw_slowdown},
                                                      {"sw_thermal", c->sw_thermal},
                                                      {"hw_thermal", c->hw_thermal},
                                                      {"hw_power_brake", c->hw_power_brake}};
          },
          "Samples each slowing reason was set around, by reason; None: not read.")
      .def_prop_ro(
          "null_test",
          [](const ResultRef& r) {
            const std::optional<NullTestOutcome>& n = r.get().null_test_outcome;
            return n ? std::optional<std::string>(describe(*n)) : std::nullopt;
          },
          "The null test's sentence (\"4x the work took 4.0x the time: pass\"); None without "
          "`scaled`.")
      .def_prop_ro(
          "null_test_failed", [](const ResultRef& r) { return r.get().null_test_failed(); },
          "The null test failed: the times are not the work's, and the row is compared with "
          "nothing.")
      .def_prop_ro(
          "null_test_outcome", [](const ResultRef& r) { return r.get().null_test_outcome; },
          "The null test; None without `scaled`.")
      .def_prop_ro(
          "flags", [](const ResultRef& r) { return r.get().flags; },
          "The row's flags (clock, retries, copies, drops, call overhead), as its record holds "
          "them.")
      .def_prop_ro(
          "measures_call_overhead", [](const ResultRef& r) { return r.get().flags.call_overhead; },
          "The host clock read the call at or under its floor (1 us): the number measures the "
          "call's overhead, not work, and no difference is claimed between two such rows.")
      .def_prop_ro(
          "record", [](const ResultRef& r) { return RecordRef{r.record}; },
          "The record this result is part of.")
      .def("__str__", [](const ResultRef& r) { return describe(r.get()); })
      .def("__repr__",
           [](const ResultRef& r) { return "Result(" + quoted(describe(r.get())) + ")"; });

  nb::class_<RecordRef>(m, "Record",
                        "A run's evidence: raw samples, summaries, comparisons, environment, "
                        "configuration and deviations. Read-only; JSON only in files.")
      .def_prop_ro("schema_version", [](const RecordRef& r) { return r.record->schema_version; })
      .def_prop_ro(
          "run_id", [](const RecordRef& r) { return r.record->run_id; },
          "Unique per run; also in the file name.")
      .def_prop_ro("created_utc", [](const RecordRef& r) { return r.record->created_utc; })
      .def_prop_ro("gpumeter_version",
                   [](const RecordRef& r) { return r.record->gpumeter_version; })
      .def_prop_ro("argv", [](const RecordRef& r) { return r.record->argv; })
      .def_prop_ro(
          "project_commit", [](const RecordRef& r) { return r.record->project_commit; },
          "The measured project's commit; \"\" when unknown.")
      .def_prop_ro("host", [](const RecordRef& r) { return r.record->host; })
      .def_prop_ro("device", [](const RecordRef& r) { return r.record->device; })
      .def_prop_ro("device_state", [](const RecordRef& r) { return r.record->device_state; })
      .def_prop_ro("ceilings", [](const RecordRef& r) { return r.record->ceilings; })
      .def_prop_ro("config", [](const RecordRef& r) { return r.record->config; })
      .def_prop_ro(
          "deviations", [](const RecordRef& r) { return r.record->deviations; },
          "Departures from the protocol (a fallback, no lock, a counter not read), never hidden.")
      .def_prop_ro(
          "results",
          [](const RecordRef& r) {
            std::vector<ResultRef> out;
            for (std::size_t i = 0; i < r.record->results.size(); ++i) {
              out.push_back(ResultRef{r.record, i});
            }
            return out;
          },
          "Every result, in the order measured.")
      .def_prop_ro(
          "failures", [](const RecordRef& r) { return r.record->failures; },
          "Cases that produced no number, and why.")
      .def_prop_ro(
          "comparisons", [](const RecordRef& r) { return r.record->comparisons; },
          "Each implementation against its case's first, with the rule that applied.")
      .def_prop_ro(
          "null_tests", [](const RecordRef& r) { return null_tests(r.record->results); },
          "The null test of every row that has one.")
      .def_prop_ro(
          "phases", [](const RecordRef& r) { return r.record->phases; },
          "The phases a user waits for (process start to N calls), each with its samples.")
      .def_prop_ro(
          "totals", [](const RecordRef& r) { return r.record->totals; },
          "Measured totals of N calls from fresh processes.")
      .def_prop_ro(
          "runtimes", [](const RecordRef& r) { return r.record->runtimes; },
          "The runtime each candidate launched through (version, device, architecture).")
      .def_prop_ro(
          "merged_programs", [](const RecordRef& r) { return r.record->merged_programs; },
          "Whether the record merged program runs (gpumeter run), whose program sections are in "
          "the records merged.")
      .def_prop_ro(
          "shard", [](const RecordRef& r) { return r.record->shard; },
          "For one shard of a sweep: which shard, and the dealing of every case; None for a "
          "whole sweep (a merge of every shard included).")
      .def(
          "total_n",
          [](const RecordRef& r) { return decompose_totals(r.record->phases, r.record->totals); },
          "total(N) of each candidate: the decomposition beside the measured totals.")
      .def(
          "call_crossovers",
          [](const RecordRef& r) { return crossovers_in_calls(r.record->totals); },
          "Where one candidate's measured total overtakes another's, as brackets of N.")
      .def(
          "sweeps", [](const RecordRef& r) { return analyze_sweeps(*r.record); },
          "Growth exponents per regime and crossover brackets along every numeric axis.")
      .def(
          "to_json", [](const RecordRef& r) { return serialize(*r.record); },
          "The record as its file holds it (JSON text).")
      .def(
          "to_dict",
          [](const RecordRef& r) -> StrDict {
            return nb::cast<nb::dict>(
                nb::module_::import_("json").attr("loads")(serialize(*r.record)));
          },
          "The record as a dict, with the field names of its file.")
      .def(
          "markdown",
          [](const RecordRef& r, bool wide) {
            return make_reporter(wide ? ReportFormat::wide_markdown : ReportFormat::markdown)
                ->render({*r.record});
          },
          nb::kw_only(), nb::arg("wide") = false,
          "The markdown report `gpumeter report` prints: the table (every column with `wide`), "
          "its notes and sources, then the comparisons and null tests.")
      .def(
          "csv",
          [](const RecordRef& r) { return make_reporter(ReportFormat::csv)->render({*r.record}); },
          "The CSV table `gpumeter report --csv` prints.")
      .def_static(
          "from_json",
          [](const std::string& text, const std::string& source) {
            return RecordRef{std::make_shared<const Record>(parse_record(text, source))};
          },
          nb::arg("text"), nb::arg("source") = "(record text)",
          "Reads a record's JSON text as strictly as a file.\n\nRaises:\n    InvalidRecord: "
          "naming `source` and the problem.")
      .def("__repr__", [](const RecordRef& r) {
        const Record& rec = *r.record;
        return "Record(run_id=" + quoted(rec.run_id) +
               ", results=" + std::to_string(rec.results.size()) +
               ", failures=" + std::to_string(rec.failures.size()) +
               ", comparisons=" + std::to_string(rec.comparisons.size()) + ")";
      });

  nb::class_<CompareRef>(m, "CompareResult",
                         "What compare() returns: each implementation's Result by name, the "
                         "comparisons with the first, and the record.")
      .def_prop_ro(
          "results",
          [](const CompareRef& c) {
            nb::typed<nb::dict, std::string, ResultRef> out;
            for (std::size_t i = 0; i < c.record->results.size(); ++i) {
              out[nb::str(c.record->results[i].row.implementation.c_str())] =
                  nb::cast(ResultRef{c.record, i});
            }
            return out;
          },
          "Each implementation's result, by name, in the order given.")
      .def_prop_ro(
          "comparisons", [](const CompareRef& c) { return c.record->comparisons; },
          "Each implementation against the first, by the rule of their statistic.")
      .def_prop_ro(
          "record", [](const CompareRef& c) { return RecordRef{c.record}; }, "The record.")
      .def("__repr__",
           [](const CompareRef& c) {
             std::string names;
             for (const Result& r : c.record->results) {
               names += (names.empty() ? "" : ", ") + quoted(r.row.implementation);
             }
             std::string sentences;
             for (const Comparison& cmp : c.record->comparisons) {
               sentences += (sentences.empty() ? "" : ", ") + quoted(describe(cmp));
             }
             return "CompareResult(results=[" + names + "], comparisons=[" + sentences +
                    "], run_id=" + quoted(c.record->run_id) + ")";
           })
      .def("__str__", [](const CompareRef& c) {
        std::string out;
        for (const Result& r : c.record->results) out += describe(r) + "\n";
        for (const Comparison& cmp : c.record->comparisons) out += describe(cmp) + "\n";
        if (!out.empty()) out.pop_back();
        return out;
      });
}

}  // namespace

void bind_record(nb::module_& m) {
  bind_phase_types(m);
  bind_values(m);
  bind_header(m);
  bind_views(m);
  m.def(
      "compare_result", [](const RecordRef& r) { return CompareRef{r.record}; }, nb::arg("record"),
      "A record of one case seen as compare() returns it.");
}

}  // namespace gpumeter::python
