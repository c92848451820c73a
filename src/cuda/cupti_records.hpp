#pragma once
// The one reading of a CUPTI activity buffer, shared by the in-process backend (cupti_session.cpp)
// and `gpumeter run`'s collector (src/collector). The collector links nothing of gpumeter's and is
// injected into someone else's program, so this is header-only and speaks CUPTI's types and the
// standard library's: each side maps a DeviceRecord to its own type. Two copies of these rules
// drifted once (the collector dropped peer copies).
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace gpumeter::cupti_records {

enum class DeviceKind { kernel, memcpy, memset };

// A kernel, copy or fill that CUPTI timed, in its own units (ns on the clock CUPTI was given).
struct DeviceRecord {
  DeviceKind kind = DeviceKind::kernel;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t correlation_id = 0;  // the call that put it on the device (a driver call's)
  // A copy's runtime call, which CUPTI names apart from correlation_id; 0 where the record has
  // none (kernels, fills, peer copies).
  std::uint64_t runtime_correlation_id = 0;
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::uint64_t graph_node = 0;
  std::string name;
};

// A traced runtime or driver API call, failed or not.
struct ApiRecord {
  bool runtime = true;  // runtime API domain, else driver
  CUpti_CallbackId cbid = 0;
  std::uint64_t correlation_id = 0;
  std::uint32_t return_value = 0;  // 0: the call succeeded
  std::uint64_t end_ns = 0;        // when the call returned
};

// A timestamp CUPTI could not collect reads 0, and an end before the start is corrupt: either way
// the reading is lost, never a zero-length one (T6). A zero-length interval is a reading.
constexpr bool timestamps_lost(std::uint64_t start, std::uint64_t end) {
  return start == 0 || end == 0 || end < start;
}

// Whether a runtime or driver API of this name can put work on the device (a kernel, a graph, a
// copy or a fill), so its calls are traced and its records labelled. One rule for the backend and
// the collector: the two lists once differed.
constexpr bool launches_device_work(std::string_view api_name) {
  const auto has = [api_name](std::string_view part) {
    return api_name.find(part) != std::string_view::npos;
  };
  if (has("HostFunc")) return false;  // runs on the host: no device record
  if (has("Graph"))
    return has("GraphLaunch");  // graph building carries Memcpy/Memset, launches nothing
  return has("Launch") || has("Memcpy") || has("Memset");
}

namespace detail {

template <typename Record>
DeviceRecord device_record(const Record& r, DeviceKind kind, std::string name) {
  DeviceRecord d;
  d.kind = kind;
  d.start_ns = r.start;
  d.end_ns = r.end;
  d.correlation_id = r.correlationId;
  d.device = r.deviceId;
  d.stream = r.streamId;
  d.graph_node = r.graphNodeId;
  d.name = std::move(name);
  return d;
}

// Hands a timed record to the visitor and an untimed one as lost.
template <typename Visitor>
void hand_over(DeviceRecord&& d, Visitor& visit) {
  if (timestamps_lost(d.start_ns, d.end_ns)) {
    visit.lost();
    return;
  }
  visit.device(std::move(d));
}

}  // namespace detail

// Walks one completed buffer, record by record through `next` (cuptiActivityGetNextRecord's
// signature: the collector's linked one, the backend's loaded one, a test's fake), and calls on
// `visit`:
//   device(DeviceRecord&&)  a kernel (either kernel kind), a copy, a peer copy or a fill, timed;
//   lost()                  one such record untimed, or the buffer cut short (once: what
//                           follows an invalid record is gone);
//   external(correlation_id, external_id)  an external-correlation record of `ours` (another
//                           kind is the user's code or another profiler labelling its own work);
//   api_call(const ApiRecord&)  a runtime or driver API record.
// Every other kind is skipped.
template <typename Next, typename Visitor>
void decode_activity_buffer(Next&& next, std::uint8_t* buffer, std::size_t valid,
                            CUpti_ExternalCorrelationKind ours, Visitor& visit) {
  CUpti_Activity* record = nullptr;
  for (;;) {
    const CUptiResult r = next(buffer, valid, &record);
    if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) return;
    if (r != CUPTI_SUCCESS) {
      visit.lost();  // an invalid record ends the buffer: what follows is gone
      return;
    }
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        detail::hand_over(
            detail::device_record(*k, DeviceKind::kernel, k->name != nullptr ? k->name : ""),
            visit);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        DeviceRecord d = detail::device_record(*m, DeviceKind::memcpy,
                                               "memcpy " + std::to_string(m->bytes) + " B");
        d.runtime_correlation_id = m->runtimeCorrelationId;
        detail::hand_over(std::move(d), visit);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        // Peer-to-peer copies come only as this record, never as MEMCPY. correlationId is the
        // driver call's, as for MEMCPY, and there is no runtime id. deviceId is the device the
        // copy ran on (CUPTI: "where the memory copy is occurring"), which the wrong-device
        // check (P3) must see; the name carries both ends.
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        detail::hand_over(detail::device_record(*m, DeviceKind::memcpy,
                                                "peer memcpy " + std::to_string(m->bytes) +
                                                    " B (device " + std::to_string(m->srcDeviceId) +
                                                    " to " + std::to_string(m->dstDeviceId) + ")"),
                          visit);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        detail::hand_over(detail::device_record(*m, DeviceKind::memset,
                                                "memset " + std::to_string(m->bytes) + " B"),
                          visit);
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (e->externalKind == ours) visit.external(e->correlationId, e->externalId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* call = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        visit.api_call(ApiRecord{record->kind == CUPTI_ACTIVITY_KIND_RUNTIME, call->cbid,
                                 call->correlationId, call->returnValue, call->end});
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace gpumeter::cupti_records
