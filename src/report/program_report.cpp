// A program timed by its NVTX ranges in the markdown report: what the rows cannot say. Every
// range with its instances (those without device work have no row), the kernels launched outside
// every range, the launches that put nothing on the device, and how the autograd engine's
// threads were counted. From the record's program section only.
#include <string>
#include <vector>

#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/program.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/detail/wording.hpp"
#include "table_parts.hpp"

namespace gpumeter {
namespace {

using report_parts::md;

using report_parts::markdown_table;

// A kernel's name in the table: C++ kernels' names run to hundreds of characters of template
// arguments, and one such name widens every row. The record keeps the whole name.
std::string kernel_cell(const std::string& name) {
  constexpr std::size_t kMost = 96;
  if (name.size() <= kMost) return md(name);
  std::size_t cut = kMost - 3;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return md(name.substr(0, cut) + "...");
}

std::string program_part(const Record& record) {
  if (!record.program) return {};
  const ProgramRun& p = *record.program;
  std::string command;
  for (const std::string& a : p.command) command += (command.empty() ? "" : " ") + a;
  const bool runs = p.runs > 1;  // a run column only where there are several
  std::string out = "Program " + md(command) + " (record " + md(record.run_id) + "), " +
                    (runs ? "run " + std::to_string(p.runs) + " times (each run one pass), "
                          : std::string("run once (one pass: compare needs --repeat), ")) +
                    std::to_string(p.processes.size()) + " process(es) recorded";
  if (p.range_regex) out += ", ranges matching " + md(*p.range_regex);
  if (p.domain) out += ", domain " + md(p.domain->empty() ? "(default)" : *p.domain);
  out += ". " + md(p.engine_threads) + ".\n\n";

  std::vector<std::vector<std::string>> ranges{
      {"range", "domain", "instances", "with device work"}};
  for (const ProgramRange& g : p.ranges) {
    ranges.push_back({md(g.name), md(g.domain.empty() ? "(default)" : g.domain),
                      std::to_string(g.instances), std::to_string(g.with_device_work)});
  }
  out += markdown_table(ranges);
  if (p.outside.empty()) {
    out += "\nNo kernel ran outside the reported ranges.\n";
  } else {
    out +=
        "\nKernels outside every reported range (by process, thread and kernel; a long name "
        "is cut here, whole in the record):\n\n";
    std::vector<std::vector<std::string>> rows{
        {"process", "thread", "kernel", "kernels", "total", "device busy"}};
    if (runs) rows.front().insert(rows.front().begin(), "run");
    for (const ProgramOutsideKernels& o : p.outside) {
      rows.push_back(
          {std::to_string(o.pid),
           std::to_string(o.thread) + (o.thread_name.empty() ? "" : " (" + md(o.thread_name) + ")"),
           kernel_cell(o.kernel), std::to_string(o.n_kernels), time_text(double(o.total_ns)),
           time_text(double(o.device_busy_ns))});
      if (runs) rows.back().insert(rows.back().begin(), std::to_string(o.run));
    }
    out += markdown_table(rows);
  }
  if (!p.launches_without_work.empty()) {
    out += "\nLaunch calls that put nothing on the device (copies may legitimately do so):\n\n";
    std::vector<std::vector<std::string>> rows{{"process", "thread", "call", "count"}};
    if (runs) rows.front().insert(rows.front().begin(), "run");
    for (const ProgramLaunchesWithoutWork& l : p.launches_without_work) {
      rows.push_back(
          {std::to_string(l.pid), std::to_string(l.thread), md(l.api), std::to_string(l.n)});
      if (runs) rows.back().insert(rows.back().begin(), std::to_string(l.run));
    }
    out += markdown_table(rows);
  }
  return out;
}

}  // namespace

std::string render_program(const std::vector<Record>& records) {
  std::string out;
  for (const Record& record : records) {
    const std::string part = program_part(record);
    if (!part.empty()) out += (out.empty() ? "" : "\n") + part;
  }
  return out;
}

}  // namespace gpumeter
