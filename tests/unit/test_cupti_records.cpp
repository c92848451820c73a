// The one CUPTI activity-buffer decoder (src/cuda/cupti_records.hpp), which the in-process
// backend and `gpumeter run`'s collector share. Records are built in memory in CUPTI's own
// layouts and handed out by a fake of cuptiActivityGetNextRecord, so neither libcupti nor a GPU
// is needed: only CUPTI's headers.
#include "cupti_records.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpumeter::cupti_records {
namespace GPUMETER_THIS_FILE {

// A completed buffer as cuptiActivityGetNextRecord walks it: records in order, or an error where
// CUPTI would find an invalid record, then CUPTI_ERROR_MAX_LIMIT_REACHED at the end.
class FakeBuffer {
 public:
  // A zeroed record of `kind`, as CUPTI's zeroed buffers hold them.
  template <typename Record>
  Record& add(CUpti_ActivityKind kind) {
    auto owned = std::make_shared<Record>();
    owned->kind = kind;
    steps_.push_back(Step{reinterpret_cast<CUpti_Activity*>(owned.get()), CUPTI_SUCCESS});
    storage_.push_back(owned);
    return *owned;
  }
  void fail(CUptiResult error) { steps_.push_back(Step{nullptr, error}); }

  // cuptiActivityGetNextRecord's signature; checks it is handed the buffer being decoded.
  auto next() {
    return [this](std::uint8_t* buffer, std::size_t valid, CUpti_Activity** record) {
      EXPECT_EQ(buffer, bytes());
      EXPECT_EQ(valid, kValid);
      ++calls_;
      if (at_ >= steps_.size()) return CUPTI_ERROR_MAX_LIMIT_REACHED;
      const Step& s = steps_[at_++];
      if (s.result == CUPTI_SUCCESS) *record = s.record;
      return s.result;
    };
  }
  std::uint8_t* bytes() { return bytes_; }
  std::size_t calls() const { return calls_; }

  static constexpr std::size_t kValid = 4096;

 private:
  struct Step {
    CUpti_Activity* record;
    CUptiResult result;
  };
  std::vector<Step> steps_;
  std::vector<std::shared_ptr<void>> storage_;
  std::size_t at_ = 0;
  std::size_t calls_ = 0;
  std::uint8_t bytes_[8] = {};
};

// What the decoder handed over, in order.
struct Visitor {
  std::vector<DeviceRecord> devices;
  std::size_t n_lost = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> externals;
  std::vector<ApiRecord> apis;

  void device(DeviceRecord&& d) { devices.push_back(std::move(d)); }
  void lost() { ++n_lost; }
  void external(std::uint64_t correlation_id, std::uint64_t external_id) {
    externals.emplace_back(correlation_id, external_id);
  }
  void api_call(const ApiRecord& a) { apis.push_back(a); }
};

Visitor decode(FakeBuffer& b,
               CUpti_ExternalCorrelationKind ours = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2) {
  Visitor v;
  decode_activity_buffer(b.next(), b.bytes(), FakeBuffer::kValid, ours, v);
  return v;
}

template <typename Record>
Record& add_timed(FakeBuffer& b, CUpti_ActivityKind kind, std::uint64_t start, std::uint64_t end,
                  std::uint32_t correlation) {
  Record& r = b.add<Record>(kind);
  r.start = start;
  r.end = end;
  r.correlationId = correlation;
  return r;
}

TEST(CuptiRecordsTest, KernelsCopiesAndFillsBecomeDeviceRecords) {
  FakeBuffer b;
  auto& k =
      add_timed<CUpti_ActivityKernel10>(b, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1000, 3000, 7);
  k.deviceId = 2;
  k.streamId = 13;
  k.graphNodeId = 42;
  k.name = "spin_kernel";
  // The serializing kind is read the same way; a kernel without a name is named "".
  add_timed<CUpti_ActivityKernel10>(b, CUPTI_ACTIVITY_KIND_KERNEL, 3000, 4000, 8);
  auto& copy = add_timed<CUpti_ActivityMemcpy6>(b, CUPTI_ACTIVITY_KIND_MEMCPY, 5000, 6000, 20);
  copy.bytes = 64;
  copy.runtimeCorrelationId = 21;
  copy.streamId = 3;
  auto& fill = add_timed<CUpti_ActivityMemset4>(b, CUPTI_ACTIVITY_KIND_MEMSET, 7000, 7100, 30);
  fill.bytes = 128;
  fill.deviceId = 1;
  fill.graphNodeId = 9;

  const Visitor v = decode(b);
  EXPECT_EQ(v.n_lost, 0u);
  ASSERT_EQ(v.devices.size(), 4u);
  const DeviceRecord& a = v.devices[0];
  EXPECT_EQ(a.kind, DeviceKind::kernel);
  EXPECT_EQ(a.start_ns, 1000u);
  EXPECT_EQ(a.end_ns, 3000u);
  EXPECT_EQ(a.correlation_id, 7u);
  EXPECT_EQ(a.runtime_correlation_id, 0u);
  EXPECT_EQ(a.device, 2u);
  EXPECT_EQ(a.stream, 13u);
  EXPECT_EQ(a.graph_node, 42u);
  EXPECT_EQ(a.name, "spin_kernel");
  EXPECT_EQ(v.devices[1].kind, DeviceKind::kernel);
  EXPECT_EQ(v.devices[1].correlation_id, 8u);
  EXPECT_EQ(v.devices[1].name, "");
  EXPECT_EQ(v.devices[2].kind, DeviceKind::memcpy);
  EXPECT_EQ(v.devices[2].name, "memcpy 64 B");
  EXPECT_EQ(v.devices[2].correlation_id, 20u);
  EXPECT_EQ(v.devices[2].runtime_correlation_id, 21u) << "the copy's runtime call, kept apart";
  EXPECT_EQ(v.devices[2].stream, 3u);
  EXPECT_EQ(v.devices[3].kind, DeviceKind::memset);
  EXPECT_EQ(v.devices[3].name, "memset 128 B");
  EXPECT_EQ(v.devices[3].device, 1u);
  EXPECT_EQ(v.devices[3].graph_node, 9u);
  EXPECT_EQ(v.devices[3].end_ns - v.devices[3].start_ns, 100u);
  EXPECT_TRUE(v.externals.empty());
  EXPECT_TRUE(v.apis.empty());
}

// A peer copy comes as MEMCPY2 only: a copy on the device that ran it, named by both ends.
TEST(CuptiRecordsTest, PeerCopiesAreCopiesNamingBothDevices) {
  FakeBuffer b;
  auto& peer = add_timed<CUpti_ActivityMemcpyPtoP4>(b, CUPTI_ACTIVITY_KIND_MEMCPY2, 1000, 1500, 9);
  peer.bytes = 4096;
  peer.deviceId = 1;
  peer.srcDeviceId = 1;
  peer.dstDeviceId = 0;
  peer.streamId = 3;
  peer.graphNodeId = 5;
  const Visitor v = decode(b);
  EXPECT_EQ(v.n_lost, 0u);
  ASSERT_EQ(v.devices.size(), 1u);
  const DeviceRecord& a = v.devices[0];
  EXPECT_EQ(a.kind, DeviceKind::memcpy);
  EXPECT_EQ(a.name, "peer memcpy 4096 B (device 1 to 0)");
  EXPECT_EQ(a.correlation_id, 9u);
  EXPECT_EQ(a.runtime_correlation_id, 0u);
  EXPECT_EQ(a.device, 1u);
  EXPECT_EQ(a.stream, 3u);
  EXPECT_EQ(a.graph_node, 5u);
  EXPECT_EQ(a.end_ns - a.start_ns, 500u);
}

// Untimed (a zero timestamp) or corrupt (end before start): lost, never a zero-length reading,
// whatever the kind. A zero-length interval CUPTI did time is a reading.
TEST(CuptiRecordsTest, UntimedRecordsAreLostNeverZeroLength) {
  FakeBuffer b;
  const std::uint64_t bad[][2] = {{0, 500}, {500, 0}, {600, 500}, {0, 0}};
  for (const auto& t : bad) {
    add_timed<CUpti_ActivityKernel10>(b, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, t[0], t[1], 1);
    add_timed<CUpti_ActivityMemcpy6>(b, CUPTI_ACTIVITY_KIND_MEMCPY, t[0], t[1], 2);
    add_timed<CUpti_ActivityMemcpyPtoP4>(b, CUPTI_ACTIVITY_KIND_MEMCPY2, t[0], t[1], 3);
    add_timed<CUpti_ActivityMemset4>(b, CUPTI_ACTIVITY_KIND_MEMSET, t[0], t[1], 4);
  }
  add_timed<CUpti_ActivityKernel10>(b, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 500, 500, 5);
  const Visitor v = decode(b);
  EXPECT_EQ(v.n_lost, 16u);
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].correlation_id, 5u);
  EXPECT_EQ(v.devices[0].start_ns, 500u);
  EXPECT_EQ(v.devices[0].end_ns, 500u);
  EXPECT_FALSE(timestamps_lost(1, 1));
  EXPECT_TRUE(timestamps_lost(2, 1));
}

// Only our kind labels work: another kind is the user's code or another profiler's.
TEST(CuptiRecordsTest, ExternalIdsOfOurKindOnly) {
  FakeBuffer b;
  auto& ours = b.add<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  ours.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  ours.externalId = 4;
  ours.correlationId = 7;
  auto& theirs = b.add<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  theirs.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  theirs.externalId = 99;
  theirs.correlationId = 8;
  const Visitor v = decode(b);
  ASSERT_EQ(v.externals.size(), 1u);
  EXPECT_EQ(v.externals[0], std::make_pair(std::uint64_t{7}, std::uint64_t{4}));

  FakeBuffer again;
  again.add<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) = ours;
  again.add<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) = theirs;
  const Visitor other = decode(again, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
  ASSERT_EQ(other.externals.size(), 1u);
  EXPECT_EQ(other.externals[0], std::make_pair(std::uint64_t{8}, std::uint64_t{99}));
}

// API records are handed over failed or not, with their domain: a failed launch is kept (a
// wrapper may have swallowed its error).
TEST(CuptiRecordsTest, ApiRecordsAreHandedOverFailedOrNot) {
  FakeBuffer b;
  auto& failed = b.add<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  failed.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  failed.correlationId = 4;
  failed.returnValue = 98;
  failed.start = 10;
  failed.end = 20;
  auto& ok = b.add<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_DRIVER);
  ok.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  ok.correlationId = 5;
  ok.start = 30;
  ok.end = 40;
  const Visitor v = decode(b);
  EXPECT_TRUE(v.devices.empty());
  EXPECT_EQ(v.n_lost, 0u);
  ASSERT_EQ(v.apis.size(), 2u);
  EXPECT_TRUE(v.apis[0].runtime);
  EXPECT_EQ(v.apis[0].cbid, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  EXPECT_EQ(v.apis[0].correlation_id, 4u);
  EXPECT_EQ(v.apis[0].return_value, 98u);
  EXPECT_EQ(v.apis[0].end_ns, 20u);
  EXPECT_FALSE(v.apis[1].runtime);
  EXPECT_EQ(v.apis[1].cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  EXPECT_EQ(v.apis[1].return_value, 0u);
  EXPECT_EQ(v.apis[1].end_ns, 40u);
}

// CUPTI cannot step past an invalid record: what follows it is gone, counted as one lost, and the
// walk stops there. The end of a buffer is no loss.
TEST(CuptiRecordsTest, AnInvalidRecordEndsTheBufferWithOneLost) {
  FakeBuffer b;
  add_timed<CUpti_ActivityKernel10>(b, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 100, 200, 1);
  b.fail(CUPTI_ERROR_INVALID_KIND);
  add_timed<CUpti_ActivityKernel10>(b, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 300, 400, 2);
  add_timed<CUpti_ActivityMemset4>(b, CUPTI_ACTIVITY_KIND_MEMSET, 500, 0, 3);
  const Visitor v = decode(b);
  EXPECT_EQ(v.n_lost, 1u);
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.devices[0].correlation_id, 1u);
  EXPECT_EQ(b.calls(), 2u) << "no record is asked for after the invalid one";

  FakeBuffer whole;
  add_timed<CUpti_ActivityKernel10>(whole, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 100, 200, 1);
  const Visitor end = decode(whole);
  EXPECT_EQ(end.n_lost, 0u);
  EXPECT_EQ(end.devices.size(), 1u);
  EXPECT_EQ(whole.calls(), 2u);
}

// Kinds no side collects device work from are skipped, not lost.
TEST(CuptiRecordsTest, OtherKindsAreSkipped) {
  FakeBuffer b;
  b.add<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  b.add<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
  add_timed<CUpti_ActivityKernel10>(b, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 100, 200, 1);
  const Visitor v = decode(b);
  EXPECT_EQ(v.n_lost, 0u);
  EXPECT_EQ(v.devices.size(), 1u);
  EXPECT_TRUE(v.externals.empty());
  EXPECT_TRUE(v.apis.empty());
}

// Which calls are traced, one rule for the backend and the collector: launches, copies and fills
// (runtime and driver spellings), a graph's launch, never a host function or graph building.
TEST(CuptiRecordsTest, TheCallsThatPutWorkOnTheDeviceAreOneList) {
  for (const char* api :
       {"cudaLaunchKernel", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel_ptsz",
        "cudaGraphLaunch", "cuGraphLaunch", "cudaMemcpyAsync", "cuMemcpyHtoD_v2", "cudaMemsetAsync",
        "cuMemsetD32_v2"}) {
    EXPECT_TRUE(launches_device_work(api)) << api;
  }
  for (const char* api :
       {"cudaLaunchHostFunc", "cuLaunchHostFunc", "cudaGraphAddMemcpyNode", "cuGraphAddMemsetNode",
        "cudaGraphInstantiate", "cudaMalloc", "cudaStreamSynchronize", ""}) {
    EXPECT_FALSE(launches_device_work(api)) << api;
  }
  static_assert(launches_device_work("cudaLaunchKernel"));  // usable where the collector needs it
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter::cupti_records
