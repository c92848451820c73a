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

#include "backends.hpp"
#include "cupti_api.hpp"
#include "cupti_session.hpp"
#include "gpumeter/errors.hpp"

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
