// `gpumeter history`: finds every record under the folders given, reads each with the strict
// reader (on every core: the reader is most of the time), places them among commits
// (build_history, core), renders the site (render_history_site, report) and writes it into a
// fresh folder that is renamed into place whole, so a reader never sees half a site.
#include "history.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "command_options.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/history.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/history_site.hpp"

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

// What a run, a shard, a merge or an interrupted run leaves: records (*.json) and journals
// (*.jsonl), under any depth of folders. A file given by name is read whatever its name. Folder
// links are not followed (a link back up would walk forever); the site being written, and the JSON
// of a site written before, are skipped.
std::vector<fs::path> record_files(const std::vector<std::string>& folders, const fs::path& site,
                                   std::vector<LeftOut>& left_out) {
  std::vector<fs::path> files;
  std::error_code ec;
  const fs::path site_abs = fs::weakly_canonical(site, ec);
  for (const std::string& folder : folders) {
    if (fs::is_regular_file(folder, ec)) {
      files.emplace_back(folder);
      continue;
    }
    if (!fs::is_directory(folder, ec)) {
      left_out.push_back({folder, "not a folder or a file that can be read"});
      continue;
    }
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      left_out.push_back({folder, "cannot list it (" + ec.message() + ")"});
      continue;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) {
        left_out.push_back({it->path().string(), "cannot list it (" + ec.message() + ")"});
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
      if ((ext == ".json" || ext == ".jsonl") && !history_site_json(p)) files.push_back(p);
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
std::vector<Read> read_all(const std::vector<fs::path>& files) {
  std::vector<Read> out(files.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        out[i].record = read_record(files[i]);
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

// The commit order: one commit a line, oldest first (`git rev-list --reverse HEAD`); blank lines
// and lines starting with '#' are skipped.
std::vector<std::string> read_commit_order(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw Error("cannot read the commit order " + file);
  std::vector<std::string> commits;
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    commits.push_back(line.substr(first, last - first + 1));
  }
  if (commits.empty()) throw Error("the commit order " + file + " names no commit");
  return commits;
}

// Writes the site into a new folder beside `site`, then renames it to `site`, which must not
// exist or be an empty folder: a site is never written over another, nor half written.
void write_site(const std::vector<SiteFile>& files, const fs::path& site) {
  std::error_code ec;
  if (fs::exists(site, ec)) {
    if (!fs::is_directory(site, ec) || !fs::is_empty(site, ec)) {
      throw Error(site.string() +
                  " exists and is not an empty folder: the site is written into a new one "
                  "(remove it, or choose another --out)");
    }
  }
  const fs::path parent = site.has_parent_path() ? site.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw Error("cannot create " + parent.string() + ": " + ec.message());
  const fs::path staging =
      parent / (site.filename().string() + ".partial-" + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  fs::create_directory(staging, ec);
  if (ec) throw Error("cannot create " + staging.string() + ": " + ec.message());
  try {
    for (const SiteFile& f : files) {
      std::ofstream out(staging / f.name, std::ios::binary | std::ios::trunc);
      out.write(f.content.data(), static_cast<std::streamsize>(f.content.size()));
      out.close();
      if (!out) throw Error("cannot write " + (staging / f.name).string());
    }
    if (fs::exists(site, ec)) fs::remove(site, ec);  // the empty folder checked above
    fs::rename(staging, site, ec);
    if (ec)
      throw Error("cannot rename " + staging.string() + " to " + site.string() + ": " +
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
  try {
    if (!o.commits.empty()) options.commit_order = read_commit_order(o.commits);
  } catch (const Error& e) {
    print_error(io, "history", e.what());
    return kExitUsage;
  }
  std::vector<LeftOut> unread;
  const std::vector<fs::path> files = record_files(o.folders, o.out, unread);
  const std::vector<Read> reads = read_all(files);
  std::vector<HistoryInput> inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (reads[i].record) {
      inputs.push_back({&*reads[i].record, files[i].string()});
    } else {
      unread.push_back({files[i].string(), reads[i].error});
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
    return kExitUsage;
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
      "never fatal. Exit codes: 0 the site was written (its index on stdout); 2 bad arguments, no "
      "record to draw, or an --out that exists and is not empty; 3 internal error.");
  return {sub, [o](Io& io) { return run_history(io, *o); }};
}

}  // namespace gpumeter::cli
