#include "gpumeter/process_memory.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstring>

namespace gpumeter {
namespace {

TEST(ProcessMemory, PeakRssIsReadAndFollowsTheWorkAfterAReset) {
  const std::optional<long long> before = host_peak_rss_bytes();
  ASSERT_TRUE(before.has_value());
  EXPECT_GT(*before, 0);
  if (!reset_host_peak_rss()) GTEST_SKIP() << "this kernel refuses to reset VmHWM";
  const long long floor = *host_peak_rss_bytes();
  constexpr std::size_t kBytes = 64u << 20;
  // mmap, not the allocator: a sanitizer's allocator keeps freed blocks resident (quarantine).
  void* block = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(block, MAP_FAILED);
  std::memset(block, 1, kBytes);  // resident, not just reserved
  EXPECT_GE(*host_peak_rss_bytes(), floor + static_cast<long long>(kBytes) * 9 / 10);
  ASSERT_EQ(::munmap(block, kBytes), 0);
  // Returned to the kernel and reset: the peak starts again.
  ASSERT_TRUE(reset_host_peak_rss());
  EXPECT_LT(*host_peak_rss_bytes(), floor + static_cast<long long>(kBytes) / 2);
}

}  // namespace
}  // namespace gpumeter
