#include "gpumeter/detail/growth.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/row.hpp"

namespace gpumeter {
namespace {

// The smallest mean squared log10 residual the criterion tells apart: an rms residual of 1e-4
// (a 0.02% miss) is finer than any timing resolves, so fits better than it are ties, and the
// criterion's penalty then keeps the fewer regimes. It also keeps ln(SSE/n) finite for a fit
// that is exact.
constexpr double kResidualFloor = 1e-4 * 1e-4;

struct LineFit {
  double slope = 0;
  double sse = 0;
  double r_squared = 1;
  double max_residual = 0;
};

// Ordinary least squares of y on x over [begin, end); the caller guarantees two distinct x.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, std::size_t begin,
                 std::size_t end) {
  const auto n = static_cast<double>(end - begin);
  double mx = 0, my = 0;
  for (std::size_t i = begin; i < end; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = begin; i < end; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  LineFit f;
  f.slope = sxy / sxx;
  for (std::size_t i = begin; i < end; ++i) {
    const double r = y[i] - (my + f.slope * (x[i] - mx));
    f.sse += r * r;
    f.max_residual = std::max(f.max_residual, std::abs(r));
  }
  // Times all equal: the flat line explains them exactly.
  f.r_squared = syy > 0 ? std::clamp(1.0 - f.sse / syy, 0.0, 1.0) : 1.0;
  return f;
}

// Each regime [bounds[i], bounds[i + 1]) holds kMinRegimePoints or more points and two distinct
// sizes, and no size is split between two regimes.
bool valid_split(const std::vector<double>& x, const std::vector<std::size_t>& bounds) {
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    const std::size_t b = bounds[i], e = bounds[i + 1];
    if (e - b < static_cast<std::size_t>(kMinRegimePoints)) return false;
    if (x[b] == x[e - 1]) return false;
    if (b > 0 && x[b - 1] == x[b]) return false;
  }
  return true;
}

// The least-squares line of any stretch in constant time, from running sums of the points (each
// shifted by the whole sweep's mean, so the sums do not cancel): a split is judged without
// revisiting its points, which made the search cubic in the sizes (3,000 sizes took 35 s).
class StretchFits {
 public:
  StretchFits(const std::vector<double>& x, const std::vector<double>& y) {
    const auto n = static_cast<double>(x.size());
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
    sums_.resize(x.size() + 1);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double dx = x[i] - mx, dy = y[i] - my;
      const Sums& a = sums_[i];
      sums_[i + 1] = {a.x + dx, a.y + dy, a.xx + dx * dx, a.xy + dx * dy, a.yy + dy * dy};
    }
  }

  struct Fit {
    double slope = 0;
    double sse = 0;
  };

  Fit fit(std::size_t begin, std::size_t end) const {
    const Sums& a = sums_[begin];
    const Sums& b = sums_[end];
    const auto n = static_cast<double>(end - begin);
    const double sx = b.x - a.x, sy = b.y - a.y;
    const double cxx = (b.xx - a.xx) - sx * sx / n;
    const double cxy = (b.xy - a.xy) - sx * sy / n;
    const double cyy = (b.yy - a.yy) - sy * sy / n;
    Fit f;
    f.slope = cxy / cxx;
    f.sse = std::max(cyy - f.slope * cxy, 0.0);
    return f;
  }

 private:
  struct Sums {
    double x = 0, y = 0, xx = 0, xy = 0, yy = 0;
  };
  std::vector<Sums> sums_;
};

// The criterion of one split, or nullopt when the split is not one the rule allows (valid_split,
// adjacent exponents kMinExponentChange apart).
std::optional<double> criterion(const std::vector<double>& x, const StretchFits& fits,
                                const std::vector<std::size_t>& bounds) {
  if (!valid_split(x, bounds)) return std::nullopt;
  double sse = 0;
  double last_slope = 0;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    const StretchFits::Fit f = fits.fit(bounds[i], bounds[i + 1]);
    if (i > 0 && std::abs(f.slope - last_slope) < kMinExponentChange) return std::nullopt;
    last_slope = f.slope;
    sse += f.sse;
  }
  const auto n = static_cast<double>(x.size());
  const auto regimes = static_cast<double>(bounds.size() - 1);
  const double k = 2 * regimes + (regimes - 1);
  return n * std::log(std::max(sse / n, kResidualFloor)) + k * std::log(n);
}

bool positive_finite(double v) {
  return std::isfinite(v) && v > 0;
}

// A param's value as a number: the whole text one (NaN, 0 and negatives included), else nullopt.
// A number that is not a finite positive one is no size.
std::optional<double> parse_number(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// Whether a row can stand on a sweep: not a reversed-order re-measurement, its null test not
// failed (P6: its time may not be its work's), samples and a positive median.
bool usable(const Result& r) {
  if (r.row.params.count(kReversedOrderParam) != 0) return false;
  if (r.null_test_failed()) return false;
  if (r.measurement.samples.empty() || r.summary.n_samples == 0) return false;
  return positive_finite(r.summary.device_busy.median_ns);
}

// The record's comparisons by their two rows, looked up once per point rather than searched.
using ComparisonIndex = std::map<std::pair<RowKey, RowKey>, const Comparison*>;

ComparisonIndex index_comparisons(const std::vector<Comparison>& comparisons) {
  ComparisonIndex index;
  for (const Comparison& c : comparisons) index.emplace(std::pair{c.baseline, c.candidate}, &c);
  return index;
}

// +1: the record found the candidate `b` decidedly faster than `a`; -1 decidedly slower; 0 when
// not compared, or no difference was found (or none above the 1.5x resolution, for wall clock).
int decided_by(const ComparisonIndex& comparisons, const RowKey& a, const RowKey& b) {
  for (const int sign : {1, -1}) {
    const auto it = comparisons.find(sign > 0 ? std::pair{a, b} : std::pair{b, a});
    if (it == comparisons.end()) continue;
    const Comparison& c = *it->second;
    if (!c.compared()) return 0;
    if (c.rule == ComparisonRule::resolution) {
      // P5: the 1.5x rule decides wall clock; the finer interval beside it does not.
      if (!c.ratio || c.ratio->resolution != Resolution::directional_difference) return 0;
      return c.ratio->speedup > 1 ? sign : -sign;
    }
    if (!c.difference || !c.difference->found()) return 0;
    return c.difference->faster() ? sign : -sign;
  }
  return 0;
}

// One implementation's rows of one case along one axis, the other params equal.
struct Group {
  RowKey row;  // params without the axis
  std::vector<std::pair<double, const Result*>> points;
  bool numeric = true;
  std::vector<const Result*> not_sizes;  // rows whose value is a number but no size
};

// Sizes ascending, and whether the group can be fitted: every value a size, one statistic, and
// no size twice.
bool settle(Group& g) {
  std::sort(g.points.begin(), g.points.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!g.numeric || g.points.empty()) return false;
  const Statistic s = statistic_of(g.points.front().second->measurement.method);
  for (std::size_t i = 0; i < g.points.size(); ++i) {
    if (statistic_of(g.points[i].second->measurement.method) != s) return false;
    if (i > 0 && g.points[i].first == g.points[i - 1].first) return false;
  }
  return true;
}

Statistic statistic_of_group(const Group& g) {
  return statistic_of(g.points.front().second->measurement.method);
}

}  // namespace

std::string growth_label(double exponent) {
  if (exponent < -kFlatExponentBelow) {
    return "decreasing: the time falls as the size grows (is the work the size says?)";
  }
  if (exponent < kFlatExponentBelow) return "flat: a fixed cost (launch, latency) dominates";
  if (exponent < kSublinearExponentBelow) return "sublinear: between fixed cost and throughput";
  if (exponent <= kLinearExponentAtMost) return "linear: throughput-bound (bandwidth or compute)";
  return "superlinear: the time grows faster than the size";
}

std::vector<GrowthRegime> fit_growth(const std::vector<double>& sizes,
                                     const std::vector<double>& times_ns) {
  if (sizes.size() != times_ns.size()) {
    throw std::invalid_argument("fit_growth: sizes and times of different lengths");
  }
  if (sizes.size() < 3) throw std::invalid_argument("fit_growth: fewer than 3 points");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!positive_finite(sizes[i]) || !positive_finite(times_ns[i])) {
      throw std::invalid_argument("fit_growth: a size or time that is not a positive number");
    }
  }
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
  std::vector<double> x, y, size;
  for (const std::size_t i : order) {
    size.push_back(sizes[i]);
    x.push_back(std::log10(sizes[i]));
    y.push_back(std::log10(times_ns[i]));
  }
  if (size.front() == size.back()) {
    throw std::invalid_argument("fit_growth: fewer than 2 distinct sizes");
  }

  // Every split into 1 and 2 regimes, and into 3 every pair of breakpoints up to
  // kExhaustiveGrowthPoints points; beyond, the pairs of a grid of about that many breakpoints,
  // then every pair around the best of them (a bounded search: linear in the points, where every
  // pair of 10,000 points would take seconds).
  const std::size_t n = x.size();
  const auto min = static_cast<std::size_t>(kMinRegimePoints);
  const StretchFits stretch(x, y);
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> best_bounds;
  const auto consider = [&](const std::vector<std::size_t>& bounds) {
    const std::optional<double> b = criterion(x, stretch, bounds);
    if (b && *b < best) {  // strictly: a tie keeps the fewer regimes, tried first
      best = *b;
      best_bounds = bounds;
    }
  };
  consider({0, n});
  if (kMaxGrowthRegimes >= 2) {
    for (std::size_t b = min; b + min <= n; ++b) consider({0, b, n});
  }
  if (kMaxGrowthRegimes >= 3 && n >= 3 * min) {
    const std::size_t step = std::max<std::size_t>(1, n / kExhaustiveGrowthPoints);
    // Pairs b1 < b2 from [lo1, hi1] and [lo2, hi2] on a step, each regime at least `min` long.
    const auto pairs = [&](std::size_t lo1, std::size_t hi1, std::size_t lo2, std::size_t hi2,
                           std::size_t by) {
      for (std::size_t b1 = std::max(lo1, min); b1 <= hi1 && b1 + 2 * min <= n; b1 += by) {
        for (std::size_t b2 = std::max(lo2, b1 + min); b2 <= hi2 && b2 + min <= n; b2 += by) {
          consider({0, b1, b2, n});
        }
      }
    };
    pairs(min, n, min, n, step);
    if (step > 1 && best_bounds.size() == 4) {
      const std::size_t b1 = best_bounds[1], b2 = best_bounds[2];
      pairs(b1 > step ? b1 - step : 0, b1 + step, b2 > step ? b2 - step : 0, b2 + step, 1);
    }
  }
  // The chosen split's regimes, fitted point by point: the figures a report states.
  std::vector<LineFit> best_fits;
  for (std::size_t i = 0; i + 1 < best_bounds.size(); ++i) {
    best_fits.push_back(fit_line(x, y, best_bounds[i], best_bounds[i + 1]));
  }

  std::vector<GrowthRegime> out;
  for (std::size_t i = 0; i < best_fits.size(); ++i) {
    const std::size_t b = best_bounds[i], e = best_bounds[i + 1];
    GrowthRegime g;
    g.low = size[b];
    g.high = size[e - 1];
    g.points = static_cast<int>(e - b);
    g.exponent = best_fits[i].slope;
    g.r_squared = best_fits[i].r_squared;
    g.max_residual = best_fits[i].max_residual;
    g.label = growth_label(g.exponent);
    out.push_back(std::move(g));
  }
  return out;
}

SweepAnalysis analyze_sweeps(const Record& record) {
  std::vector<const Result*> rows;
  for (const Result& r : record.results) {
    if (usable(r)) rows.push_back(&r);
  }
  // Every param name, in order of first appearance: each is tried as an axis.
  std::vector<std::string> names;
  for (const Result* r : rows) {
    for (const auto& [name, value] : r->row.params) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }

  const ComparisonIndex comparisons = index_comparisons(record.comparisons);
  SweepAnalysis out;
  for (const std::string& axis : names) {
    // Groups (case, implementation, other params) and slices (case, other params), each in
    // record order.
    std::vector<RowKey> group_order;
    std::map<RowKey, Group> groups;
    using SliceKey = std::pair<std::string, Params>;
    std::vector<SliceKey> slice_order;
    std::map<SliceKey, std::vector<std::string>> slices;  // implementations, first seen first
    for (const Result* r : rows) {
      const auto it = r->row.params.find(axis);
      if (it == r->row.params.end()) continue;
      RowKey key = r->row;
      key.params.erase(axis);
      auto [g, fresh] = groups.try_emplace(key);
      if (fresh) {
        g->second.row = key;
        group_order.push_back(key);
      }
      // A value that is a number but no size (NaN, 0, a negative) leaves its row out, by name;
      // the other sizes are still a sweep. A value that is no number makes the param no axis.
      if (const std::optional<double> number = parse_number(it->second)) {
        if (positive_finite(*number)) {
          g->second.points.emplace_back(*number, r);
        } else {
          g->second.not_sizes.push_back(r);
        }
      } else {
        g->second.numeric = false;
      }
      const SliceKey slice{key.case_name, key.params};
      auto [s, new_slice] = slices.try_emplace(slice);
      if (new_slice) slice_order.push_back(slice);
      if (std::find(s->second.begin(), s->second.end(), key.implementation) == s->second.end()) {
        s->second.push_back(key.implementation);
      }
    }
    std::map<RowKey, bool> fittable;
    for (const RowKey& key : group_order) {
      Group& g = groups[key];
      fittable[key] = settle(g);
      if (!g.numeric) continue;
      for (const Result* r : g.not_sizes) {
        out.left_out.push_back(row_label(r->row) + ": " + axis + "=" + r->row.params.at(axis) +
                               " is not a size (a finite positive number), so the row is left "
                               "out of the sweep over " +
                               axis);
      }
    }

    bool found = false;
    for (const RowKey& key : group_order) {
      const Group& g = groups[key];
      if (!fittable[key] || g.points.size() < 3) continue;
      Growth growth;
      growth.row = g.row;
      growth.axis = axis;
      growth.statistic = statistic_of_group(g);
      for (const auto& [size, r] : g.points) {
        growth.sizes.push_back(size);
        growth.median_ns.push_back(r->summary.device_busy.median_ns);
      }
      growth.regimes = fit_growth(growth.sizes, growth.median_ns);
      out.growth.push_back(std::move(growth));
      found = true;
    }

    for (const SliceKey& slice : slice_order) {
      const std::vector<std::string>& impls = slices[slice];
      std::set<double> sizes;
      for (const std::string& impl : impls) {
        const RowKey key{slice.first, slice.second, impl};
        if (!fittable[key]) continue;
        for (const auto& p : groups[key].points) sizes.insert(p.first);
      }
      if (sizes.size() < 3) continue;
      found = true;
      const RowKey first{slice.first, slice.second, impls.front()};
      if (!fittable[first]) continue;
      const Group& a = groups[first];
      for (std::size_t j = 1; j < impls.size(); ++j) {
        const RowKey second{slice.first, slice.second, impls[j]};
        if (!fittable[second]) continue;
        const Group& b = groups[second];
        if (statistic_of_group(a) != statistic_of_group(b)) continue;
        std::vector<AxisPoint> points;
        for (const auto& [size, ra] : a.points) {
          // A copy: a structured binding cannot be captured before C++20's later compilers.
          const double at = size;
          const auto rb = std::lower_bound(b.points.begin(), b.points.end(), at,
                                           [](const auto& p, double v) { return p.first < v; });
          if (rb == b.points.end() || rb->first != at) continue;
          AxisPoint p;
          p.x = size;
          p.first_ns = ra->summary.device_busy.median_ns;
          p.second_ns = rb->second->summary.device_busy.median_ns;
          p.decided = decided_by(comparisons, ra->row, rb->second->row);
          points.push_back(p);
        }
        if (points.size() < 2) continue;
        for (Crossover& c : find_crossovers(first, second, points)) {
          c.axis = axis;
          c.statistic = statistic_of_group(a);
          out.crossovers.push_back(std::move(c));
        }
      }
    }
    if (found) out.axes.push_back(axis);
  }
  return out;
}

}  // namespace gpumeter
