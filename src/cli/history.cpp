// `gpumeter history`: finds every record under the folders given, reads each with the strict
// reader (on every core: the reader is most of the time), places them among commits
// (build_history, core), renders the site (render_history_site, report) and writes it into a
// fresh folder that is renamed into place whole, so a reader never sees half a site.
#include "history.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "command_options.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/history.hpp"
#include "gpumeter/history_site.hpp"
#include "gpumeter/host_info.hpp"

extern char** environ;

namespace gpumeter::cli {
namespace {

namespace fs = std::filesystem;

struct HistoryArguments {
  std::vector<std::string> folders;
  std::string out;
  std::string commits;
};

// A site this command wrote (its regressions.json says so in its first bytes): a history kept
// beside the records it was built from is no record, and no reason to list a file as left out.
bool history_site_json(const fs::path& file) {
  if (file.filename() != "regressions.json") return false;
  std::ifstream in(file, std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find(std::string("\"schema\": \"") + kHistoryJsonSchema + "\"") != std::string::npos;
}

// A record file as the site names it: relative to the folder given, under that folder's own
// name ("records/ci/x.json" for /home/me/records/ci/x.json), so the site holds no path of this
// machine (a file given by name: its name alone).
std::string site_name(const fs::path& given, const fs::path& file) {
  const fs::path folder = given.lexically_normal();
  fs::path base = folder.filename();
  if (base.empty() && folder.has_parent_path()) base = folder.parent_path().filename();
  if (base == "." || base == ".." || base == "/") base.clear();
  if (file == given) return fs::path(file).filename().string();
  const fs::path inside = file.lexically_relative(given);
  return (base.empty() ? inside : base / inside).lexically_normal().string();
}

struct RecordFile {
  fs::path path;
  std::string shown;  // site_name's
  bool operator<(const RecordFile& o) const { return path < o.path; }
  bool operator==(const RecordFile& o) const { return path == o.path; }
};

// What a run, a shard, a merge or an interrupted run leaves: records (*.json) and journals
// (*.jsonl), under any depth of folders. A file given by name is read whatever its name. Folder
// links are not followed (a link back up would walk forever); the site being written, and the JSON
// of a site written before, are skipped.
std::vector<RecordFile> record_files(const std::vector<std::string>& folders, const fs::path& site,
                                     std::vector<LeftOut>& left_out) {
  std::vector<RecordFile> files;
  std::error_code ec;
  const fs::path site_abs = fs::weakly_canonical(site, ec);
  for (const std::string& folder : folders) {
    if (fs::is_regular_file(folder, ec)) {
      files.push_back({fs::path(folder), site_name(folder, folder)});
      continue;
    }
    const std::string shown = site_name(folder, folder);
    if (!fs::is_directory(folder, ec)) {
      left_out.push_back({shown, "not a folder or a regular file"});
      continue;
    }
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      left_out.push_back({shown, "cannot list it (" + ec.message() + ")"});
      continue;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) {
        left_out.push_back(
            {site_name(folder, it->path()), "cannot list it (" + ec.message() + ")"});
        break;
      }
      const fs::path& p = it->path();
      if (it->is_directory(ec)) {
        std::error_code same;
        if (!site_abs.empty() && fs::weakly_canonical(p, same) == site_abs)
          it.disable_recursion_pending();
        continue;
      }
      const std::string ext = p.extension().string();
      if ((ext == ".json" || ext == ".jsonl") && !history_site_json(p)) {
        files.push_back({p, site_name(folder, p)});
      }
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// The parts of a record a history does not read, dropped as soon as it is read: ten thousand
// records are held at once.
void slim(Record& r) {
  r.comparisons.clear();
  r.phases.clear();
  r.totals.clear();
  r.runtimes.clear();
  r.program.reset();
  r.shard.reset();
  r.argv.clear();
}

struct Read {
  std::optional<Record> record;
  std::string error;
};

// Every file read, on every core; a file that does not read is kept with the reader's words.
std::vector<Read> read_all(const std::vector<RecordFile>& files) {
  std::vector<Read> out(files.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        out[i].record = read_record(files[i].path);
        slim(*out[i].record);
      } catch (const InvalidRecord& e) {
        out[i].error = e.problem();
      } catch (const std::exception& e) {
        out[i].error = std::string("cannot be read: ") + e.what();
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), files.size());
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return out;
}

// The most a commit order is read to: 40 hex digits and a newline per commit, so a million
// commits in 41 MB. A device or a FIFO (--commits /dev/zero grew past 1 GB; a FIFO blocked
// forever) is refused before it is read.
constexpr std::size_t kMaxCommitOrderBytes = 64u << 20;

// The commit order: one commit a line, oldest first (`git rev-list --reverse HEAD`); blank lines
// and lines starting with '#' are skipped.
std::vector<std::string> commit_lines(const std::string& text) {
  std::vector<std::string> commits;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    commits.push_back(line.substr(first, last - first + 1));
  }
  return commits;
}

std::vector<std::string> read_commit_order(const std::string& file) {
  const std::string shown = quoted_text(file, 200);
  // Non-blocking: opening a FIFO with no writer must not wait; it is refused below anyway.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    throw ConfigError("cannot read the commit order " + shown + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw ConfigError(
        "the commit order " + shown +
        " is not a regular file (a device, FIFO or folder is not read): write it to a "
        "file first (git rev-list --reverse HEAD > commits.txt)");
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw ConfigError("cannot read the commit order " + shown + ": " + std::strerror(errno));
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > kMaxCommitOrderBytes) {
      throw ConfigError("the commit order " + shown + " is larger than " +
                        std::to_string(kMaxCommitOrderBytes) +
                        " bytes, more than any project's commits take");
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  std::vector<std::string> commits = commit_lines(text);
  if (commits.empty()) throw ConfigError("the commit order " + shown + " names no commit");
  return commits;
}

// The commits of the repository holding `folder`, oldest first (git rev-list --reverse HEAD), or
// none where git is missing, fails, or the folder is in no repository. Its output is bounded like
// a --commits file.
std::vector<std::string> repository_commit_order(const std::string& folder) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> args = {"git", "-C", folder, "rev-list", "--reverse", "HEAD"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string text;
  bool too_long = false;
  if (spawned == 0) {
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (text.size() + static_cast<std::size_t>(n) > kMaxCommitOrderBytes) {
        too_long = true;
        break;
      }
      text.append(buffer, static_cast<std::size_t>(n));
    }
  }
  ::close(pipe_fds[0]);
  if (spawned != 0) return {};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (too_long || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return commit_lines(text);
}

// `--out` as the site would be written: refused before any record is read when it exists and is
// not an empty folder.
void check_site_free(const fs::path& site) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(site, ec)) &&
      (!fs::is_directory(fs::symlink_status(site, ec)) || !fs::is_empty(site, ec))) {
    throw ConfigError(site.string() +
                      " exists and is not an empty folder: the site is written into a new one "
                      "(remove it, or choose another --out)");
  }
}

// Writes the site into a new folder beside `site`, then renames it to `site`, which must not
// exist or be an empty folder: a site is never written over another, nor half written.
void write_site(const std::vector<SiteFile>& files, const fs::path& site) {
  std::error_code ec;
  check_site_free(site);  // again: it may have been made while the records were read
  const fs::path parent = site.has_parent_path() ? site.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw ConfigError("cannot create " + parent.string() + ": " + ec.message());
  const fs::path staging =
      parent / (site.filename().string() + ".partial-" + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  fs::create_directory(staging, ec);
  if (ec) throw ConfigError("cannot create " + staging.string() + ": " + ec.message());
  try {
    for (const SiteFile& f : files) {
      std::ofstream out(staging / f.name, std::ios::binary | std::ios::trunc);
      out.write(f.content.data(), static_cast<std::streamsize>(f.content.size()));
      out.close();
      if (!out) throw ConfigError("cannot write " + (staging / f.name).string());
    }
    if (fs::exists(site, ec)) fs::remove(site, ec);  // the empty folder checked above
    fs::rename(staging, site, ec);
    if (ec)
      throw ConfigError("cannot rename " + staging.string() + " to " + site.string() + ": " +
                        ec.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
}

int run_history(Io& io, const HistoryArguments& options_given) {
  HistoryArguments o = options_given;
  // "site/" names the folder site, not an entry inside it.
  fs::path out = fs::path(o.out).lexically_normal();
  if (!out.has_filename() && out.has_parent_path()) out = out.parent_path();
  o.out = out.string();
  HistoryOptions options;
  options.now_utc = utc_now_iso();  // this build's time: a record created after it is left out
  try {
    // Before anything is read: a site that cannot be written is known now, not after every
    // record was read.
    check_site_free(o.out);
    if (!o.commits.empty()) options.commit_order = read_commit_order(o.commits);
  } catch (const Error& e) {
    // A --commits that cannot be read or an --out that cannot be written: a ConfigError, which
    // the catalogue makes a usage error.
    print_error(io, "history", e.what());
    return exit_code_of_error(e);
  }
  std::vector<LeftOut> unread;
  const std::vector<RecordFile> files = record_files(o.folders, o.out, unread);
  const std::vector<Read> reads = read_all(files);
  std::vector<HistoryInput> inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (reads[i].record) {
      inputs.push_back({&*reads[i].record, files[i].shown});
    } else {
      unread.push_back({files[i].shown, reads[i].error});
    }
  }
  // Without --commits, the order of the repository that holds the records, where it holds any
  // of their commits: git knows which commit came first, a record's own time only says when it
  // was written (and a copied or planted record says what it likes).
  if (options.commit_order.empty()) {
    for (const std::string& folder : o.folders) {
      std::error_code ec;
      const fs::path dir =
          fs::is_directory(folder, ec) ? fs::path(folder) : fs::path(folder).parent_path();
      std::vector<std::string> order = repository_commit_order(dir.empty() ? "." : dir.string());
      const std::set<std::string> known(order.begin(), order.end());
      const bool holds_one = std::any_of(inputs.begin(), inputs.end(), [&](const HistoryInput& in) {
        return known.count(in.record->project_commit) != 0;
      });
      if (holds_one) {
        options.commit_order = std::move(order);
        options.commit_order_from = "the history of the repository holding " +
                                    quoted_text(site_name(folder, folder), 200) +
                                    " (git rev-list --reverse HEAD)";
        break;
      }
    }
  }
  History history = build_history(inputs, options);
  // Files that did not read come first: the reader's refusal is the first thing to fix.
  history.left_out.insert(history.left_out.begin(), unread.begin(), unread.end());
  for (const LeftOut& l : history.left_out) {
    print_error(io, "history", "left out " + l.source + ": " + l.reason);
  }
  if (history.records.empty()) {
    print_error(io, "history",
                "no record to draw: " + std::to_string(files.size()) +
                    " file(s) found, none read and placed among commits (each is named above)");
    return kExitUsage;
  }
  try {
    write_site(render_history_site(history), o.out);
  } catch (const Error& e) {
    print_error(io, "history", e.what());
    return exit_code_of_error(e);
  }
  io.out << inert_text(o.out) << "/index.html: " << history.records.size() << " records over "
         << history.commits.size() << " commits, " << history.series.size() << " series, "
         << history.regressions.size() << " regressions, " << history.improvements.size()
         << " improvements, " << history.left_out.size() << " left out\n"
         << std::flush;
  return kExitOk;
}

}  // namespace

Command add_history_command(CLI::App& app) {
  auto o = std::make_shared<HistoryArguments>();
  CLI::App* sub = app.add_subcommand(
      "history",
      "Every record under the folders, over commits, as one static site (HTML, CSS and SVG; no "
      "server, no script): a page per case and implementation with its median and spread at each "
      "commit, its board and clocks, and the commits where the comparison of two runs on one "
      "board says it moved; the regressions also as JSON for CI.");
  sub->add_option("folders", o->folders,
                  "Folders to search for records (*.json, *.jsonl, at any depth), or record files")
      ->required();
  add_command_option(*sub, "--out", o->out)->required();
  add_command_option(*sub, "--commits", o->commits)->type_name("FILE");
  sub->footer(
      "A file that does not read as a record, a record that names no commit (or one outside "
      "--commits), and a record given twice are left out: listed on the site and on stderr, "
      "never fatal. Commits are ordered by --commits, else by git rev-list of the repository "
      "holding a folder given (where it holds their commits), else by each commit's first "
      "record's creation time (RFC 3339, not after this build; a record without one is left "
      "out). " +
      exit_codes_help({{kExitOk, "the site was written (its index on stdout)"},
                       {kExitUsage,
                        "bad arguments, no record to draw, or an --out that exists and is not "
                        "empty"},
                       {kExitInternal}}));
  return {sub, [o](Io& io) { return run_history(io, *o); }};
}

}  // namespace gpumeter::cli
