#include "gpumeter/host_info.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

TEST(HostInfo, IdentityFieldsReadFromTheSystem) {
  const HostIdentity h = read_host_identity();
  EXPECT_FALSE(h.hostname.empty());
  ASSERT_TRUE(h.logical_cores.has_value());
  EXPECT_GE(*h.logical_cores, 1);
  EXPECT_NE(h.os.find("Linux"), std::string::npos);
}

TEST(HostInfo, UtcTimestampShape) {
  const std::string t = utc_now_iso();
  ASSERT_EQ(t.size(), 20u);
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

TEST(HostInfo, ProjectCommitFromGitFiles) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gpumeter-commit-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / ".git/refs/heads");
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / ".git/HEAD") << "ref: refs/heads/main\n";
  std::ofstream(dir / ".git/refs/heads/main") << "0123456789abcdef0123456789abcdef01234567\n";
  ::unsetenv("GPUMETER_PROJECT_COMMIT");
  EXPECT_EQ(project_commit(dir / "sub"), "0123456789abcdef0123456789abcdef01234567");
  std::filesystem::remove(dir / ".git/refs/heads/main");
  std::ofstream(dir / ".git/packed-refs") << "# pack-refs\nfeedface refs/heads/main\n";
  EXPECT_EQ(project_commit(dir), "feedface");
  // A submodule inside: its own commit, not the enclosing repository's.
  std::filesystem::create_directories(dir / "modules/sub/refs/heads");
  std::filesystem::create_directories(dir / "vendor/lib");
  std::ofstream(dir / "vendor/lib/.git") << "gitdir: ../../modules/sub\n";
  std::ofstream(dir / "modules/sub/HEAD") << "ref: refs/heads/main\n";
  std::ofstream(dir / "modules/sub/refs/heads/main") << "5ub5ub\n";
  EXPECT_EQ(project_commit(dir / "vendor/lib"), "5ub5ub");
  // A worktree: HEAD in its own git dir, refs in the common one.
  std::filesystem::create_directories(dir / ".git/worktrees/wt");
  std::filesystem::create_directories(dir / "wt");
  std::ofstream(dir / "wt/.git") << "gitdir: " << (dir / ".git/worktrees/wt").string() << "\n";
  std::ofstream(dir / ".git/worktrees/wt/HEAD") << "ref: refs/heads/feature\n";
  std::ofstream(dir / ".git/worktrees/wt/commondir") << "../..\n";
  std::ofstream(dir / ".git/packed-refs")
      << "feedface refs/heads/main\nbeefcafe refs/heads/feature\n";
  EXPECT_EQ(project_commit(dir / "wt"), "beefcafe");
  ::setenv("GPUMETER_PROJECT_COMMIT", "override", 1);
  EXPECT_EQ(project_commit(dir), "override");
  ::unsetenv("GPUMETER_PROJECT_COMMIT");
  std::filesystem::remove_all(dir);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
