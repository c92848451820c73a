// The device lock (P1) without a GPU: the lock file in a temporary folder (GPU_LOCK), the idle
// check against the fake NVML (fake_nvml.cpp) with the compute processes and free memory each
// test sets. Other holders are real processes (fork), so flock's semantics are the kernel's.
// Time margins are generous: the checks are about order and outcome, never about speed.
#include "gpumeter/device_lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpumeter/errors.hpp"

extern char** environ;

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;

// This test program's name, as a holder's command names it: whichever executable the tests are
// built into.
std::string own_program() {
  return fs::read_symlink("/proc/self/exe").filename().string();
}
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Sets the environment a test names, and restores what was there.
class Env {
 public:
  void set(const std::string& name, const std::string& value) {
    remember(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    remember(name);
    ::unsetenv(name.c_str());
  }
  ~Env() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }

 private:
  void remember(const std::string& name) {
    if (saved_.count(name) != 0) return;
    const char* v = std::getenv(name.c_str());
    saved_[name] = v != nullptr ? std::optional<std::string>(v) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

// A process that is not this one: `sleep 30`, killed when the test ends.
class Sleeper {
 public:
  Sleeper() {
    const char* argv[] = {"sleep", "30", nullptr};
    EXPECT_EQ(::posix_spawnp(&pid_, "sleep", nullptr, nullptr, const_cast<char**>(argv), environ),
              0);
    // posix_spawn returns once the exec began; its command line is there a moment later.
    for (int i = 0; i < 200; ++i) {
      std::ifstream cmdline("/proc/" + std::to_string(pid_) + "/cmdline");
      std::string text;
      if (std::getline(cmdline, text) && !text.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~Sleeper() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Sleeper(const Sleeper&) = delete;
  Sleeper& operator=(const Sleeper&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
};

// Another holder of the lock: a forked child that takes it, says so through a pipe, holds it
// for `hold_ms` (forever when < 0), then, when `linger` is set, keeps living without it.
class Holder {
 public:
  Holder(const std::string& path, int hold_ms, bool linger) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      {
        DeviceLockOptions o;
        o.path = path;
        o.idle_timeout_s = 0;
        o.timeout_s = 10;
        try {
          const DeviceLock lock(0, "", o);
          (void)!::write(fds[1], "x", 1);
          if (hold_ms < 0) {
            for (;;) ::pause();
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
        } catch (...) {
          ::_exit(3);
        }
      }
      if (linger) {
        for (;;) ::pause();
      }
      ::_exit(0);
    }
    ::close(fds[1]);
    char c = 0;
    EXPECT_EQ(::read(fds[0], &c, 1), 1) << "the holder did not take the lock";
    ::close(fds[0]);
  }
  ~Holder() { stop(); }
  Holder(const Holder&) = delete;
  Holder& operator=(const Holder&) = delete;
  pid_t pid() const { return pid_; }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  void wait_exit() {
    if (pid_ <= 0) return;
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

class DeviceLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpumeter-lock-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = (dir_ / "gpu.lock").string();
    env_.set(kGpuLockEnv, path_);
    env_.set("GPUMETER_NVML_LIBRARY", GPUMETER_FAKE_NVML);
    env_.set("GPUMETER_FAKE_NVML_PROCESSES", "");
    env_.unset("GPUMETER_FAKE_NVML_FREE_BYTES");
    env_.unset(kLockHeldEnv);
    env_.unset(kLockNoteEnv);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static DeviceLockOptions quick() {
    DeviceLockOptions o;
    o.timeout_s = 5;
    o.idle_timeout_s = 0;
    return o;
  }

  // Whether another open file description could take the lock now.
  bool free_now() const {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;
    const bool got = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return got;
  }

  static std::string busy_text(const std::function<void()>& take) {
    try {
      take();
    } catch (const DeviceBusy& e) {
      return e.what();
    }
    ADD_FAILURE() << "no DeviceBusy";
    return "";
  }

  Env env_;
  fs::path dir_;
  std::string path_;
};

TEST(DeviceLockPath, PerDeviceUnlessGpuLockNamesOne) {
  Env env;
  env.unset(kGpuLockEnv);
  EXPECT_EQ(default_lock_path(0, "GPU-11111111-2222-3333-4444-555555555555"),
            "/tmp/gpumeter-gpu-GPU-11111111-2222-3333-4444-555555555555.lock");
  EXPECT_EQ(default_lock_path(3, ""), "/tmp/gpumeter-gpu-3.lock");
  EXPECT_EQ(default_lock_path(0, "GPU-a/../b"), "/tmp/gpumeter-gpu-GPU-a_.._b.lock");
  env.set(kGpuLockEnv, "");
  EXPECT_EQ(default_lock_path(1, ""), "/tmp/gpumeter-gpu-1.lock");
  env.set(kGpuLockEnv, "/var/lock/gpu");
  EXPECT_EQ(default_lock_path(1, "GPU-x"), "/var/lock/gpu");
}

TEST_F(DeviceLockTest, AnIdleDeviceIsLockedAndTheFileNamesTheHolder) {
  {
    const DeviceLock lock(0, "", quick());
    EXPECT_EQ(lock.path(), path_);
    EXPECT_FALSE(lock.inherited());
    EXPECT_FALSE(lock.contended());
    EXPECT_EQ(lock.not_checked(), "");
    EXPECT_TRUE(lock.deviations().empty());
    EXPECT_FALSE(free_now());
    const LockHolder h = read_lock_holder(path_);
    EXPECT_TRUE(h.named);
    EXPECT_EQ(h.pid, ::getpid());
    EXPECT_TRUE(h.alive);
    EXPECT_NE(h.command.find(own_program()), std::string::npos) << h.command;
    EXPECT_EQ(describe_holder(h), "pid " + std::to_string(::getpid()) + " (" + h.command + ")");
  }
  // Released, and the file no longer names anyone.
  EXPECT_TRUE(free_now());
  EXPECT_FALSE(read_lock_holder(path_).named);
  const DeviceLock again(0, "", quick());
}

// Issue 36: the lock file is its creator's to write (it was world-writable: any user could write
// what every run prints as the holder); other users still take the lock through a read-only
// descriptor.
TEST_F(DeviceLockTest, TheLockFileIsWrittenByItsOwnerOnly) {
  const mode_t old = ::umask(0);  // the mode the code asks for, whatever the test's umask
  {
    const DeviceLock lock(0, "", quick());
    struct stat st {};
    ASSERT_EQ(::stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
  }
  ::umask(old);
  // A read-only descriptor (another user's) takes the lock as well.
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  ::close(fd);
}

TEST_F(DeviceLockTest, WithoutNvmlTheLockIsTakenAndTheRecordSaysSo) {
  env_.set("GPUMETER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  const DeviceLock lock(0, "", quick());
  EXPECT_FALSE(lock.contended());
  ASSERT_EQ(lock.deviations().size(), 1u);
  EXPECT_EQ(lock.deviations()[0].rfind("device lock taken without the idle check: NVML not "
                                       "loaded: ",
                                       0),
            0u)
      << lock.deviations()[0];
  EXPECT_FALSE(free_now());
}

TEST_F(DeviceLockTest, AnotherComputeProcessRefusesNamingIt) {
  const Sleeper other;
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", std::to_string(other.pid()) + ":1073741824");
  DeviceLockOptions o = quick();
  o.idle_timeout_s = 0.6;
  const auto start = Clock::now();
  const std::string what = busy_text([&] { const DeviceLock lock(0, "", o); });
  EXPECT_GE(seconds_since(start), 0.4);  // it polled for the idle timeout before refusing
  EXPECT_NE(what.find("device cuda:0 is in use: 1 other compute process(es) on it: pid " +
                      std::to_string(other.pid()) + " (sleep 30, 1.00 GiB)"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("still so after 0.60 s"), std::string::npos) << what;
  EXPECT_NE(what.find("--allow-contended"), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_FALSE(read_lock_holder(path_).named);  // never locked
}

TEST_F(DeviceLockTest, ThisProcessAndItsOwnMemoryDoNotCount) {
  // 1 GB free, but 5 GB of it is this process's own: 6 GB usable, above the floor.
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", std::to_string(::getpid()) + ":5000000000");
  env_.set("GPUMETER_FAKE_NVML_FREE_BYTES", "1000000000");
  const DeviceLock lock(0, "", quick());
  EXPECT_FALSE(lock.contended()) << lock.contention();
  EXPECT_TRUE(lock.deviations().empty());
}

TEST_F(DeviceLockTest, AnAncestorsContextIsRecordedNotRefused) {
  // A harness (here the process that started this test) holding a context while it waits for
  // the run it started: the run goes ahead and its record names the harness.
  const long parent = static_cast<long>(::getppid());
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", std::to_string(parent) + ":1073741824");
  const DeviceLock lock(0, "", quick());
  EXPECT_FALSE(lock.contended()) << lock.contention();
  ASSERT_EQ(lock.deviations().size(), 1u);
  EXPECT_EQ(lock.deviations()[0].rfind("device lock: processes this run descends from hold a "
                                       "context on the device and were not counted as "
                                       "contention: pid " +
                                           std::to_string(parent) + " (",
                                       0),
            0u)
      << lock.deviations()[0];
}

// An older driver lists processes only by the unversioned name, in the shorter v1 layout: the
// other process is named with its memory, and this process's own memory is added back to the
// free memory (1 GB free and 5 GB of it this process's: above the floor).
TEST_F(DeviceLockTest, AnOldDriversProcessListIsReadInItsLayout) {
  env_.set("GPUMETER_NVML_LIBRARY", GPUMETER_FAKE_NVML_OLD);
  const Sleeper other;
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", std::to_string(::getpid()) + ":5000000000," +
                                               std::to_string(other.pid()) + ":1073741824");
  env_.set("GPUMETER_FAKE_NVML_FREE_BYTES", "1000000000");
  const std::string what = busy_text([&] { const DeviceLock lock(0, "", quick()); });
  EXPECT_NE(what.find("device cuda:0 is in use: 1 other compute process(es) on it: pid " +
                      std::to_string(other.pid()) + " (sleep 30, 1.00 GiB)"),
            std::string::npos)
      << what;
  EXPECT_EQ(what.find("free memory"), std::string::npos) << what;
}

TEST_F(DeviceLockTest, LowFreeMemoryRefuses) {
  env_.set("GPUMETER_FAKE_NVML_FREE_BYTES", "1000000000");
  const std::string what = busy_text([&] { const DeviceLock lock(0, "", quick()); });
  EXPECT_NE(what.find("is in use: free memory 0.93 GiB of 139.70 GiB, below the 2.00 GiB floor"),
            std::string::npos)
      << what;
  // A lower floor lets it through.
  DeviceLockOptions o = quick();
  o.min_free_bytes = 500000000;
  const DeviceLock lock(0, "", o);
  EXPECT_FALSE(lock.contended());
}

TEST_F(DeviceLockTest, AllowContendedGoesAheadAtOnceAndSaysWhy) {
  const Sleeper other;
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", std::to_string(other.pid()) + ":0");
  env_.set("GPUMETER_FAKE_NVML_FREE_BYTES", "1000000000");
  DeviceLockOptions o = quick();
  o.idle_timeout_s = 30;
  o.allow_contended = true;
  const auto start = Clock::now();
  const DeviceLock lock(0, "", o);
  EXPECT_LT(seconds_since(start), 15.0);  // one check, not the idle timeout
  EXPECT_TRUE(lock.contended());
  EXPECT_NE(lock.contention().find("pid " + std::to_string(other.pid()) + " (sleep 30, 0.00 GiB)"),
            std::string::npos)
      << lock.contention();
  EXPECT_NE(lock.contention().find("below the 2.00 GiB floor"), std::string::npos);
  ASSERT_EQ(lock.deviations().size(), 1u);
  EXPECT_EQ(
      lock.deviations()[0].rfind("contended: the device was in use when its lock was taken", 0), 0u)
      << lock.deviations()[0];
  EXPECT_NE(lock.deviations()[0].find(lock.contention()), std::string::npos);
  EXPECT_FALSE(free_now());
}

TEST_F(DeviceLockTest, WaitsUntilTheDeviceIsIdle) {
  const Sleeper other;
  const std::string list = (dir_ / "processes").string();
  std::ofstream(list) << other.pid() << ":1000";
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", "@" + list);
  std::thread leaves([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    std::ofstream(list + ".new") << "";
    fs::rename(list + ".new", list);
  });
  DeviceLockOptions o = quick();
  o.idle_timeout_s = 20;
  const auto start = Clock::now();
  const DeviceLock lock(0, "", o);
  leaves.join();
  EXPECT_GE(seconds_since(start), 0.5);
  EXPECT_FALSE(lock.contended());
  EXPECT_TRUE(lock.deviations().empty());
}

TEST_F(DeviceLockTest, AHeldLockTimesOutNamingTheHolderAndAKilledHolderReleasesIt) {
  Holder holder(path_, -1, false);
  DeviceLockOptions o = quick();
  o.timeout_s = 0.5;
  const std::string what = busy_text([&] { const DeviceLock lock(0, "", o); });
  EXPECT_NE(what.find("device cuda:0 is locked by another run: " + path_ + " is held by pid " +
                      std::to_string(holder.pid()) + " ("),
            std::string::npos)
      << what;
  EXPECT_NE(what.find(own_program()), std::string::npos) << what;  // its command
  EXPECT_NE(what.find("the lock timeout"), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos);

  holder.stop();  // SIGKILL: no destructor ran, the kernel released the lock
  o.timeout_s = 10;
  const auto start = Clock::now();
  const DeviceLock lock(0, "", o);
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(read_lock_holder(path_).pid, ::getpid());
}

TEST_F(DeviceLockTest, TheHoldersProcessesAreWaitedForNotRefused) {
  // NVML lists the holder (it has a context on the device) and keeps listing it after it exits,
  // as NVML does for a moment: neither is contention, the lock waits for it.
  const std::string list = (dir_ / "processes").string();
  std::ofstream(list) << "";
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", "@" + list);
  Holder holder(path_, 1000, false);
  std::ofstream(list) << holder.pid() << ":4000000000";
  DeviceLockOptions o = quick();
  o.idle_timeout_s = 0.6;
  o.timeout_s = 20;
  const DeviceLock lock(0, "", o);
  EXPECT_FALSE(lock.contended()) << lock.contention();
  EXPECT_EQ(read_lock_holder(path_).pid, ::getpid());
  holder.wait_exit();
}

TEST_F(DeviceLockTest, AHolderThatKeepsItsContextIsCheckedAgainAfterTheWait) {
  const std::string list = (dir_ / "processes").string();
  std::ofstream(list) << "";
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", "@" + list);
  Holder holder(path_, 1000, true);  // lets go of the lock, keeps living (and its context)
  std::ofstream(list) << holder.pid() << ":1000";
  DeviceLockOptions o = quick();
  o.idle_timeout_s = 0.6;
  o.timeout_s = 20;
  const std::string what = busy_text([&] { const DeviceLock lock(0, "", o); });
  EXPECT_NE(what.find("pid " + std::to_string(holder.pid())), std::string::npos) << what;
  EXPECT_NE(what.find("checked again once the previous lock holder was done"), std::string::npos)
      << what;
  EXPECT_TRUE(free_now());  // refused: the lock was given back
}

TEST_F(DeviceLockTest, AnEnclosingGpumeterLockIsInherited) {
  // What `gpumeter lock` leaves for its command: the file names it (here the test's parent,
  // an ancestor), and the environment says it holds this path.
  const long parent = static_cast<long>(::getppid());
  std::ofstream(path_) << parent << "\ngpumeter lock -- the test\n";
  env_.set(kLockHeldEnv, std::to_string(parent) + ":" + path_);
  env_.set(kLockNoteEnv, "contended: what the holder found\ndevice lock: more\n");
  const Sleeper other;  // busy, but the holder checked already
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", std::to_string(other.pid()) + ":0");
  {
    const DeviceLock lock(0, "", quick());
    EXPECT_TRUE(lock.inherited());
    EXPECT_TRUE(lock.contended());
    EXPECT_EQ(lock.deviations(),
              (std::vector<std::string>{"contended: what the holder found", "device lock: more"}));
    EXPECT_TRUE(free_now());  // not locked again by this process
  }
  EXPECT_EQ(read_lock_holder(path_).pid, parent);  // the holder's file is left alone

  // A stale variable (a process that is not an ancestor) is not inherited.
  std::ofstream(path_) << other.pid() << "\nsleep 30\n";
  env_.set(kLockHeldEnv, std::to_string(other.pid()) + ":" + path_);
  env_.set("GPUMETER_FAKE_NVML_PROCESSES", "");
  const DeviceLock lock(0, "", quick());
  EXPECT_FALSE(lock.inherited());
  EXPECT_EQ(read_lock_holder(path_).pid, ::getpid());
}

TEST_F(DeviceLockTest, AFileNamingAGoneProcessSaysSoAndProcLocksNamesTheHolder) {
  // Another open file description of this process holds the lock; the file names a pid that
  // does not exist (above any pid_max).
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const std::string text = "999999999\nghost\x1b[31m --run\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  DeviceLockOptions o = quick();
  o.timeout_s = 0.2;
  const std::string what = busy_text([&] { const DeviceLock lock(0, "", o); });
  ::close(fd);
  EXPECT_NE(
      what.find("is held by pid 999999999 (ghost\\x1b[31m --run), which no longer exists here; "
                "/proc/locks names pid " +
                std::to_string(::getpid())),
      std::string::npos)
      << what;
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
