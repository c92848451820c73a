#pragma once
// Builds synthetic traces the way a backend would: each launch gets its own correlation id,
// mapped to the external id pushed around it.
#include <cstdint>
#include <string>

#include "gpumeter/backend/trace.hpp"

namespace gpumeter::testing {

class TraceBuilder {
 public:
  TraceBuilder() { trace_.dropped_records = 0; }

  // A launch under `external_id` whose device work spans [start, end].
  TraceBuilder& launch(std::uint64_t external_id, Nanos start, Nanos end,
                       ActivityKind kind = ActivityKind::kernel, std::string name = "k") {
    const std::uint64_t corr = next_correlation_++;
    trace_.external_id_of[corr] = external_id;
    add(corr, start, end, kind, std::move(name));
    return *this;
  }
  // Device work whose launch carried no external id (another thread).
  TraceBuilder& untagged(Nanos start, Nanos end, std::string name = "orphan") {
    add(next_correlation_++, start, end, ActivityKind::kernel, std::move(name));
    return *this;
  }
  // Several kernels under one launch (a graph launch).
  TraceBuilder& graph(std::uint64_t external_id, std::initializer_list<Interval> nodes) {
    const std::uint64_t corr = next_correlation_++;
    trace_.external_id_of[corr] = external_id;
    std::uint64_t node = 1;
    for (const Interval& iv : nodes) {
      add(corr, iv.start_ns, iv.end_ns, ActivityKind::kernel, "node");
      trace_.activities.back().graph_node = node++;
    }
    return *this;
  }
  TraceBuilder& dropped(std::optional<std::uint64_t> n) {
    trace_.dropped_records = n;
    return *this;
  }
  Trace build() const { return trace_; }

 private:
  void add(std::uint64_t corr, Nanos start, Nanos end, ActivityKind kind, std::string name) {
    Activity a;
    a.kind = kind;
    a.start_ns = start;
    a.end_ns = end;
    a.correlation_id = corr;
    a.name = std::move(name);
    trace_.activities.push_back(std::move(a));
  }
  Trace trace_;
  std::uint64_t next_correlation_ = 100;
};

}  // namespace gpumeter::testing
