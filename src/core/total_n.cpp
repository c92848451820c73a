#include "gpumeter/detail/total_n.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/detail/summary.hpp"
#include "gpumeter/host_clock.hpp"

namespace gpumeter {
namespace {

// The median of `values`, nullopt for none: a phase nobody measured is not a zero.
std::optional<double> median_of(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return quantile(values, 0.5);
}

// Every sample of `row`'s `phase` taken in `setting`, pooled over the readings that hold one. A
// sum of what a user waits for adds wall-clock times only: a device-time reading (warm_call) is a
// different statistic and never enters it.
std::vector<double> samples_of(const std::vector<const PhaseReading*>& readings, Phase phase,
                               PhaseSetting setting) {
  std::vector<double> out;
  for (const PhaseReading* r : readings) {
    if (r->phase != phase || r->setting != setting ||
        r->statistic != Statistic::synchronized_wall_clock) {
      continue;
    }
    for (const Nanos s : r->samples_ns) out.push_back(static_cast<double>(s));
  }
  return out;
}

// A term read from the first of `settings` where its phase was measured; when none, it names the
// first (where it would have been read) with no median.
TotalTerm read_term(const std::vector<const PhaseReading*>& readings, Phase phase,
                    std::initializer_list<PhaseSetting> settings) {
  TotalTerm term;
  term.phase = phase;
  term.setting = *settings.begin();
  for (const PhaseSetting s : settings) {
    if (std::optional<double> m = median_of(samples_of(readings, phase, s))) {
      term.setting = s;
      term.median_ns = m;
      return term;
    }
  }
  return term;
}

PhaseSetting other_fresh(PhaseSetting setting) {
  return setting == PhaseSetting::fresh_cold ? PhaseSetting::fresh_cached
                                             : PhaseSetting::fresh_cold;
}

// The terms every candidate pays: without one, a prediction would leave out a cost the user
// does pay. The cold compile is one of them in the cold decomposition of a candidate that
// compiles at all (a cached load was measured): that decomposition exists to show it, and without
// it the cold prediction would be the cached one less its load. A candidate with neither (a
// precompiled library's kernel: PyTorch's) has no compile to leave out. The rest may simply not
// apply (nothing to load, no structure to build, no graph) and count only when measured.
bool required(Phase phase, bool compiles) {
  return phase == Phase::process_start || phase == Phase::init || phase == Phase::end_to_end ||
         (phase == Phase::cold_compile && compiles);
}

TotalN decompose(const RowKey& row, PhaseSetting setting,
                 const std::vector<const PhaseReading*>& readings,
                 const std::vector<const MeasuredTotal*>& row_totals) {
  TotalN t;
  t.row = row;
  t.setting = setting;
  const PhaseSetting other = other_fresh(setting);
  t.fixed.push_back(read_term(readings, Phase::process_start, {setting, other}));
  t.fixed.push_back(read_term(readings, Phase::init, {setting, other}));
  // A compile with every cache empty happens only in a cold process; a load from a warm cache
  // only in a cached one: neither is read from the other setting.
  t.fixed.push_back(setting == PhaseSetting::fresh_cold
                        ? read_term(readings, Phase::cold_compile, {PhaseSetting::fresh_cold})
                        : read_term(readings, Phase::cached_load, {PhaseSetting::fresh_cached}));
  t.fixed.push_back(read_term(readings, Phase::conversion, {setting, other}));
  t.fixed.push_back(read_term(readings, Phase::first_build, {setting, other}));
  t.fixed.push_back(read_term(readings, Phase::graph_capture, {PhaseSetting::warm_process}));
  // The exit after the last call: a one-shot tool's user waits until the process has gone.
  t.fixed.push_back(read_term(readings, Phase::process_exit, {setting, other}));
  t.per_call = read_term(readings, Phase::end_to_end, {PhaseSetting::warm_process});

  const bool compiles = std::any_of(readings.begin(), readings.end(), [](const PhaseReading* p) {
    return p->phase == Phase::cold_compile || p->phase == Phase::cached_load;
  });
  double fixed_sum = 0;
  for (const TotalTerm& term : t.fixed) {
    if (term.median_ns) {
      fixed_sum += *term.median_ns;
    } else {
      (required(term.phase, compiles) ? t.missing : t.absent).push_back(term.phase);
    }
  }
  if (!t.per_call.median_ns) t.missing.push_back(Phase::end_to_end);

  // Each N's measured samples, pooled over the row's totals of N calls in this setting.
  std::map<int, std::vector<double>> measured;
  for (const int n : {1, 10, 100}) measured[n];
  for (const MeasuredTotal* m : row_totals) {
    if (m->setting != setting || m->calls < 1) continue;
    std::vector<double>& v = measured[m->calls];
    for (const Nanos s : m->samples_ns) v.push_back(static_cast<double>(s));
  }
  for (const auto& [calls, samples] : measured) {
    TotalAtN at;
    at.calls = calls;
    if (t.missing.empty()) at.predicted_ns = fixed_sum + calls * *t.per_call.median_ns;
    at.measured_ns = median_of(samples);
    at.measured_samples = samples.size();
    // A measured total ends at the synchronize after its N-th call; the exit that follows is
    // measured in the same processes and added, the synchronize kept beside it.
    const std::optional<double>& exit = t.fixed.back().median_ns;
    if (at.measured_ns && exit) at.measured_to_exit_ns = *at.measured_ns + *exit;
    const std::optional<double> waited = exit ? at.measured_to_exit_ns : at.measured_ns;
    if (at.predicted_ns && waited && *at.predicted_ns > 0) {
      at.measured_over_predicted = *waited / *at.predicted_ns;
    }
    t.at.push_back(at);
  }
  return t;
}

// -1, 0 or +1: which candidate's median is lower (+1: the second's). Equal medians have none.
int median_order(const AxisPoint& p) {
  if (p.first_ns > p.second_ns) return 1;
  if (p.first_ns < p.second_ns) return -1;
  return 0;
}

Crossover crossover(const RowKey& first, const RowKey& second, double low, double high,
                    int sign_at_low, bool resolved) {
  Crossover c;
  // sign +1 at low: the second candidate leads there.
  c.first = sign_at_low > 0 ? second : first;
  c.second = sign_at_low > 0 ? first : second;
  c.low = low;
  c.high = high;
  c.resolved = resolved;
  return c;
}

}  // namespace

std::vector<TotalN> decompose_totals(const std::vector<PhaseReading>& phases,
                                     const std::vector<MeasuredTotal>& totals) {
  std::vector<RowKey> order;
  std::map<RowKey, std::vector<const PhaseReading*>> readings;
  std::map<RowKey, std::vector<const MeasuredTotal*>> row_totals;
  const auto see = [&](const RowKey& row) {
    if (!readings.count(row) && !row_totals.count(row)) order.push_back(row);
  };
  for (const PhaseReading& p : phases) {
    see(p.row);
    readings[p.row].push_back(&p);
  }
  for (const MeasuredTotal& m : totals) {
    see(m.row);
    row_totals[m.row].push_back(&m);
  }
  std::vector<TotalN> out;
  for (const RowKey& row : order) {
    const std::vector<const PhaseReading*>& r = readings[row];
    const std::vector<const MeasuredTotal*>& m = row_totals[row];
    out.push_back(decompose(row, PhaseSetting::fresh_cached, r, m));
    // The cold decomposition where something cold was measured: a compile, or a total (shown
    // beside no prediction when the compile was not measured, rather than hidden).
    const bool cold =
        std::any_of(r.begin(), r.end(),
                    [](const PhaseReading* p) {
                      return p->phase == Phase::cold_compile &&
                             p->setting == PhaseSetting::fresh_cold && !p->samples_ns.empty();
                    }) ||
        std::any_of(m.begin(), m.end(), [](const MeasuredTotal* t) {
          return t->setting == PhaseSetting::fresh_cold && t->calls >= 1 && !t->samples_ns.empty();
        });
    if (cold) out.push_back(decompose(row, PhaseSetting::fresh_cold, r, m));
  }
  return out;
}

std::vector<Crossover> find_crossovers(const RowKey& first, const RowKey& second,
                                       std::vector<AxisPoint> points) {
  for (const AxisPoint& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.first_ns) || !std::isfinite(p.second_ns)) {
      throw std::invalid_argument("find_crossovers: a point that is not a finite number");
    }
  }
  std::sort(points.begin(), points.end(),
            [](const AxisPoint& a, const AxisPoint& b) { return a.x < b.x; });
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].x == points[i - 1].x) {
      throw std::invalid_argument("find_crossovers: two points at one x");
    }
  }

  // Resolved: consecutive decided points whose decided leaders differ.
  std::vector<Crossover> resolved;
  const AxisPoint* last_decided = nullptr;
  for (const AxisPoint& p : points) {
    if (p.decided == 0) continue;
    const int sign = p.decided > 0 ? 1 : -1;
    if (last_decided != nullptr && (last_decided->decided > 0 ? 1 : -1) != sign) {
      resolved.push_back(crossover(first, second, last_decided->x, p.x, -sign, true));
    }
    last_decided = &p;
  }
  const auto covered = [&](double low, double high) {
    return std::any_of(resolved.begin(), resolved.end(),
                       [&](const Crossover& c) { return c.low <= low && high <= c.high; });
  };

  // Unresolved: consecutive points with a median order whose orders differ, outside every
  // resolved bracket.
  std::vector<Crossover> out;
  const AxisPoint* last_ordered = nullptr;
  for (const AxisPoint& p : points) {
    const int order = median_order(p);
    if (order == 0) continue;
    if (last_ordered != nullptr && median_order(*last_ordered) != order &&
        !covered(last_ordered->x, p.x)) {
      out.push_back(crossover(first, second, last_ordered->x, p.x, -order, false));
    }
    last_ordered = &p;
  }
  out.insert(out.end(), resolved.begin(), resolved.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const Crossover& a, const Crossover& b) { return a.low < b.low; });
  return out;
}

std::vector<Crossover> crossovers_in_calls(const std::vector<MeasuredTotal>& totals) {
  // Candidates of each case and params, in order of first appearance.
  using CaseKey = std::pair<std::string, Params>;
  std::vector<CaseKey> cases;
  std::map<CaseKey, std::vector<std::string>> implementations;
  // Each candidate's samples by setting and N.
  std::map<std::pair<RowKey, PhaseSetting>, std::map<int, std::vector<double>>> samples;
  for (const MeasuredTotal& m : totals) {
    if (m.calls < 1 || m.samples_ns.empty()) continue;
    const CaseKey key{m.row.case_name, m.row.params};
    auto [it, fresh] = implementations.try_emplace(key);
    if (fresh) cases.push_back(key);
    if (std::find(it->second.begin(), it->second.end(), m.row.implementation) == it->second.end()) {
      it->second.push_back(m.row.implementation);
    }
    std::vector<double>& v = samples[{m.row, m.setting}][m.calls];
    for (const Nanos s : m.samples_ns) v.push_back(static_cast<double>(s));
  }

  std::vector<Crossover> out;
  for (const CaseKey& key : cases) {
    const std::vector<std::string>& impls = implementations[key];
    for (std::size_t i = 0; i < impls.size(); ++i) {
      for (std::size_t j = i + 1; j < impls.size(); ++j) {
        const RowKey a{key.first, key.second, impls[i]};
        const RowKey b{key.first, key.second, impls[j]};
        for (const PhaseSetting setting :
             {PhaseSetting::fresh_cold, PhaseSetting::fresh_cached, PhaseSetting::warm_process}) {
          const auto sa = samples.find({a, setting});
          const auto sb = samples.find({b, setting});
          if (sa == samples.end() || sb == samples.end()) continue;
          std::vector<AxisPoint> points;
          for (const auto& [calls, va] : sa->second) {
            const auto vb = sb->second.find(calls);
            if (vb == sb->second.end()) continue;
            AxisPoint p;
            p.x = calls;
            p.first_ns = quantile(va, 0.5);
            p.second_ns = quantile(vb->second, 0.5);
            // A total of no time is no measurement: the rule cannot decide it, and its order
            // would mean nothing.
            if (!(p.first_ns > 0) || !(p.second_ns > 0)) continue;
            // Every process a pass of the rule: each must be a time (a record's samples are
            // positive; a forged zero is no measurement, and decides nothing).
            const auto positive = [](const std::vector<double>& v) {
              return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
            };
            if (!positive(va) || !positive(vb->second)) {
              points.push_back(p);
              continue;
            }
            // Measured totals are wall clock: the host-clock rule decides which leads, each
            // fresh process a pass.
            const RatioVerdict v = compare_host_readings(va, vb->second);
            if (v.resolution == Resolution::directional_difference) {
              p.decided = v.speedup > 1 ? 1 : -1;
            }
            points.push_back(p);
          }
          if (points.size() < 2) continue;
          for (Crossover& c : find_crossovers(a, b, points)) {
            c.axis = kCallsAxis;
            c.setting = setting;
            c.statistic = Statistic::synchronized_wall_clock;
            out.push_back(std::move(c));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace gpumeter
