#include "gpumeter/process_memory.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpumeter/process_ids.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

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

// /proc/<pid>/status as a kernel writes it, around the line that matters.
constexpr const char* kStatusHead = "Name:\tbench\nUmask:\t0022\nState:\tR (running)\nTgid:\t12\n";
constexpr const char* kStatusTail = "PPid:\t1\nVmHWM:\t  1024 kB\n";

TEST(ProcessIds, NSpidGivesThePidOfEveryNamespace) {
  // A container's process seen through its parent's /proc: the host's pid, then the container's.
  EXPECT_EQ(pids_in_status(std::string(kStatusHead) + "NSpid:\t654321\t12\n" + kStatusTail, 12),
            (std::set<long>{12, 654321}));
  // Nested twice, spaces instead of tabs, no final newline.
  EXPECT_EQ(pids_in_status("NSpid: 900000 4000 12", 12), (std::set<long>{12, 4000, 900000}));
  // No namespace around this one (or the container's own /proc): getpid() alone.
  EXPECT_EQ(pids_in_status(std::string(kStatusHead) + "NSpid:\t12\n" + kStatusTail, 12),
            (std::set<long>{12}));
  // A kernel before 4.1 writes no NSpid line.
  EXPECT_EQ(pids_in_status(std::string(kStatusHead) + kStatusTail, 12), (std::set<long>{12}));
  EXPECT_EQ(pids_in_status("", 12), (std::set<long>{12}));
}

TEST(ProcessIds, AMalformedLineAddsNothing) {
  EXPECT_EQ(pids_in_status("NSpid:\t654321\tx12\n", 12), (std::set<long>{12}));
  EXPECT_EQ(pids_in_status("NSpid:\t654321 12abc\n", 12), (std::set<long>{12}));
  EXPECT_EQ(pids_in_status("NSpid:\t0\t-5\t77\n", 12), (std::set<long>{12, 77}));
  // Only the line that starts with the key: "NStgid" and text mentioning it are not it.
  EXPECT_EQ(pids_in_status("NStgid:\t99\t12\nX NSpid:\t98\n", 12), (std::set<long>{12}));
}

TEST(ProcessIds, ThisProcessHasItsOwnPidAmongItsPids) {
  const std::set<long> mine = own_pids();
  EXPECT_EQ(mine.count(static_cast<long>(::getpid())), 1u);
  EXPECT_FALSE(mine.empty());
}

TEST(ProcessIds, TheOneListedEntryOfThisProcess) {
  const std::set<long> own{12, 654321};
  EXPECT_EQ(own_entry({7, 654321, 99}, own), std::optional<std::size_t>(1));
  EXPECT_EQ(own_entry({12}, own), std::optional<std::size_t>(0));  // a translating driver
  EXPECT_EQ(own_entry({7, 99}, own), std::nullopt);                // not listed: unknown
  EXPECT_EQ(own_entry({}, own), std::nullopt);
  // Host pid 12 is another process; which entry is this one's cannot be told.
  EXPECT_EQ(own_entry({12, 654321}, own), std::nullopt);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
