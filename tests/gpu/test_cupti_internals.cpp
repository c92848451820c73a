// The CUPTI plumbing that needs no GPU: loading libcupti (and failing to, by name), which API
// records a phase keeps, and reading activity buffers into activities and external ids. The
// buffers are built by hand in CUPTI's own record layout and read with CUPTI's own iterator.
#include <gtest/gtest.h>
#include <cstddef>
#include <cstdint>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "attribute.hpp"
#include "backends.hpp"
#include "cupti_api.hpp"
#include "cupti_session.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/ranges.hpp"

namespace gpumeter::cuda {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Loads the library the backend would load; skips, saying why, where there is none.
CuptiApi load_or_skip(bool& skipped) {
  skipped = false;
  try {
    return load_cupti_api();
  } catch (const CuptiUnavailable&) {
    skipped = true;
    return {};
  }
}

TEST(CuptiLoaderTest, LoadsTheToolkitsLibraryWithAMatchingVersion) {
  bool skipped = false;
  const CuptiApi api = load_or_skip(skipped);
  if (skipped) GTEST_SKIP() << "no libcupti on this machine";
  EXPECT_FALSE(api.library.empty());
  EXPECT_EQ(api.version / 10000, static_cast<std::uint32_t>(CUPTI_API_VERSION / 10000));
  EXPECT_EQ(api.result_text(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
            "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
}

TEST(CuptiLoaderTest, MissingLibraryIsCuptiUnavailableNamingTheFile) {
  const char* before = std::getenv(kCuptiLibraryEnv);
  const std::string saved = before != nullptr ? before : "";
  setenv(kCuptiLibraryEnv, "/nonexistent/dir/libcupti.so.13", 1);
  try {
    (void)load_cupti_api();
    ADD_FAILURE() << "expected CuptiUnavailable";
  } catch (const CuptiUnavailable& e) {
    EXPECT_TRUE(contains(e.what(), "libcupti cannot be loaded")) << e.what();
    EXPECT_TRUE(contains(e.what(), "/nonexistent/dir/libcupti.so.13")) << e.what();
    EXPECT_TRUE(contains(e.what(), kCuptiLibraryEnv)) << e.what();
  }
  if (before != nullptr) {
    setenv(kCuptiLibraryEnv, saved.c_str(), 1);
  } else {
    unsetenv(kCuptiLibraryEnv);
  }
}

TEST(LaunchApiFilterTest, KeepsLaunchesCopiesAndFillsOnly) {
  for (const char* kept :
       {"cudaLaunchKernel_v7000", "__cudaLaunchKernel_v13000", "cudaLaunchKernelExC_v11060",
        "cudaLaunchCooperativeKernel_v9000", "cudaGraphLaunch_v10000", "cudaMemcpyAsync_v3020",
        "cudaMemsetAsync_ptsz_v7000", "cuLaunchKernel", "cuLaunchKernelEx", "cuGraphLaunch_ptsz",
        "cuMemcpyDtoDAsync_v2", "cuMemsetD8Async", "cudaCtxResetPersistingL2Cache_v11000"}) {
    EXPECT_TRUE(is_launch_type_api(kept)) << kept;
  }
  for (const char* dropped :
       {"cudaMalloc_v3020", "cudaFree_v3020", "cudaEventRecord_v3020",
        "cudaStreamSynchronize_v3020", "cudaDeviceSynchronize_v3020", "cudaSetDevice_v3020",
        "cudaLaunchHostFunc_v10000", "cuLaunchHostFunc", "cudaGraphAddMemcpyNode_v10000",
        "cudaGraphExecMemsetNodeSetParams_v10020", "cuGraphInstantiateWithFlags", "cuCtxGetCurrent",
        "cudaGetLastError_v3020"}) {
    EXPECT_FALSE(is_launch_type_api(dropped)) << dropped;
  }
}

TEST(LaunchApiFilterTest, TheCollectionCheckCountsTheCoresKernelLaunchesButMultiDevice) {
  for (const char* counted :
       {"cudaLaunchKernel_v7000", "__cudaLaunchKernel_ptsz_v13000", "cudaLaunchKernelExC_v11060",
        "cudaLaunchCooperativeKernel_v9000", "cuLaunchKernel_ptsz", "cuLaunchKernelEx",
        "cuLaunchCooperativeKernel"}) {
    EXPECT_TRUE(is_collection_checked_kernel_launch(counted)) << counted;
    EXPECT_TRUE(is_kernel_launch_api(counted)) << counted;
  }
  // Kernel launches by the core's rule, left out of the count (see the definition).
  for (const char* multi :
       {"cudaLaunchCooperativeKernelMultiDevice_v9000", "cuLaunchCooperativeKernelMultiDevice"}) {
    EXPECT_FALSE(is_collection_checked_kernel_launch(multi)) << multi;
    EXPECT_TRUE(is_kernel_launch_api(multi)) << multi;
  }
  for (const char* other : {"cudaGraphLaunch_v10000", "cuGraphLaunch_ptsz", "cudaMemcpyAsync_v3020",
                            "cudaLaunchHostFunc_v10000", "cudaMalloc_v3020"}) {
    EXPECT_FALSE(is_collection_checked_kernel_launch(other)) << other;
  }
}

TEST(LaunchApiFilterTest, OnCuptisOwnNameTableTheRequiredLaunchesAreKept) {
  bool skipped = false;
  const CuptiApi api = load_or_skip(skipped);
  if (skipped) GTEST_SKIP() << "no libcupti on this machine";
  std::set<std::string> kept;
  std::size_t named = 0;
  for (const bool runtime : {true, false}) {
    const CUpti_CallbackDomain domain =
        runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const auto size = runtime ? static_cast<CUpti_CallbackId>(CUPTI_RUNTIME_TRACE_CBID_SIZE)
                              : static_cast<CUpti_CallbackId>(CUPTI_DRIVER_TRACE_CBID_SIZE);
    for (CUpti_CallbackId cbid = 1; cbid < size; ++cbid) {
      const char* name = nullptr;
      if (api.GetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
      ++named;
      if (is_launch_type_api(name)) kept.insert(name);
    }
  }
  EXPECT_GT(named, 1000u);
  for (const char* required :
       {"cudaLaunchKernel_v7000", "__cudaLaunchKernel_v13000", "cudaGraphLaunch_v10000",
        "cudaMemcpyAsync_v3020", "cudaMemsetAsync_v3020", "cuLaunchKernel", "cuLaunchKernelEx",
        "cuGraphLaunch"}) {
    EXPECT_EQ(kept.count(required), 1u) << required;
  }
  // Every other API stays off (T2): a fifth or less of the table is launch-type.
  EXPECT_LT(kept.size() * 5, named);
  EXPECT_EQ(kept.count("cudaMalloc_v3020"), 0u);
  EXPECT_EQ(kept.count("cudaEventRecord_v3020"), 0u);
}

// A buffer of hand-made records in CUPTI's layout.
class RecordBuffer {
 public:
  template <typename Record>
  Record& add() {
    const std::size_t at = used_;
    used_ += sizeof(Record);
    if (used_ > sizeof(bytes_)) throw std::length_error("test buffer too small");
    return *reinterpret_cast<Record*>(bytes_ + at);
  }
  std::uint8_t* data() { return bytes_; }
  std::size_t used() const { return used_; }

 private:
  alignas(8) std::uint8_t bytes_[4096] = {};
  std::size_t used_ = 0;
};

TEST(ActivityBufferTest, KernelsCopiesFillsAndOurExternalIdsOnly) {
  bool skipped = false;
  const CuptiApi api = load_or_skip(skipped);
  if (skipped) GTEST_SKIP() << "no libcupti on this machine";
  RecordBuffer b;
  auto& k = b.add<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 3000;
  k.correlationId = 7;
  k.deviceId = 0;
  k.streamId = 13;
  k.graphNodeId = 42;
  k.name = "spin_kernel";
  auto& ours = b.add<CUpti_ActivityExternalCorrelation>();
  ours.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  ours.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  ours.externalId = 4;
  ours.correlationId = 7;
  auto& theirs = b.add<CUpti_ActivityExternalCorrelation>();  // e.g. PyTorch's profiler
  theirs.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  theirs.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  theirs.externalId = 99;
  theirs.correlationId = 8;
  auto& untimed = b.add<CUpti_ActivityKernel10>();  // timestamps not collected: a lost reading
  untimed.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  untimed.correlationId = 8;
  auto& copy = b.add<CUpti_ActivityMemcpy6>();
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.start = 5000;
  copy.end = 6000;
  copy.bytes = 64;
  copy.correlationId = 20;
  copy.runtimeCorrelationId = 21;
  auto& prepare = b.add<CUpti_ActivityExternalCorrelation>();
  prepare.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  prepare.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  prepare.externalId = kPrepareId;
  prepare.correlationId = 21;
  auto& fill = b.add<CUpti_ActivityMemset4>();
  fill.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  fill.start = 7000;
  fill.end = 7100;
  fill.bytes = 128;
  fill.correlationId = 30;
  auto& api_record = b.add<CUpti_ActivityAPI>();  // collected only for the correlations
  api_record.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api_record.correlationId = 7;

  PhaseRecords r;
  parse_activity_buffer(api, b.data(), b.used(), CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, r);
  resolve_copy_ids(r);

  ASSERT_EQ(r.activities.size(), 3u);
  EXPECT_EQ(r.known_lost, 1u);
  const Activity& a = r.activities[0];
  EXPECT_EQ(a.kind, ActivityKind::kernel);
  EXPECT_EQ(a.start_ns, 1000);
  EXPECT_EQ(a.end_ns, 3000);
  EXPECT_EQ(a.correlation_id, 7u);
  EXPECT_EQ(a.stream, 13u);
  EXPECT_EQ(a.graph_node, 42u);
  EXPECT_EQ(a.name, "spin_kernel");
  EXPECT_EQ(r.activities[1].kind, ActivityKind::memcpy);
  EXPECT_EQ(r.activities[1].correlation_id, 21u) << "the runtime call's id, which was labelled";
  EXPECT_EQ(r.activities[2].kind, ActivityKind::memset);
  EXPECT_EQ(r.activities[2].end_ns - r.activities[2].start_ns, 100);
  ASSERT_EQ(r.external_id_of.size(), 2u);
  EXPECT_EQ(r.external_id_of.at(7), 4u);
  EXPECT_EQ(r.external_id_of.at(21), kPrepareId);
  EXPECT_EQ(r.external_id_of.count(8), 0u) << "another kind's id must not label our work";
}

TEST(ActivityBufferTest, CopyKeepsItsDriverIdWhenThatOneIsLabelled) {
  bool skipped = false;
  const CuptiApi api = load_or_skip(skipped);
  if (skipped) GTEST_SKIP() << "no libcupti on this machine";
  RecordBuffer b;
  auto& copy = b.add<CUpti_ActivityMemcpy6>();
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.start = 1;
  copy.end = 2;
  copy.correlationId = 20;
  copy.runtimeCorrelationId = 21;
  auto& label = b.add<CUpti_ActivityExternalCorrelation>();
  label.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  label.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
  label.externalId = 3;
  label.correlationId = 20;
  PhaseRecords r;
  parse_activity_buffer(api, b.data(), b.used(), CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, r);
  resolve_copy_ids(r);
  ASSERT_EQ(r.activities.size(), 1u);
  EXPECT_EQ(r.activities[0].correlation_id, 20u);
}

// Tags: this phase's ids become their iteration number or their harness role's id; another
// phase's, the guard, untagged ids of our kind and an untagged PREPARE id (which anyone could push)
// become an orphan the core refuses.
TEST(ExternalIdTest, OurTagIsTheIterationEverythingElseOfOurKindIsAnOrphan) {
  constexpr std::uint32_t kTag = 5;
  PhaseRecords r;
  for (std::uint64_t corr = 1; corr <= 10; ++corr) {
    Activity a;
    a.correlation_id = corr;
    a.start_ns = 100;
    a.end_ns = 200;
    a.name = "k" + std::to_string(corr);
    r.activities.push_back(a);
  }
  r.external_id_of[1] = tagged_id(kTag, 1);
  r.external_id_of[2] = tagged_id(kTag + 1, 1);  // an earlier phase's (or a retry's) iteration 1
  r.external_id_of[3] = 1;                       // the user's own id 1 under our kind
  r.external_id_of[4] = kPrepareId;
  r.external_id_of[5] = tagged_id(kTag, kGuardLow);
  r.external_id_of[6] = tagged_id(kTag, 0);
  r.external_id_of[7] = tagged_id(kTag, harness_low(HarnessRole::own));
  r.external_id_of[8] = tagged_id(kTag, harness_low(HarnessRole::inputs));
  r.external_id_of[9] = tagged_id(kTag, harness_low(HarnessRole::check));
  r.external_id_of[10] = tagged_id(kTag + 1, harness_low(HarnessRole::check));
  translate_external_ids(r, kTag);
  EXPECT_EQ(r.external_id_of.at(1), 1u);
  EXPECT_EQ(r.external_id_of.at(2), kForeignId);
  EXPECT_EQ(r.external_id_of.at(3), kForeignId);
  EXPECT_EQ(r.external_id_of.at(4), kForeignId);
  EXPECT_EQ(r.external_id_of.at(5), kForeignId);
  EXPECT_EQ(r.external_id_of.at(6), 0u);
  EXPECT_EQ(r.external_id_of.at(7), kPrepareId);
  EXPECT_EQ(r.external_id_of.at(8), kInputsId);
  EXPECT_EQ(r.external_id_of.at(9), kCheckId);
  EXPECT_EQ(r.external_id_of.at(10), kForeignId);
  EXPECT_EQ(r.untagged_activities, 1u);
  EXPECT_EQ(r.untagged_example_id, 1u);
  EXPECT_EQ(r.untagged_example_name, "k3");
  EXPECT_EQ(tagged_id(kTag, 7) & kIterationMask, 7u) << "low bits equal the iteration number";

  // The untagged id names the kind and the option to change (no requirement id).
  try {
    check_phase_records(CuptiApi{}, r, 2, CorrelationKind::custom2);
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_FALSE(contains(e.what(), "T12")) << e.what();
    EXPECT_TRUE(contains(e.what(), "CUSTOM2")) << e.what();
    EXPECT_TRUE(contains(e.what(), "correlation_kind")) << e.what();
  }

  // What the core makes of the rest: every foreign id is an orphan, never an iteration.
  Trace t;
  t.activities = r.activities;
  t.external_id_of = r.external_id_of;
  t.dropped_records = 0;
  try {
    (void)attribute(t, 2);
    ADD_FAILURE() << "expected OffThreadLaunch";
  } catch (const OffThreadLaunch& e) {
    EXPECT_EQ(e.n_orphans(), 5u);
  }
  t.activities = {r.activities[0], r.activities[6], r.activities[5]};
  const std::vector<Sample> samples = attribute(t, 2);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].n_kernels, 1);
  EXPECT_EQ(samples[1].n_kernels, 1);
}

TEST(ActivityBufferTest, BadTimestampsAreLostReadings) {
  bool skipped = false;
  const CuptiApi api = load_or_skip(skipped);
  if (skipped) GTEST_SKIP() << "no libcupti on this machine";
  RecordBuffer b;
  const std::uint64_t bad[][2] = {{0, 500}, {500, 0}, {600, 500}};
  for (const auto& t : bad) {
    auto& k = b.add<CUpti_ActivityKernel10>();
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = t[0];
    k.end = t[1];
    k.correlationId = 1;
  }
  auto& copy = b.add<CUpti_ActivityMemcpy6>();
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.start = 900;
  copy.end = 800;
  auto& peer = b.add<CUpti_ActivityMemcpyPtoP4>();
  peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  peer.start = 900;
  auto& fill = b.add<CUpti_ActivityMemset4>();
  fill.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  fill.end = 800;
  auto& good = b.add<CUpti_ActivityKernel10>();
  good.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  good.start = 500;
  good.end = 500;  // zero length is a reading, not a loss
  PhaseRecords r;
  parse_activity_buffer(api, b.data(), b.used(), CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, r);
  EXPECT_EQ(r.known_lost, 6u);
  ASSERT_EQ(r.activities.size(), 1u);
  EXPECT_EQ(r.activities[0].start_ns, 500);
}

TEST(ActivityBufferTest, PeerCopiesAreCopiesOnTheDeviceThatRanThem) {
  bool skipped = false;
  const CuptiApi api = load_or_skip(skipped);
  if (skipped) GTEST_SKIP() << "no libcupti on this machine";
  RecordBuffer b;
  auto& peer = b.add<CUpti_ActivityMemcpyPtoP4>();
  peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  peer.start = 1000;
  peer.end = 1500;
  peer.bytes = 4096;
  peer.correlationId = 9;
  peer.deviceId = 1;
  peer.srcDeviceId = 1;
  peer.dstDeviceId = 0;
  peer.streamId = 3;
  peer.graphNodeId = 5;
  PhaseRecords r;
  parse_activity_buffer(api, b.data(), b.used(), CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, r);
  EXPECT_EQ(r.known_lost, 0u);
  ASSERT_EQ(r.activities.size(), 1u);
  const Activity& a = r.activities[0];
  EXPECT_EQ(a.kind, ActivityKind::memcpy);
  EXPECT_EQ(a.correlation_id, 9u);
  EXPECT_EQ(a.device, 1u);
  EXPECT_EQ(a.stream, 3u);
  EXPECT_EQ(a.graph_node, 5u);
  EXPECT_EQ(a.end_ns - a.start_ns, 500);
  EXPECT_TRUE(contains(a.name, "4096")) << a.name;
}

TEST(ActivityBufferTest, AFailedLaunchOfAnIterationIsDeviceErrorNamingTheApi) {
  bool skipped = false;
  const CuptiApi api = load_or_skip(skipped);
  if (skipped) GTEST_SKIP() << "no libcupti on this machine";
  RecordBuffer b;
  const auto add_call = [&b](CUpti_ActivityKind kind, CUpti_CallbackId cbid, std::uint32_t corr,
                             std::uint32_t result) {
    auto& call = b.add<CUpti_ActivityAPI>();
    call.kind = kind;
    call.cbid = cbid;
    call.start = 1;
    call.end = 2;
    call.correlationId = corr;
    call.returnValue = result;
  };
  const auto add_label = [&b](std::uint32_t corr, std::uint64_t id) {
    auto& e = b.add<CUpti_ActivityExternalCorrelation>();
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
    e.externalId = id;
    e.correlationId = corr;
  };
  constexpr std::uint32_t kTag = 3;
  add_call(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 0);
  add_label(1, tagged_id(kTag, 0));
  add_call(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 2, 1);
  add_label(2, tagged_id(kTag, harness_low(HarnessRole::own)));  // ours: checked where issued
  add_call(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 3, 1);
  add_label(3, tagged_id(kTag + 1, 0));  // another phase's: not this phase's failure
  PhaseRecords r;
  parse_activity_buffer(api, b.data(), b.used(), CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, r);
  translate_external_ids(r, kTag);
  ASSERT_EQ(r.failed_apis.size(), 2u);
  EXPECT_NO_THROW(check_phase_records(api, r, 2, CorrelationKind::custom2));

  add_call(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 4, 98);
  add_label(4, tagged_id(kTag, 1));
  PhaseRecords again;
  parse_activity_buffer(api, b.data(), b.used(), CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, again);
  translate_external_ids(again, kTag);
  try {
    check_phase_records(api, again, 2, CorrelationKind::custom2);
    ADD_FAILURE() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "iteration 1")) << e.what();
    EXPECT_TRUE(contains(e.what(), "cudaLaunchKernel")) << e.what();
    EXPECT_TRUE(contains(e.what(), "98")) << e.what();
  }
}

TEST(BufferGrowthTest, FourTimesLargerPerAttempt) {
  EXPECT_EQ(buffer_bytes_for_attempt(256 * 1024, 0), 256u * 1024);
  EXPECT_EQ(buffer_bytes_for_attempt(256 * 1024, 1), 1024u * 1024);
  EXPECT_EQ(buffer_bytes_for_attempt(256 * 1024, 2), 4096u * 1024);
  EXPECT_EQ(buffer_bytes_for_attempt(64, 1), 256u);
  EXPECT_THROW((void)buffer_bytes_for_attempt(64, -1), ConfigError);
  EXPECT_THROW((void)buffer_bytes_for_attempt(std::size_t{1} << 62, 2), ConfigError);
}

}  // namespace
}  // namespace gpumeter::cuda
