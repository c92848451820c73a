#include "temporary_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace {

namespace fs = std::filesystem;

std::string random_suffix() {
  std::random_device random;  // the OS's random source (getrandom) in libstdc++
  const std::uint64_t bits = (static_cast<std::uint64_t>(random()) << 32) | random();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

int lock_exclusive(int fd, bool wait) {
  for (;;) {
    if (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0) return 0;
    if (errno != EINTR) return -1;
  }
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// The directory a path's file lands in ("." for a bare name).
fs::path directory_of(const fs::path& file) {
  const fs::path parent = file.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

}  // namespace

TemporaryFile::TemporaryFile(const fs::path& dir, std::string_view purpose) {
  int last_error = 0;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const fs::path path =
        dir / (std::string(kTemporaryPrefix) + std::string(purpose) + "-" + random_suffix());
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
      last_error = errno;
      if (last_error == EEXIST || last_error == EINTR) continue;
      break;
    }
    // Locked before anything is written. A later run's clean-up that opened the file between
    // its creation and this lock has removed it (it found no lock): start again.
    const bool locked = lock_exclusive(fd, true) == 0;
    struct stat st {};
    if (locked && ::fstat(fd, &st) == 0 && st.st_nlink == 0) {
      ::close(fd);
      continue;
    }
    // A file system without flock: the file is then never found unlocked by a clean-up either
    // (its flock fails the same way), so it is never taken for a dead writer's.
    (void)::fchmod(fd, 0644);  // readable like the records it becomes
    path_ = path;
    fd_ = fd;
    return;
  }
  throw Error("cannot create a temporary file in " + dir.string() + ": " +
              std::generic_category().message(last_error != 0 ? last_error : EEXIST));
}

TemporaryFile::~TemporaryFile() {
  if (!published_) ::unlink(path_.c_str());
  if (fd_ >= 0) ::close(fd_);
}

void TemporaryFile::write_synced(std::string_view text, const std::string& what) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write " + what + ": " + std::generic_category().message(errno));
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fsync(fd_) != 0)
    throw Error("cannot write " + what + ": " + std::generic_category().message(errno));
}

void TemporaryFile::publish(const fs::path& target, bool replace) {
  if (replace) {
    if (::rename(path_.c_str(), target.c_str()) != 0) {
      throw Error("cannot write record " + target.string() + ": " +
                  std::generic_category().message(errno));
    }
  } else if (::link(path_.c_str(), target.c_str()) == 0) {
    // link() fails with EEXIST rather than replace: a record is never overwritten (P10).
    ::unlink(path_.c_str());
  } else {
    int error = errno;
    // File systems without hard links: renameat2(RENAME_NOREPLACE) makes the same promise.
    if (error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == ENOSYS ||
        error == EMLINK) {
      error = ::renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0
                  ? 0
                  : errno;
    }
    if (error == EEXIST) {
      throw Error("record " + target.string() + " already exists; records are never overwritten");
    }
    if (error != 0) {
      throw Error("cannot create record " + target.string() + ": " +
                  std::generic_category().message(error));
    }
  }
  published_ = true;
  ::close(fd_);  // the lock goes with it: the file is no temporary any more
  fd_ = -1;
  sync_directory(directory_of(target));  // the new name durable too
}

void write_file_atomically(const fs::path& target, std::string_view text, bool overwrite) {
  TemporaryFile tmp(directory_of(target), overwrite ? "partial" : "record");
  tmp.write_synced(text, target.string());
  tmp.publish(target, overwrite);
}

int anonymous_file(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // EOPNOTSUPP, EISDIR or EINVAL: no O_TMPFILE here. A named file, unlinked at once; a kill in
  // between leaves it unlocked, and the next run removes it.
  const int error = errno;
  if (error != EOPNOTSUPP && error != EISDIR && error != EINVAL) {
    throw Error("cannot create a temporary file in " + dir.string() + ": " +
                std::generic_category().message(error));
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    const fs::path path = dir / (std::string(kTemporaryPrefix) + "anonymous-" + random_suffix());
    const int named =
        ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (named >= 0) {
      ::unlink(path.c_str());
      return named;
    }
    if (errno != EEXIST && errno != EINTR) break;
  }
  throw Error("cannot create a temporary file in " + dir.string() + ": " +
              std::generic_category().message(errno));
}

void prepare_output_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create it (" + ec.message() + ")");
  remove_stale_temporaries(dir);
  const TemporaryFile probe(dir, "probe");
}

std::size_t remove_stale_temporaries(const fs::path& dir) {
  std::size_t removed = 0;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return 0;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path path = it->path();
    if (path.filename().string().rfind(kTemporaryPrefix, 0) != 0) continue;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat held {};
    struct stat named {};
    // Free lock: its writer is gone. The same file still under that name (never another's
    // that took the name since) is removed while the lock is held, so no writer can take it.
    if (lock_exclusive(fd, false) == 0 && ::fstat(fd, &held) == 0 && S_ISREG(held.st_mode) &&
        ::lstat(path.c_str(), &named) == 0 && named.st_ino == held.st_ino &&
        named.st_dev == held.st_dev && ::unlink(path.c_str()) == 0) {
      ++removed;
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace gpumeter
