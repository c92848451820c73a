// The temporary files of a run's directory (temporary_file.hpp): a named one is locked by its
// writer and removed by a later run once the writer is gone; an anonymous one never has a name;
// a record is published without overwriting; a directory is checked before anything runs.
#include "temporary_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;

class TemporaryFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpumeter-tmpfile-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.insert(e.path().filename().string());
    return out;
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }

  fs::path dir_;
};

TEST_F(TemporaryFileTest, ANamedTemporaryIsGoneWhenItsObjectIs) {
  fs::path path;
  {
    TemporaryFile tmp(dir_, "record");
    path = tmp.path();
    EXPECT_EQ(path.parent_path(), dir_);
    EXPECT_EQ(path.filename().string().rfind(".gpumeter-tmp-record-", 0), 0u);
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(names().empty());
}

TEST_F(TemporaryFileTest, ALaterRunRemovesOnlyTheTemporariesWhoseWriterIsGone) {
  // Left by a writer that was killed: a temporary name, no lock.
  write(".gpumeter-tmp-record-0123456789abcdef", "{\"half");
  // Not gpumeter's temporaries: never touched.
  write("gpumeter-20261201T000000Z-1-00000000.json", "{}");
  write("notes.txt", "mine");
  // Being written now, by this process: its lock is held.
  TemporaryFile live(dir_, "partial");
  // And by another process that holds its lock.
  write(".gpumeter-tmp-partial-fedcba9876543210", "{\"being");
  const fs::path other = dir_ / ".gpumeter-tmp-partial-fedcba9876543210";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    const int fd = ::open(other.c_str(), O_RDONLY);
    ::flock(fd, LOCK_EX);
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);

  EXPECT_EQ(remove_stale_temporaries(dir_), 1u);
  EXPECT_EQ(names(), (std::set<std::string>{"gpumeter-20261201T000000Z-1-00000000.json",
                                            "notes.txt", live.path().filename().string(),
                                            ".gpumeter-tmp-partial-fedcba9876543210"}));
  // Once its writer is gone, the other's is removed too.
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_EQ(remove_stale_temporaries(dir_), 1u);
  EXPECT_FALSE(fs::exists(other));
  EXPECT_TRUE(fs::exists(live.path()));
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_F(TemporaryFileTest, PublishingReplacesOnlyWhenAsked) {
  {
    TemporaryFile tmp(dir_, "record");
    tmp.write_synced("first", "test record");
    tmp.publish(dir_ / "a.json", false);
  }
  {
    TemporaryFile tmp(dir_, "record");
    tmp.write_synced("second", "test record");
    EXPECT_THROW(tmp.publish(dir_ / "a.json", false), Error);  // never overwritten
  }
  {
    TemporaryFile tmp(dir_, "partial");
    tmp.write_synced("third", "test record");
    tmp.publish(dir_ / "a.json", true);  // the partial record replaces the last one
  }
  std::ifstream in(dir_ / "a.json");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "third");
  EXPECT_EQ(names(), (std::set<std::string>{"a.json"}));
}

TEST_F(TemporaryFileTest, AnAnonymousFileHasNoName) {
  const int fd = anonymous_file(dir_);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "case record", 11), 11);
  EXPECT_TRUE(names().empty());
  char back[12] = {};
  EXPECT_EQ(::pread(fd, back, 11, 0), 11);
  EXPECT_STREQ(back, "case record");
  ::close(fd);
  EXPECT_TRUE(names().empty());
}

TEST_F(TemporaryFileTest, AnOutputDirectoryIsMadeReadyOrRefusedWithTheReason) {
  write(".gpumeter-tmp-probe-0000000000000000", "");
  prepare_output_directory(dir_ / "new" / "deeper");
  EXPECT_TRUE(fs::is_directory(dir_ / "new" / "deeper"));
  prepare_output_directory(dir_);  // and the stale probe is removed
  EXPECT_EQ(names(), (std::set<std::string>{"new"}));
  write("a-file", "");
  try {
    prepare_output_directory(dir_ / "a-file");
    FAIL() << "a file accepted as a directory";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot create it (", 0), 0u) << e.what();
  }
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
