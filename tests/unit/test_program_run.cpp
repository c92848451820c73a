// `gpumeter run`'s reading of the collector's parts (program_run.hpp): parts written as the JSON
// the collector writes (part_format.hpp, src/collector/collector.cpp), read by parse_part,
// read_parts and read_program. The core's range rules have their own tests (test_ranges.cpp); these
// test what the program layer adds: the part format, processes, engine threads, driver launches,
// captures, CUPTI problems and the parts directory.
#include "program_run.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpumeter/detail/program.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/record.hpp"
#include "part_format.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;

// A JSON string literal: names in these tests are plain, but quotes and backslashes must not break
// the part.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string num(std::uint64_t v) {
  return std::to_string(v);
}
std::string num(Nanos v) {
  return std::to_string(v);
}

// One process's part as the collector writes it. Defaults: an exec'd process with CUPTI on, every
// counter live and zero. set()/erase() replace or remove a top-level field's JSON text, to write
// parts the collector never would.
class Part {
 public:
  explicit Part(long pid, long parent_pid = 1, std::string origin = program_part::kOriginExec)
      : pid_(pid), parent_pid_(parent_pid), origin_(std::move(origin)) {}

  Part& cupti(bool on, std::string problem = "") {
    cupti_ = on;
    problem_ = std::move(problem);
    return *this;
  }
  // nullopt: written as null (CUPTI's counter could not be read).
  Part& dropped_device(std::optional<std::uint64_t> n) {
    dropped_device_ = n;
    return *this;
  }
  Part& lost_device(std::uint64_t n) {
    lost_device_ = n;
    return *this;
  }
  Part& dropped_host(std::uint64_t n) {
    dropped_host_ = n;
    return *this;
  }
  Part& foreign(const std::string& client) {
    foreign_.push_back(quote(client));
    return *this;
  }
  Part& thread(std::uint64_t tid, const std::string& name) {
    threads_.push_back(quote(num(tid)) + ":" + quote(name));
    return *this;
  }
  Part& push(std::uint64_t tid, Nanos ns, const std::string& name, const std::string& domain = "") {
    return range("push", ns, tid, 0, name, domain);
  }
  Part& pop(std::uint64_t tid, Nanos ns, const std::string& domain = "") {
    return range("pop", ns, tid, 0, "", domain);
  }
  Part& start(std::uint64_t tid, Nanos ns, std::uint64_t id, const std::string& name,
              const std::string& domain = "") {
    return range("start", ns, tid, id, name, domain);
  }
  Part& end(std::uint64_t tid, Nanos ns, std::uint64_t id, const std::string& domain = "") {
    return range("end", ns, tid, id, "", domain);
  }
  Part& launch(std::uint64_t tid, std::uint64_t corr, Nanos ns,
               const std::string& api = "cudaLaunchKernel", std::uint64_t enclosing = 0,
               bool capturing = false) {
    launches_.push_back("[" + num(tid) + "," + num(corr) + "," + num(enclosing) + "," + num(ns) +
                        "," + quote(api) + "," + (capturing ? "true" : "false") + "]");
    return *this;
  }
  Part& device(std::uint64_t corr, Nanos start_ns, Nanos end_ns, const std::string& name = "k",
               const std::string& kind = "kernel", std::uint64_t dev = 0, std::uint64_t stream = 7,
               std::uint64_t node = 0) {
    device_.push_back("[" + quote(kind) + "," + num(start_ns) + "," + num(end_ns) + "," +
                      num(corr) + "," + num(dev) + "," + num(stream) + "," + num(node) + "," +
                      quote(name) + "]");
    return *this;
  }
  // A cudaLaunchKernel by `tid` at host time `ns` and its kernel over [start, end] on the device,
  // under the next correlation id.
  Part& kernel(std::uint64_t tid, Nanos ns, Nanos start_ns, Nanos end_ns,
               const std::string& name = "k") {
    const std::uint64_t corr = next_corr_++;
    launch(tid, corr, ns);
    return device(corr, start_ns, end_ns, name);
  }
  Part& copy(std::uint64_t tid, Nanos ns, Nanos start_ns, Nanos end_ns) {
    const std::uint64_t corr = next_corr_++;
    launch(tid, corr, ns, "cudaMemcpyAsync");
    return device(corr, start_ns, end_ns, "memcpy 64 B", "memcpy");
  }
  Part& fill(std::uint64_t tid, Nanos ns, Nanos start_ns, Nanos end_ns) {
    const std::uint64_t corr = next_corr_++;
    launch(tid, corr, ns, "cudaMemsetAsync");
    return device(corr, start_ns, end_ns, "memset 8 B", "memset");
  }
  // Rows written as given, whatever their shape.
  Part& raw_range(const std::string& row) {
    ranges_.push_back(row);
    return *this;
  }
  Part& raw_launch(const std::string& row) {
    launches_.push_back(row);
    return *this;
  }
  Part& raw_device(const std::string& row) {
    device_.push_back(row);
    return *this;
  }
  Part& set(const std::string& key, const std::string& json_text) {
    overrides_.emplace_back(key, json_text);
    return *this;
  }
  Part& erase(const std::string& key) {
    overrides_.emplace_back(key, std::nullopt);
    return *this;
  }

  long pid() const { return pid_; }
  std::string where() const { return program_part::part_name(pid_); }

  std::string json() const {
    std::vector<std::pair<std::string, std::optional<std::string>>> fields = {
        {"schema", quote(program_part::kSchema)},
        {"version", std::to_string(program_part::kVersion)},
        {"pid", std::to_string(pid_)},
        {"parent_pid", std::to_string(parent_pid_)},
        {"origin", quote(origin_)},
        {"cupti", cupti_ ? "true" : "false"},
        {"cupti_problem", quote(problem_)},
        {"foreign_cupti_clients", "[" + join(foreign_) + "]"},
        {"dropped_host_events", num(dropped_host_)},
        {"dropped_device_records", dropped_device_ ? num(*dropped_device_) : "null"},
        {"lost_device_records", num(lost_device_)},
        {"threads", "{" + join(threads_) + "}"},
        {"ranges", "[" + join(ranges_) + "]"},
        {"launches", "[" + join(launches_) + "]"},
        {"device", "[" + join(device_) + "]"},
    };
    for (const auto& [key, text] : overrides_) {
      bool found = false;
      for (auto& field : fields) {
        if (field.first == key) {
          field.second = text;
          found = true;
        }
      }
      if (!found) fields.emplace_back(key, text);
    }
    std::string out;
    for (const auto& [key, text] : fields) {
      if (!text) continue;
      out += (out.empty() ? "{" : ",") + quote(key) + ":" + *text;
    }
    return out + "}";
  }
  ProcessPart parse() const { return parse_part(json(), where()); }

 private:
  Part& range(const char* kind, Nanos ns, std::uint64_t tid, std::uint64_t id,
              const std::string& name, const std::string& domain) {
    ranges_.push_back("[" + quote(kind) + "," + num(ns) + "," + num(tid) + "," + num(id) + "," +
                      quote(name) + "," + quote(domain) + "]");
    return *this;
  }
  static std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
    return out;
  }

  long pid_;
  long parent_pid_;
  std::string origin_;
  bool cupti_ = true;
  std::string problem_;
  std::optional<std::uint64_t> dropped_device_ = 0;
  std::uint64_t lost_device_ = 0;
  std::uint64_t dropped_host_ = 0;
  std::vector<std::string> foreign_, threads_, ranges_, launches_, device_;
  std::vector<std::pair<std::string, std::optional<std::string>>> overrides_;
  std::uint64_t next_corr_ = 1;
};

constexpr long kCommandPid = 100;

ProgramOptions options(EngineThreads engine = EngineThreads::adopt) {
  ProgramOptions o;
  o.engine_threads = engine;
  o.command_pid = kCommandPid;
  o.command = {"python3", "train.py"};
  return o;
}

ProgramReading read(const std::vector<Part>& parts, const ProgramOptions& o = options()) {
  std::vector<ProcessPart> parsed;
  for (const Part& p : parts) parsed.push_back(p.parse());
  return read_program(parsed, o);
}

// The exception of type E that `f` throws; a failure when it throws nothing or something else.
template <class E>
E thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << error_name(e) << ": " << e.what();
    throw;
  }
  ADD_FAILURE() << "threw nothing";
  throw std::logic_error("threw nothing");
}

// read_program's failure of one process: its pid and the cause it names.
ProgramProcessError process_error(const std::vector<Part>& parts,
                                  const ProgramOptions& o = options()) {
  return thrown<ProgramProcessError>([&] { read(parts, o); });
}

CorruptTrace corrupt_part(const Part& p) {
  return thrown<CorruptTrace>([&] { p.parse(); });
}

// Names by value (string_view): a reference parameter bound to a temporary ("step") would make
// g++ 13 warn that the returned reference may dangle (-Wdangling-reference), though it does not.
const ProgramRange& program_range(const ProgramReading& r, std::string_view name,
                                  std::string_view domain = "") {
  for (const ProgramRange& g : r.program.ranges) {
    if (g.name == name && g.domain == domain) return g;
  }
  throw std::runtime_error("no range " + std::string(name));
}

const Result& row(const ProgramReading& r, std::string_view name) {
  for (const Result& res : r.results) {
    if (res.row.case_name == name) return res;
  }
  throw std::runtime_error("no row " + std::string(name));
}

std::vector<Nanos> busy_of(const Result& r) {
  std::vector<Nanos> out;
  for (const Sample& s : r.measurement.samples) out.push_back(s.device_busy_ns);
  return out;
}

// Whether `text` holds `part`, showing both when it does not.
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

// ---------------------------------------------------------------------------------------------
// parse_part

TEST(ParsePart, RoundTripsEveryField) {
  const ProcessPart p = Part(4242, 17)
                            .dropped_device(2)
                            .lost_device(5)
                            .dropped_host(1)
                            .foreign("libkineto.so (cuptiSubscribe)")
                            .thread(11, "python3")
                            .thread(12, "pt_autograd_0")
                            .push(11, 100, "step", "nccl")
                            .start(12, 110, 9, "epoch")
                            .launch(11, 31, 120, "cudaLaunchKernel", 0, true)
                            .launch(11, 31, 121, "cuLaunchKernel", 31, false)
                            .device(31, 1000, 1500, "gemm", "kernel", 1, 3, 8)
                            .device(31, 1600, 1700, "memcpy 64 B", "memcpy")
                            .device(31, 1800, 1900, "memset 8 B", "memset")
                            .end(11, 130, 9)
                            .pop(11, 140, "nccl")
                            .parse();
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.parent_pid, 17);
  EXPECT_FALSE(p.forked);
  EXPECT_TRUE(p.cupti);
  EXPECT_EQ(p.cupti_problem, "");
  EXPECT_EQ(p.lost_device_records, 5u);
  // CUPTI's counter plus the records handed over untimed.
  EXPECT_EQ(p.trace.dropped_activity_records, std::optional<std::uint64_t>(7));
  EXPECT_EQ(p.trace.dropped_host_events, std::optional<std::uint64_t>(1));
  EXPECT_EQ(p.foreign_cupti_clients, std::vector<std::string>{"libkineto.so (cuptiSubscribe)"});
  EXPECT_EQ(p.thread_names,
            (std::map<std::uint64_t, std::string>{{11, "python3"}, {12, "pt_autograd_0"}}));
  ASSERT_EQ(p.trace.ranges.size(), 4u);
  EXPECT_EQ(p.trace.ranges[0].kind, RangeEventKind::push);
  EXPECT_EQ(p.trace.ranges[0].host_ns, 100);
  EXPECT_EQ(p.trace.ranges[0].thread, 11u);
  EXPECT_EQ(p.trace.ranges[0].name, "step");
  EXPECT_EQ(p.trace.ranges[0].domain, "nccl");
  EXPECT_EQ(p.trace.ranges[1].kind, RangeEventKind::start);
  EXPECT_EQ(p.trace.ranges[1].id, 9u);
  EXPECT_EQ(p.trace.ranges[1].thread, 12u);
  EXPECT_EQ(p.trace.ranges[2].kind, RangeEventKind::end);
  EXPECT_EQ(p.trace.ranges[2].id, 9u);
  EXPECT_EQ(p.trace.ranges[3].kind, RangeEventKind::pop);
  EXPECT_EQ(p.trace.ranges[3].host_ns, 140);
  ASSERT_EQ(p.trace.launches.size(), 2u);
  EXPECT_EQ(p.trace.launches[0].thread, 11u);
  EXPECT_EQ(p.trace.launches[0].correlation_id, 31u);
  EXPECT_EQ(p.trace.launches[0].host_ns, 120);
  EXPECT_EQ(p.trace.launches[0].api, "cudaLaunchKernel");
  EXPECT_EQ(p.trace.launches[1].api, "cuLaunchKernel");
  EXPECT_EQ(p.capturing, (std::vector<bool>{true, false}));
  EXPECT_EQ(p.enclosing, (std::vector<std::uint64_t>{0, 31}));
  ASSERT_EQ(p.trace.activities.size(), 3u);
  const Activity& k = p.trace.activities[0];
  EXPECT_EQ(k.kind, ActivityKind::kernel);
  EXPECT_EQ(k.start_ns, 1000);
  EXPECT_EQ(k.end_ns, 1500);
  EXPECT_EQ(k.correlation_id, 31u);
  EXPECT_EQ(k.device, 1u);
  EXPECT_EQ(k.stream, 3u);
  EXPECT_EQ(k.graph_node, 8u);
  EXPECT_EQ(k.name, "gemm");
  EXPECT_EQ(p.trace.activities[1].kind, ActivityKind::memcpy);
  EXPECT_EQ(p.trace.activities[2].kind, ActivityKind::memset);
  EXPECT_EQ(p.trace.activities[2].name, "memset 8 B");
}

TEST(ParsePart, UnreadableDropCounterStaysUnknown) {
  // CUPTI on and launches made, but its counter could not be read: not proven zero.
  const ProcessPart p = Part(100).dropped_device(std::nullopt).kernel(1, 10, 100, 200).parse();
  EXPECT_FALSE(p.trace.dropped_activity_records.has_value());
}

TEST(ParsePart, ProcessWithoutCudaHasOnlyItsLostRecordsToLose) {
  // No CUPTI, no problem, no launch: a process that made NVTX calls only.
  EXPECT_EQ(
      Part(100).cupti(false).dropped_device(std::nullopt).parse().trace.dropped_activity_records,
      std::optional<std::uint64_t>(0));
  EXPECT_EQ(Part(100)
                .cupti(false)
                .dropped_device(std::nullopt)
                .lost_device(2)
                .parse()
                .trace.dropped_activity_records,
            std::optional<std::uint64_t>(2));
  // With a launch it did use CUDA, and its counter is unknown.
  EXPECT_FALSE(Part(100)
                   .cupti(false)
                   .dropped_device(std::nullopt)
                   .launch(1, 1, 10)
                   .parse()
                   .trace.dropped_activity_records.has_value());
}

TEST(ParsePart, ForkedChildWithoutDeviceWorkHasNothingToLose) {
  const ProcessPart p = Part(101, kCommandPid, program_part::kOriginFork)
                            .cupti(false, "a forked child: CUDA cannot be used after fork")
                            .dropped_device(std::nullopt)
                            .push(1, 10, "load")
                            .pop(1, 20)
                            .parse();
  EXPECT_TRUE(p.forked);
  EXPECT_EQ(p.parent_pid, kCommandPid);
  EXPECT_FALSE(p.cupti);
  EXPECT_EQ(p.trace.dropped_activity_records, std::optional<std::uint64_t>(0));
}

TEST(ParsePart, MalformedJsonIsCorrupt) {
  const CorruptTrace e = thrown<CorruptTrace>([] { parse_part("{\"schema\": ", "part-7.json"); });
  EXPECT_TRUE(Contains(e.what(), "part-7.json: not JSON"));
  EXPECT_TRUE(
      Contains(thrown<CorruptTrace>([] { parse_part("", "part-7.json"); }).what(), "part-7.json"));
}

TEST(ParsePart, NotAnObjectIsCorrupt) {
  EXPECT_TRUE(Contains(thrown<CorruptTrace>([] { parse_part("[1, 2]", "part-7.json"); }).what(),
                       "part-7.json: not an object"));
}

TEST(ParsePart, WrongSchemaIsCorrupt) {
  const Part p = Part(100).set("schema", quote("gpumeter.record"));
  EXPECT_TRUE(Contains(corrupt_part(p).what(), "part-100.json: not a part"));
  EXPECT_TRUE(Contains(corrupt_part(Part(100).erase("schema")).what(), "not a part"));
}

TEST(ParsePart, WrongVersionIsCorrupt) {
  const Part p = Part(100).set("version", std::to_string(program_part::kVersion + 1));
  EXPECT_TRUE(Contains(corrupt_part(p).what(), "part-100.json: a part of another version"));
  EXPECT_TRUE(Contains(corrupt_part(Part(100).set("version", "\"1\"")).what(), "another version"));
}

TEST(ParsePart, MissingFieldIsCorrupt) {
  for (const char* key : {"pid", "parent_pid", "origin", "cupti", "cupti_problem",
                          "foreign_cupti_clients", "dropped_host_events", "dropped_device_records",
                          "lost_device_records", "threads", "ranges", "launches", "device"}) {
    SCOPED_TRACE(key);
    EXPECT_TRUE(Contains(corrupt_part(Part(100).erase(key)).what(),
                         std::string("part-100.json: no field '") + key + "'"));
  }
}

TEST(ParsePart, FieldOfWrongTypeIsCorrupt) {
  EXPECT_TRUE(Contains(corrupt_part(Part(100).set("pid", "\"100\"")).what(),
                       "part-100.json: 'pid' is not a pid"));
  EXPECT_TRUE(Contains(corrupt_part(Part(100).set("cupti", "1")).what(), "wrong type"));
  EXPECT_TRUE(Contains(corrupt_part(Part(100).set("threads", "{\"1\": 5}")).what(), "wrong type"));
  EXPECT_TRUE(Contains(corrupt_part(Part(100).set("lost_device_records", "-1")).what(),
                       "'lost_device_records' is not a count"));
  EXPECT_TRUE(Contains(corrupt_part(Part(100).set("dropped_device_records", "1.5")).what(),
                       "'dropped_device_records' is not a count"));
  EXPECT_TRUE(Contains(corrupt_part(Part(100).set("dropped_host_events", "true")).what(),
                       "'dropped_host_events' is not a count"));
}

TEST(ParsePart, UnknownOriginIsCorrupt) {
  EXPECT_TRUE(Contains(corrupt_part(Part(100, 1, "clone")).what(),
                       "part-100.json: unknown origin 'clone'"));
}

TEST(ParsePart, RowOfWrongShapeIsCorrupt) {
  // Each row names the part and its index.
  struct Case {
    Part part;
    const char* message;
  };
  const std::vector<Case> cases = {
      {Part(100).launch(1, 1, 10).raw_launch("[1, 2, 0, 10, \"cudaLaunchKernel\"]"),
       "part-100.json: launches[1]: not a launch"},
      {Part(100).raw_launch("[1, 2, 0, 10, \"cudaLaunchKernel\", false, 0]"),
       "launches[0]: not a launch"},
      {Part(100).raw_launch("[1, 2, 0, 10, \"cudaLaunchKernel\", 1]"), "launches[0]: not a launch"},
      {Part(100).raw_launch("{\"thread\": 1}"), "launches[0]: not a launch"},
      {Part(100).raw_launch("[1, 2, 0, -10, \"cudaLaunchKernel\", false]"),
       "launches[0]: field 3 is out of range"},
      {Part(100).raw_launch("[1, 2, 0, 10, 5, false]"), "launches[0]: field 4 is not a string"},
      {Part(100).raw_range("[\"push\", 10, 1, 0, \"step\"]"), "ranges[0]: not a range event"},
      {Part(100).raw_range("[\"open\", 10, 1, 0, \"step\", \"\"]"),
       "ranges[0]: unknown range event 'open'"},
      {Part(100).raw_range("[\"push\", 1.5, 1, 0, \"step\", \"\"]"),
       "ranges[0]: field 1 is not an integer"},
      {Part(100).raw_device("[\"kernel\", 1, 2, 3, 0, 7, 0]"), "device[0]: not a device record"},
      {Part(100).raw_device("[\"graph\", 1, 2, 3, 0, 7, 0, \"k\"]"),
       "device[0]: unknown device record 'graph'"},
      {Part(100).raw_device("[\"kernel\", 1, 2, 3, 4294967296, 7, 0, \"k\"]"),
       "device[0]: field 4 is out of range"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_TRUE(Contains(corrupt_part(c.part).what(), c.message));
  }
}

TEST(ParsePart, ThreadIdThatIsNotANumberIsCorrupt) {
  for (const char* key : {"main", "99999999999999999999999", "12abc", "-1", ""}) {
    SCOPED_TRACE(key);
    const Part p = Part(100).set("threads", "{" + quote(key) + ": \"python3\"}");
    EXPECT_TRUE(Contains(corrupt_part(p).what(), "part-100.json"));
  }
}

TEST(ParsePart, CollectionOfTheWrongTypeIsCorrupt) {
  for (const auto& [key, text] :
       std::vector<std::pair<std::string, std::string>>{{"device", "null"},
                                                        {"ranges", "{}"},
                                                        {"launches", "null"},
                                                        {"foreign_cupti_clients", "\"libx.so\""},
                                                        {"threads", "[\"main\"]"},
                                                        {"pid", "100.7"},
                                                        {"parent_pid", "\"1\""}}) {
    SCOPED_TRACE(key + " = " + text);
    EXPECT_TRUE(Contains(corrupt_part(Part(100).set(key, text)).what(), "part-100.json"));
  }
}

// ---------------------------------------------------------------------------------------------
// read_program: attribution

TEST(ReadProgram, NestedRangesCountEachKernelInBoth) {
  const ProgramReading r = read({Part(kCommandPid)
                                     .thread(1, "python3")
                                     .push(1, 100, "outer")
                                     .kernel(1, 110, 1000, 1100)
                                     .push(1, 120, "inner")
                                     .kernel(1, 130, 1050, 1200)  // overlaps the first
                                     .kernel(1, 140, 1300, 1350)  // after a gap of 100
                                     .pop(1, 150)
                                     .pop(1, 160)});
  // outer: [1000, 1200] and [1300, 1350]; inner: [1050, 1200] and [1300, 1350].
  const Result& outer = row(r, "outer");
  const Result& inner = row(r, "inner");
  ASSERT_EQ(outer.measurement.samples.size(), 1u);
  EXPECT_EQ(outer.measurement.samples[0].device_busy_ns, 250);
  EXPECT_EQ(outer.measurement.samples[0].latency_ns, 350);
  EXPECT_EQ(outer.measurement.samples[0].n_kernels, std::optional<int>(3));
  ASSERT_EQ(inner.measurement.samples.size(), 1u);
  EXPECT_EQ(inner.measurement.samples[0].device_busy_ns, 200);
  EXPECT_EQ(inner.measurement.samples[0].latency_ns, 300);
  EXPECT_EQ(inner.measurement.samples[0].n_kernels, std::optional<int>(2));
  EXPECT_TRUE(r.program.outside.empty());
  EXPECT_TRUE(r.program.launches_without_work.empty());
}

TEST(ReadProgram, RowSamplesAreTheInstances) {
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "step")
                                     .kernel(1, 110, 1000, 1250)
                                     .pop(1, 120)
                                     .push(1, 200, "step")
                                     .kernel(1, 210, 2000, 2300)
                                     .kernel(1, 220, 2200, 2400)  // union 400
                                     .pop(1, 230)
                                     .push(1, 300, "step")
                                     .kernel(1, 310, 3000, 3100)
                                     .pop(1, 320)
                                     .push(1, 400, "step")  // no device work
                                     .pop(1, 410)});
  ASSERT_EQ(r.results.size(), 1u);
  const Result& step = r.results[0];
  EXPECT_EQ(step.row.case_name, "step");
  EXPECT_TRUE(step.row.params.empty());  // NVTX's default domain
  EXPECT_EQ(step.row.implementation, "program");
  // One sample per instance with device work, in the order they were opened.
  EXPECT_EQ(busy_of(step), (std::vector<Nanos>{250, 400, 100}));
  EXPECT_EQ(step.measurement.samples[1].n_kernels, std::optional<int>(2));
  // One run is one pass: its instances share the run's state, so they are not the units that vary.
  EXPECT_EQ(step.measurement.pass_sizes, (std::vector<std::size_t>{3}));
  EXPECT_EQ(step.measurement.measure_iterations, 3u);
  EXPECT_EQ(step.measurement.method, TimingMethod::kernel_records);
  // Sorted 100, 250, 400: p10 at rank 0.2, p90 at rank 1.8 (linear interpolation).
  EXPECT_EQ(step.summary.n_samples, 3u);
  EXPECT_DOUBLE_EQ(step.summary.device_busy.p10_ns, 130.0);
  EXPECT_DOUBLE_EQ(step.summary.device_busy.median_ns, 250.0);
  EXPECT_DOUBLE_EQ(step.summary.device_busy.p90_ns, 370.0);
  EXPECT_EQ(step.summary.max_n_kernels, std::optional<int>(2));
  EXPECT_EQ(step.measurement.estimate_ns, 250);
  const ProgramRange& g = program_range(r, "step");
  EXPECT_EQ(g.instances, 4u);
  EXPECT_EQ(g.with_device_work, 3u);
}

TEST(ReadProgram, ProcessWideRangeCoversEveryThread) {
  // Started on thread 1, ended on thread 2: launches of both threads in between are its own.
  const ProgramReading r = read({Part(kCommandPid)
                                     .thread(1, "python3")
                                     .thread(2, "worker")
                                     .start(1, 100, 7, "epoch")
                                     .kernel(2, 150, 1000, 1100)
                                     .kernel(1, 160, 1200, 1300)
                                     .end(2, 200, 7)
                                     .kernel(2, 250, 1400, 1450, "late")});
  const Result& epoch = row(r, "epoch");
  ASSERT_EQ(epoch.measurement.samples.size(), 1u);
  EXPECT_EQ(epoch.measurement.samples[0].n_kernels, std::optional<int>(2));
  EXPECT_EQ(epoch.measurement.samples[0].device_busy_ns, 200);
  EXPECT_EQ(epoch.measurement.samples[0].latency_ns, 300);
  ASSERT_EQ(r.program.outside.size(), 1u);
  EXPECT_EQ(r.program.outside[0].thread, 2u);
  EXPECT_EQ(r.program.outside[0].kernel, "late");
}

TEST(ReadProgram, OutsideKernelsAreNamedAsTheirSourceNamesThem) {
  // CUPTI gives C++ kernels' mangled symbols; a name that is not one stays as it is.
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "step")
                                     .kernel(1, 110, 1000, 1100)
                                     .pop(1, 120)
                                     .kernel(1, 130, 1200, 1300, "_ZN2at6native11fill_kernelEPfi")
                                     .kernel(1, 140, 1400, 1500, "sm80_xmma_gemm_cublas")
                                     .kernel(1, 150, 1600, 1700, "_Znot_a_symbol")});
  std::vector<std::string> names;
  for (const ProgramOutsideKernels& o : r.program.outside) names.push_back(o.kernel);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"_Znot_a_symbol", "at::native::fill_kernel(float*, int)",
                                      "sm80_xmma_gemm_cublas"}));
}

TEST(ReadProgram, PushPopCoversOnlyItsOwnThread) {
  const ProgramReading r = read({Part(kCommandPid)
                                     .thread(1, "python3")
                                     .thread(2, "worker")
                                     .push(1, 300, "step")
                                     .kernel(2, 310, 2000, 2100, "gemm")
                                     .kernel(2, 320, 2050, 2150, "gemm")
                                     .kernel(1, 330, 2200, 2250, "relu")
                                     .kernel(2, 335, 2300, 2310, "add")
                                     .pop(1, 340)});
  const Result& step = row(r, "step");
  ASSERT_EQ(step.measurement.samples.size(), 1u);
  EXPECT_EQ(step.measurement.samples[0].n_kernels, std::optional<int>(1));
  EXPECT_EQ(step.measurement.samples[0].device_busy_ns, 50);
  // Thread 2's kernels, by thread then kernel name, with the thread's name.
  ASSERT_EQ(r.program.outside.size(), 2u);
  const ProgramOutsideKernels& add = r.program.outside[0];
  const ProgramOutsideKernels& gemm = r.program.outside[1];
  EXPECT_EQ(add.pid, kCommandPid);
  EXPECT_EQ(add.thread, 2u);
  EXPECT_EQ(add.thread_name, "worker");
  EXPECT_EQ(add.kernel, "add");
  EXPECT_EQ(add.n_kernels, 1);
  EXPECT_EQ(gemm.kernel, "gemm");
  EXPECT_EQ(gemm.thread_name, "worker");
  EXPECT_EQ(gemm.n_kernels, 2);
  EXPECT_EQ(gemm.total_ns, 200);
  EXPECT_EQ(gemm.device_busy_ns, 150);
}

TEST(ReadProgram, InstancesMergeAcrossProcesses) {
  const Part command = Part(kCommandPid, 1)
                           .push(1, 100, "step")
                           .kernel(1, 110, 1000, 1100)
                           .pop(1, 120)
                           .push(1, 200, "step")
                           .kernel(1, 210, 2000, 2300)
                           .pop(1, 220);
  // A program the command started: its own clock, its own thread ids.
  const Part exec = Part(200, kCommandPid).push(1, 50, "step").kernel(1, 60, 500, 700).pop(1, 70);
  // A forked worker: ranges only, no device records.
  const Part fork = Part(300, kCommandPid, program_part::kOriginFork)
                        .cupti(false,
                               "a forked child: CUDA cannot be used after fork, so it has "
                               "no device records")
                        .dropped_device(std::nullopt)
                        .push(4, 10, "step")
                        .pop(4, 20)
                        .push(4, 30, "load")
                        .pop(4, 40);
  const ProgramReading r = read({command, exec, fork});
  const ProgramRange& step = program_range(r, "step");
  EXPECT_EQ(step.instances, 4u);
  EXPECT_EQ(step.with_device_work, 3u);
  EXPECT_EQ(busy_of(row(r, "step")), (std::vector<Nanos>{100, 300, 200}));
  const ProgramRange& load = program_range(r, "load");
  EXPECT_EQ(load.instances, 1u);
  EXPECT_EQ(load.with_device_work, 0u);
  ASSERT_EQ(r.results.size(), 1u);  // no row for a range without device work

  ASSERT_EQ(r.program.processes.size(), 3u);
  const ProgramProcess& p0 = r.program.processes[0];
  const ProgramProcess& p1 = r.program.processes[1];
  const ProgramProcess& p2 = r.program.processes[2];
  EXPECT_EQ(p0.pid, kCommandPid);
  EXPECT_EQ(p0.origin, ProcessOrigin::command);
  EXPECT_EQ(p0.range_events, 4u);
  EXPECT_EQ(p0.launches, 2u);
  EXPECT_EQ(p0.device_records, 2u);
  EXPECT_EQ(p1.pid, 200);
  EXPECT_EQ(p1.parent_pid, kCommandPid);
  EXPECT_EQ(p1.origin, ProcessOrigin::exec);
  EXPECT_EQ(p1.launches, 1u);
  EXPECT_EQ(p2.pid, 300);
  EXPECT_EQ(p2.parent_pid, kCommandPid);
  EXPECT_EQ(p2.origin, ProcessOrigin::fork);
  EXPECT_EQ(p2.range_events, 4u);
  EXPECT_EQ(p2.launches, 0u);
  EXPECT_EQ(p2.device_records, 0u);
}

// ---------------------------------------------------------------------------------------------
// read_program: PyTorch's autograd engine threads

// Thread 1 opens "backward" and waits in it while engine thread 5 launches; thread 5 launches
// again after it closed.
Part backward_part() {
  return Part(kCommandPid)
      .thread(1, "python3")
      .thread(5, "pt_autograd_0")
      .push(1, 100, "backward")
      .kernel(5, 150, 1000, 1100, "grad")
      .pop(1, 200)
      .kernel(5, 250, 1200, 1300, "grad");
}

TEST(ReadProgram, EngineThreadIsAdoptedByTheRangeThread) {
  const ProgramReading r = read({backward_part()}, options(EngineThreads::adopt));
  const Result& backward = row(r, "backward");
  ASSERT_EQ(backward.measurement.samples.size(), 1u);
  EXPECT_EQ(backward.measurement.samples[0].n_kernels, std::optional<int>(1));
  EXPECT_EQ(backward.measurement.samples[0].device_busy_ns, 100);
  // Only while the range is open: the later launch is outside.
  ASSERT_EQ(r.program.outside.size(), 1u);
  EXPECT_EQ(r.program.outside[0].thread, 5u);
  EXPECT_EQ(r.program.outside[0].thread_name, "pt_autograd_0");
  EXPECT_EQ(r.program.outside[0].n_kernels, 1);
  EXPECT_TRUE(Contains(r.program.engine_threads, "pt_autograd_N"));
}

TEST(ReadProgram, EngineThreadOwnKeepsItsKernelsOutside) {
  const ProgramReading r = read({backward_part()}, options(EngineThreads::own));
  EXPECT_TRUE(r.results.empty());
  const ProgramRange& backward = program_range(r, "backward");
  EXPECT_EQ(backward.instances, 1u);
  EXPECT_EQ(backward.with_device_work, 0u);
  ASSERT_EQ(r.program.outside.size(), 1u);
  EXPECT_EQ(r.program.outside[0].thread, 5u);
  EXPECT_EQ(r.program.outside[0].kernel, "grad");
  EXPECT_EQ(r.program.outside[0].n_kernels, 2);
  EXPECT_TRUE(Contains(r.program.engine_threads, "--engine-threads own"));
}

TEST(ReadProgram, EngineThreadWithTwoRangeThreadsIsRefused) {
  const Part part = backward_part().thread(3, "loader").push(3, 300, "load").pop(3, 310);
  const ProgramProcessError e = process_error({part}, options(EngineThreads::adopt));
  EXPECT_EQ(e.pid(), kCommandPid);
  EXPECT_EQ(e.cause(), "ConfigError");
  EXPECT_TRUE(Contains(e.what(), "process 100: PyTorch's autograd engine thread 5"));
  EXPECT_TRUE(Contains(e.what(), "2 threads opened ranges (1, 3)"));
  EXPECT_TRUE(Contains(e.what(), "--engine-threads own"));
  // Not refused when the engine threads keep their own kernels.
  const ProgramReading r = read({part}, options(EngineThreads::own));
  EXPECT_EQ(program_range(r, "load").instances, 1u);
}

TEST(ReadProgram, LostRecordsAreReportedBeforeTheEngineThreadRule) {
  // Records lost and the engine rule refused in one process: the loss is named, since the
  // ambiguity could be its doing.
  const Part part =
      backward_part().thread(3, "loader").push(3, 300, "load").pop(3, 310).dropped_device(2);
  const ProgramProcessError e = process_error({part}, options(EngineThreads::adopt));
  EXPECT_EQ(e.cause(), "CollectorRecordsLost");
}

TEST(ReadProgram, IsAutogradEngineThread) {
  EXPECT_TRUE(is_autograd_engine_thread("pt_autograd_0"));
  EXPECT_TRUE(is_autograd_engine_thread("pt_autograd_12"));
  EXPECT_FALSE(is_autograd_engine_thread("pt_autograd"));
  EXPECT_FALSE(is_autograd_engine_thread("python3"));
  EXPECT_FALSE(is_autograd_engine_thread("x_pt_autograd_0"));
  EXPECT_FALSE(is_autograd_engine_thread(""));
}

// ---------------------------------------------------------------------------------------------
// read_program: launches

TEST(ReadProgram, DriverLaunchInsideRuntimeLaunchCountsOnce) {
  // cudaLaunchKernel calls cuLaunchKernel on the same thread; CUPTI gives both one id.
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "step")
                                     .launch(1, 9, 110, "cudaLaunchKernel")
                                     .launch(1, 9, 111, "cuLaunchKernel", 9)
                                     .device(9, 1000, 1100)
                                     .pop(1, 120)});
  const Result& step = row(r, "step");
  ASSERT_EQ(step.measurement.samples.size(), 1u);
  EXPECT_EQ(step.measurement.samples[0].n_kernels, std::optional<int>(1));
  EXPECT_EQ(r.program.processes[0].launches, 1u);
  EXPECT_TRUE(r.program.launches_without_work.empty());
}

TEST(ReadProgram, DriverLaunchWithItsOwnIdIsTheRuntimeLaunch) {
  // The kernel record carries the driver call's id: it is the runtime launch's kernel.
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "step")
                                     .launch(1, 9, 110, "cudaLaunchKernel")
                                     .launch(1, 10, 111, "cuLaunchKernel", 9)
                                     .device(10, 1000, 1100)
                                     .pop(1, 120)});
  EXPECT_EQ(row(r, "step").measurement.samples.at(0).n_kernels, std::optional<int>(1));
  EXPECT_EQ(r.program.processes[0].launches, 1u);
  EXPECT_TRUE(r.program.launches_without_work.empty());
}

TEST(ReadProgram, TwoLaunchesWithOneIdAreCorrupt) {
  // Without the enclosing id they are two launches claiming one kernel.
  const ProgramProcessError e = process_error({Part(kCommandPid)
                                                   .push(1, 100, "step")
                                                   .launch(1, 9, 110, "cudaLaunchKernel")
                                                   .launch(1, 9, 111, "cuLaunchKernel")
                                                   .device(9, 1000, 1100)
                                                   .pop(1, 120)});
  EXPECT_EQ(e.cause(), "CorruptTrace");
  EXPECT_TRUE(Contains(e.what(), "two launches carry correlation id 9"));
}

TEST(ReadProgram, KernelLaunchDuringCaptureMayLeaveNoKernel) {
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "step")
                                     .kernel(1, 105, 1000, 1100)
                                     .launch(1, 50, 110, "cudaLaunchKernel", 0, true)
                                     .launch(1, 51, 111, "cudaMemcpyAsync")
                                     .pop(1, 120)});
  EXPECT_EQ(row(r, "step").measurement.samples.at(0).n_kernels, std::optional<int>(1));
  // Both listed, by API; neither refused.
  ASSERT_EQ(r.program.launches_without_work.size(), 2u);
  const ProgramLaunchesWithoutWork& captured = r.program.launches_without_work[0];
  const ProgramLaunchesWithoutWork& copy = r.program.launches_without_work[1];
  EXPECT_EQ(captured.pid, kCommandPid);
  EXPECT_EQ(captured.thread, 1u);
  EXPECT_EQ(captured.api, "cudaLaunchKernel (during a stream capture)");
  EXPECT_EQ(captured.n, 1u);
  EXPECT_FALSE(captured.kernel_launch_api);
  EXPECT_EQ(copy.api, "cudaMemcpyAsync");
  EXPECT_FALSE(copy.kernel_launch_api);
}

TEST(ReadProgram, KernelLaunchWithoutKernelIsRefused) {
  const KernelRecordsMissing e = thrown<KernelRecordsMissing>([] {
    read({Part(kCommandPid)
              .push(1, 100, "step")
              .kernel(1, 105, 1000, 1100)
              .launch(3, 50, 110, "cudaLaunchKernel")
              .launch(3, 51, 111, "cuLaunchKernelEx")
              .pop(1, 120)});
  });
  EXPECT_TRUE(Contains(e.what(), "2 kernel launch call(s)"));
  EXPECT_TRUE(Contains(e.what(), "first: process 100, thread 3: cudaLaunchKernel"));
}

TEST(ReadProgram, OneKernelLaunchWithoutKernelIsRefused) {
  // In a process other than the command's, outside every range: still refused.
  const KernelRecordsMissing e = thrown<KernelRecordsMissing>([] {
    read({Part(kCommandPid).push(1, 100, "step").kernel(1, 105, 1000, 1100).pop(1, 120),
          Part(200).launch(8, 1, 10, "cudaLaunchCooperativeKernel")});
  });
  EXPECT_TRUE(Contains(e.what(), "1 kernel launch call(s)"));
  EXPECT_TRUE(Contains(e.what(), "first: process 200, thread 8: cudaLaunchCooperativeKernel"));
}

// ---------------------------------------------------------------------------------------------
// read_program: lost records and CUPTI

TEST(ReadProgram, DroppedDeviceRecordsAreRefused) {
  const ProgramProcessError e =
      process_error({Part(kCommandPid).push(1, 1, "a").pop(1, 2),
                     Part(200).dropped_device(3).push(1, 1, "a").kernel(1, 2, 10, 20).pop(1, 3)});
  EXPECT_EQ(e.pid(), 200);
  EXPECT_EQ(e.cause(), "CollectorRecordsLost");
  EXPECT_TRUE(Contains(e.what(), "process 200: the collector lost 3 CUPTI activity records"));
}

TEST(ReadProgram, LostDeviceRecordsAreRefused) {
  const ProgramProcessError e = process_error(
      {Part(kCommandPid).lost_device(2).push(1, 1, "a").kernel(1, 2, 10, 20).pop(1, 3)});
  EXPECT_EQ(e.cause(), "CollectorRecordsLost");
  EXPECT_TRUE(Contains(e.what(), "lost 2 CUPTI activity records"));
}

TEST(ReadProgram, UnreadableDropCounterIsRefused) {
  const ProgramProcessError e = process_error({Part(kCommandPid)
                                                   .dropped_device(std::nullopt)
                                                   .push(1, 1, "a")
                                                   .kernel(1, 2, 10, 20)
                                                   .pop(1, 3)});
  EXPECT_EQ(e.cause(), "CollectorRecordsLost");
  EXPECT_TRUE(Contains(e.what(), "could not count its lost CUPTI activity records"));
}

TEST(ReadProgram, DroppedHostEventsAreRefused) {
  const ProgramProcessError e = process_error(
      {Part(kCommandPid).dropped_host(4).push(1, 1, "a").kernel(1, 2, 10, 20).pop(1, 3)});
  EXPECT_EQ(e.cause(), "CollectorRecordsLost");
  EXPECT_TRUE(Contains(e.what(), "lost 4 range and launch events"));
}

TEST(ReadProgram, LostRecordsComeBeforeRangeErrors) {
  // An unbalanced push could be a lost pop: the loss is the cause named.
  const ProgramProcessError e =
      process_error({Part(kCommandPid).dropped_host(1).push(1, 1, "a").kernel(1, 2, 10, 20)});
  EXPECT_EQ(e.cause(), "CollectorRecordsLost");
}

TEST(ReadProgram, CuptiProblemIsRefused) {
  const ProgramProcessError e = process_error(
      {Part(kCommandPid)
           .cupti(false, "cuptiSubscribe failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED")
           .dropped_device(std::nullopt)
           .push(1, 1, "a")
           .pop(1, 2)});
  EXPECT_EQ(e.pid(), kCommandPid);
  EXPECT_EQ(e.cause(), "CuptiUnavailable");
  EXPECT_TRUE(Contains(e.what(),
                       "process 100: its device work was not recorded: cuptiSubscribe "
                       "failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"));
}

TEST(ReadProgram, ForeignCuptiClientIsNamed) {
  const ProgramProcessError e = process_error({Part(kCommandPid)
                                                   .foreign("libkineto.so (cuptiSubscribe)")
                                                   .foreign("libmytool.so (cuptiActivityEnable)")
                                                   .push(1, 1, "a")
                                                   .kernel(1, 2, 10, 20)
                                                   .pop(1, 3)});
  EXPECT_EQ(e.cause(), "CuptiUnavailable");
  EXPECT_TRUE(Contains(e.what(),
                       "another CUPTI client ran in this process: the PyTorch profiler "
                       "(Kineto), from libkineto.so (cuptiSubscribe); "
                       "libmytool.so (cuptiActivityEnable)"));
  const ProgramProcessError nsys =
      process_error({Part(kCommandPid)
                         .foreign("libToolsInjection64.so (cuptiSubscribe)")
                         .push(1, 1, "a")
                         .pop(1, 2)});
  EXPECT_TRUE(Contains(nsys.what(), "Nsight Systems, from libToolsInjection64.so"));
}

// ---------------------------------------------------------------------------------------------
// read_program: which ranges

TEST(ReadProgram, NoRangeAtAllIsNoRangesFound) {
  const NoRangesFound e = thrown<NoRangesFound>([] {
    read({Part(kCommandPid).kernel(1, 10, 100, 200).kernel(1, 20, 300, 400),
          Part(200).kernel(1, 10, 100, 200)});
  });
  EXPECT_TRUE(Contains(e.what(), "no NVTX range (0 range event(s) in all, 3 kernel(s) outside"));
}

TEST(ReadProgram, NameFilterMatchingNothingIsNoRangesFound) {
  ProgramOptions o = options();
  o.ranges.name_regex = "^nomatch$";
  const NoRangesFound e = thrown<NoRangesFound>(
      [&] { read({Part(kCommandPid).push(1, 1, "step").kernel(1, 2, 10, 20).pop(1, 3)}, o); });
  EXPECT_TRUE(Contains(e.what(),
                       "no NVTX range matching --range '^nomatch$' (2 range event(s) "
                       "in all, 1 kernel(s) outside every range)"));
}

TEST(ReadProgram, DomainFilterMatchingNothingIsNoRangesFound) {
  ProgramOptions o = options();
  o.ranges.domain = "nccl";
  o.ranges.name_regex = "step";
  const NoRangesFound e = thrown<NoRangesFound>(
      [&] { read({Part(kCommandPid).push(1, 1, "step").kernel(1, 2, 10, 20).pop(1, 3)}, o); });
  EXPECT_TRUE(Contains(e.what(), "matching --range 'step' and in domain 'nccl'"));
}

TEST(ReadProgram, DomainFilterSelectsItsRanges) {
  ProgramOptions o = options();
  o.ranges.domain = "nccl";
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "step")
                                     .kernel(1, 110, 1000, 1100, "relu")
                                     .push(1, 120, "allreduce", "nccl")
                                     .kernel(1, 130, 1200, 1500, "ring")
                                     .pop(1, 140, "nccl")
                                     .pop(1, 150)},
                                o);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].row.case_name, "allreduce");
  EXPECT_EQ(r.results[0].row.params, (Params{{"domain", "nccl"}}));
  EXPECT_EQ(busy_of(r.results[0]), (std::vector<Nanos>{300}));
  ASSERT_EQ(r.program.ranges.size(), 1u);
  EXPECT_EQ(r.program.ranges[0].domain, "nccl");
  EXPECT_EQ(r.program.domain, std::optional<std::string>("nccl"));
  // The kernel of the range filtered out belongs to no reported range.
  ASSERT_EQ(r.program.outside.size(), 1u);
  EXPECT_EQ(r.program.outside[0].kernel, "relu");
}

TEST(ReadProgram, NameFilterSelectsItsRanges) {
  ProgramOptions o = options();
  o.ranges.name_regex = "^fw";
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "fwd")
                                     .kernel(1, 110, 1000, 1100)
                                     .pop(1, 120)
                                     .push(1, 200, "bwd")
                                     .kernel(1, 210, 2000, 2100)
                                     .pop(1, 220)},
                                o);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].row.case_name, "fwd");
  EXPECT_EQ(r.program.range_regex, std::optional<std::string>("^fw"));
  ASSERT_EQ(r.program.ranges.size(), 1u);
}

TEST(ReadProgram, BadRegexIsConfigError) {
  ProgramOptions o = options();
  o.ranges.name_regex = "(";
  const ProgramProcessError e = process_error({Part(kCommandPid).push(1, 1, "step").pop(1, 2)}, o);
  EXPECT_EQ(e.cause(), "ConfigError");
  EXPECT_TRUE(Contains(e.what(), "not a valid regular expression"));
}

TEST(ReadProgram, UnnamedRangeHasARowName) {
  const ProgramReading r = read({Part(kCommandPid).push(1, 1, "").kernel(1, 2, 10, 20).pop(1, 3)});
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].row.case_name, "(unnamed range)");
  EXPECT_EQ(r.program.ranges.at(0).name, "(unnamed range)");
}

TEST(ReadProgram, OverlongRangeNameIsRefused) {
  const std::string name(kMaxNameBytes + 1, 'n');
  const ConfigError e = thrown<ConfigError>(
      [&] { read({Part(kCommandPid).push(1, 1, name).kernel(1, 2, 10, 20).pop(1, 3)}); });
  EXPECT_EQ(e.argument(), "range");
  EXPECT_TRUE(Contains(e.what(), "257 bytes"));
  // The limit itself is a name a record holds.
  EXPECT_NO_THROW(read({Part(kCommandPid)
                            .push(1, 1, std::string(kMaxNameBytes, 'n'))
                            .kernel(1, 2, 10, 20)
                            .pop(1, 3)}));
}

TEST(ReadProgram, OverlongDomainIsRefusedAsItIsRead) {
  const std::string domain(kMaxNameBytes + 1, 'd');
  const ConfigError e = thrown<ConfigError>([&] {
    read({Part(kCommandPid).push(1, 1, "r", domain).kernel(1, 2, 10, 20).pop(1, 3, domain)});
  });
  EXPECT_EQ(e.argument(), "domain");
  EXPECT_TRUE(Contains(e.what(), "257 bytes"));
  // Not when its ranges are not reported.
  ProgramOptions o = options();
  o.ranges.domain = "";
  EXPECT_NO_THROW(read({Part(kCommandPid)
                            .push(1, 1, "r", domain)
                            .kernel(1, 2, 10, 20)
                            .pop(1, 3, domain)
                            .push(1, 4, "s")
                            .pop(1, 5)},
                       o));
}

TEST(ReadProgram, CountCopiesCountsThemInTheRange) {
  const Part part = Part(kCommandPid)
                        .push(1, 100, "step")
                        .kernel(1, 110, 1000, 1100)
                        .copy(1, 120, 1200, 1300)
                        .pop(1, 130);
  EXPECT_EQ(busy_of(row(read({part}), "step")), (std::vector<Nanos>{100}));
  ProgramOptions o = options();
  o.ranges.count_copies = true;
  const ProgramReading r = read({part}, o);
  EXPECT_EQ(busy_of(row(r, "step")), (std::vector<Nanos>{200}));
  EXPECT_TRUE(row(r, "step").count_copies);
  EXPECT_EQ(row(r, "step").measurement.samples[0].n_kernels, std::optional<int>(1));
}

// T7 for fills, as a training step's optimizer makes them (kernels and cudaMemsetAsync in one
// range): a fill is no kernel, so a range's kernel count and its kernels outside every range
// count kernels alone, copies counted or not; its time enters device_busy only when counted.
TEST(ReadProgram, FillsAreNoKernelsAndUncountedUnlessCopiesAre) {
  Part part = Part(kCommandPid).push(1, 100, "optimizer");
  for (int i = 0; i < 4; ++i) {
    part.kernel(1, 110 + 10 * i, 1000 + 300 * i, 1100 + 300 * i)
        .fill(1, 115 + 10 * i, 1150 + 300 * i, 1200 + 300 * i);
  }
  part.pop(1, 200).fill(1, 210, 3000, 3040).kernel(1, 220, 3100, 3200);
  for (const bool counted : {false, true}) {
    SCOPED_TRACE(counted ? "copies counted" : "copies not counted");
    ProgramOptions o = options();
    o.ranges.count_copies = counted;
    const ProgramReading r = read({part}, o);
    const Result& optimizer = row(r, "optimizer");
    ASSERT_EQ(optimizer.measurement.samples.size(), 1u);
    EXPECT_EQ(optimizer.measurement.samples[0].n_kernels, std::optional<int>(4));
    EXPECT_EQ(optimizer.summary.max_n_kernels, std::optional<int>(4));
    // Four kernels of 100 ns; counted, four fills of 50 ns beside them.
    EXPECT_EQ(busy_of(optimizer), (std::vector<Nanos>{counted ? 600 : 400}));
    int outside_kernels = 0;
    for (const ProgramOutsideKernels& g : r.program.outside) outside_kernels += g.n_kernels;
    EXPECT_EQ(outside_kernels, 1);
    EXPECT_EQ(r.program.outside.size(), counted ? 2u : 1u);  // the fill's own group, counted
    EXPECT_TRUE(r.program.launches_without_work.empty());
  }
}

// Issue 36: a range's fills and copies not counted are its uncounted copy time (the union of
// their intervals), as a measured call's are; counted, they are inside device_busy and none is
// left uncounted. The kernel count stays the kernels'.
TEST(ReadProgram, UncountedFillsAndCopiesAreTheRangesUncountedCopyTime) {
  Part part = Part(kCommandPid).push(1, 100, "optimizer");
  for (int i = 0; i < 4; ++i) {
    part.kernel(1, 110 + 10 * i, 1000 + 300 * i, 1100 + 300 * i)
        .fill(1, 115 + 10 * i, 1150 + 300 * i, 1200 + 300 * i);
  }
  part.copy(1, 160, 2500, 2600).pop(1, 200);
  for (const bool counted : {false, true}) {
    SCOPED_TRACE(counted ? "copies counted" : "copies not counted");
    ProgramOptions o = options();
    o.ranges.count_copies = counted;
    const ProgramReading r = read({part}, o);
    const Result& optimizer = row(r, "optimizer");
    ASSERT_EQ(optimizer.measurement.samples.size(), 1u);
    const Sample& s = optimizer.measurement.samples[0];
    EXPECT_EQ(s.n_kernels, std::optional<int>(4));
    // Four fills of 50 ns and a copy of 100 ns.
    EXPECT_EQ(s.uncounted_copy_ns, counted ? 0 : 300);
    EXPECT_EQ(s.device_busy_ns, counted ? 700 : 400);
    EXPECT_EQ(optimizer.summary.median_uncounted_copy_ns, counted ? 0 : 300);
  }
}

// A fill or copy call whose device record comes back as a kernel (a driver filling with a kernel
// of its own) did what the call asked: a fill, not one of the program's kernels. Counted apart
// from the kernels by the call, so 32 kernels and 16 fills never read as 48 kernels.
TEST(ReadProgram, AFillCallsKernelRecordIsAFill) {
  Part part = Part(kCommandPid).push(1, 100, "optimizer").kernel(1, 110, 1000, 1100);
  part.launch(1, 900, 120, "cudaMemsetAsync")
      .device(900, 1200, 1250, "void fill_kernel<unsigned char>(...)")
      .launch(1, 901, 130, "cuMemcpyHtoDAsync_v2")
      .device(901, 1300, 1320, "copy_kernel")
      .pop(1, 200);
  for (const bool counted : {false, true}) {
    SCOPED_TRACE(counted ? "copies counted" : "copies not counted");
    ProgramOptions o = options();
    o.ranges.count_copies = counted;
    const ProgramReading r = read({part}, o);
    const Sample& s = row(r, "optimizer").measurement.samples[0];
    EXPECT_EQ(s.n_kernels, std::optional<int>(1));
    EXPECT_EQ(s.device_busy_ns, counted ? 170 : 100);
    EXPECT_EQ(s.uncounted_copy_ns, counted ? 0 : 70);
    EXPECT_TRUE(r.program.launches_without_work.empty());
  }
}

TEST(ReadProgram, CopyThatCopiedIsNotALaunchWithoutWork) {
  // A copy's record is a copy, not a kernel: the copy did put work on the device, counted or not.
  const Part part = Part(kCommandPid)
                        .push(1, 100, "step")
                        .kernel(1, 110, 1000, 1100)
                        .copy(1, 120, 1200, 1300)
                        .pop(1, 130)
                        .copy(1, 140, 1400, 1500);  // outside every range
  for (const bool counted : {false, true}) {
    SCOPED_TRACE(counted ? "copies counted" : "copies not counted");
    ProgramOptions o = options();
    o.ranges.count_copies = counted;
    const ProgramReading r = read({part}, o);
    EXPECT_TRUE(r.program.launches_without_work.empty());
    // Counted, the copy outside every range is listed there, as a group without kernels.
    ASSERT_EQ(r.program.outside.size(), counted ? 1u : 0u);
    if (counted) {
      EXPECT_EQ(r.program.outside[0].n_kernels, 0);
    }
  }
}

TEST(ReadProgram, InstanceThatOnlyCopiedIsNoSample) {
  // Spreads are over the instances that ran a kernel (docs/rules.md, B8), copies counted or not.
  ProgramOptions o = options();
  o.ranges.count_copies = true;
  const ProgramReading r = read({Part(kCommandPid)
                                     .push(1, 100, "step")
                                     .kernel(1, 110, 1000, 1100)
                                     .pop(1, 130)
                                     .push(1, 200, "step")
                                     .copy(1, 210, 2000, 2500)
                                     .pop(1, 230)},
                                o);
  EXPECT_EQ(busy_of(row(r, "step")), (std::vector<Nanos>{100}));
  EXPECT_EQ(program_range(r, "step").instances, 2u);
  EXPECT_EQ(program_range(r, "step").with_device_work, 1u);
}

// ---------------------------------------------------------------------------------------------
// read_program: range errors, named by process

TEST(ReadProgram, RangeLeftOpenNamesIt) {
  const ProgramProcessError e =
      process_error({Part(kCommandPid).push(1, 1, "a").pop(1, 2), Part(200).push(7, 1, "forward")});
  EXPECT_EQ(e.pid(), 200);
  EXPECT_EQ(e.cause(), "RangeLeftOpen");
  EXPECT_TRUE(Contains(e.what(), "process 200: range 'forward'"));
  EXPECT_TRUE(Contains(e.what(), "pushed on thread 7"));
}

TEST(ReadProgram, PopWithNothingOpenIsRangeNotOpen) {
  const ProgramProcessError e =
      process_error({Part(kCommandPid).push(1, 1, "a").pop(1, 2).pop(1, 3)});
  EXPECT_EQ(e.cause(), "RangeNotOpen");
  EXPECT_TRUE(Contains(e.what(), "a pop on thread 1"));
}

TEST(ReadProgram, EndOfUnknownIdIsRangeNotOpen) {
  const ProgramProcessError e = process_error({Part(kCommandPid).end(1, 3, 42)});
  EXPECT_EQ(e.cause(), "RangeNotOpen");
  EXPECT_TRUE(Contains(e.what(), "an end of range id 42"));
}

TEST(ReadProgram, KernelWithoutLaunchIsLaunchNotFound) {
  const ProgramProcessError e =
      process_error({Part(kCommandPid).push(1, 1, "a").pop(1, 2).device(77, 10, 20, "orphan")});
  EXPECT_EQ(e.cause(), "LaunchNotFound");
  EXPECT_TRUE(Contains(e.what(), "'orphan', correlation id 77"));
}

TEST(ReadProgram, RunDescribesTheCommand) {
  ProgramOptions o = options();
  o.implementation = "baseline";
  const ProgramReading r =
      read({Part(kCommandPid).push(1, 1, "step").kernel(1, 2, 10, 20).pop(1, 3)}, o);
  EXPECT_EQ(r.program.command, (std::vector<std::string>{"python3", "train.py"}));
  EXPECT_FALSE(r.program.range_regex.has_value());
  EXPECT_FALSE(r.program.domain.has_value());
  ASSERT_EQ(r.program.processes.size(), 1u);
  EXPECT_EQ(r.program.processes[0].origin, ProcessOrigin::command);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].row.implementation, "baseline");
  // The reader is told what a program's sample is not.
  EXPECT_TRUE(Contains(r.results[0].measurement.reason, "the L2 was not flushed"));
  EXPECT_TRUE(Contains(r.results[0].measurement.reason, "one instance of the range"));
}

// ---------------------------------------------------------------------------------------------
// merge_program_runs: gpumeter run --repeat

// One run of a program: `step` ranges whose kernels last `busy` each, a `data` range without
// device work, and a kernel outside every range.
ProgramReading one_run(long pid, const std::vector<Nanos>& busy) {
  Part p(pid);
  p.thread(1, "python3");
  Nanos t = 100;
  for (const Nanos b : busy) {
    p.push(1, t, "step").kernel(1, t + 1, t * 100, t * 100 + b).pop(1, t + 2);
    p.push(1, t + 3, "data").pop(1, t + 4);
    t += 100;
  }
  p.kernel(1, t, t * 100, t * 100 + 5, "outside");
  ProgramOptions o = options();
  o.command_pid = pid;
  return read_program({p.parse()}, o);
}

TEST(MergeRuns, EachRunIsOnePassOfEveryRow) {
  std::vector<ProgramReading> runs{one_run(100, {1000, 1010, 1020}), one_run(200, {1100, 1110}),
                                   one_run(300, {1200, 1210, 1220, 1230})};
  const ProgramReading m = merge_program_runs(std::move(runs));
  ASSERT_EQ(m.results.size(), 1u);
  const Result& step = m.results[0];
  EXPECT_EQ(step.measurement.pass_sizes, (std::vector<std::size_t>{3, 2, 4}));
  EXPECT_EQ(busy_of(step),
            (std::vector<Nanos>{1000, 1010, 1020, 1100, 1110, 1200, 1210, 1220, 1230}));
  EXPECT_EQ(step.measurement.measure_iterations, 9u);
  // The summary is over every run's instances, not the first run's.
  EXPECT_EQ(step.summary.n_samples, 9u);
  EXPECT_DOUBLE_EQ(step.summary.device_busy.median_ns, 1110.0);
  EXPECT_EQ(step.measurement.estimate_ns, 1110);
  EXPECT_EQ(m.program.runs, 3u);
  EXPECT_EQ(program_range(m, "step").instances, 9u);
  EXPECT_EQ(program_range(m, "step").with_device_work, 9u);
  EXPECT_EQ(program_range(m, "data").instances, 9u);
  EXPECT_EQ(program_range(m, "data").with_device_work, 0u);
  // Every run's processes and outside kernels, each with its run.
  ASSERT_EQ(m.program.processes.size(), 3u);
  ASSERT_EQ(m.program.outside.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(m.program.processes[k].run, k + 1);
    EXPECT_EQ(m.program.processes[k].pid, static_cast<long>(100 * (k + 1)));
    EXPECT_EQ(m.program.outside[k].run, k + 1);
    EXPECT_EQ(m.program.outside[k].kernel, "outside");
  }
}

TEST(MergeRuns, OneRunIsItself) {
  std::vector<ProgramReading> runs{one_run(100, {1000, 1010})};
  const ProgramReading m = merge_program_runs(std::move(runs));
  EXPECT_EQ(m.program.runs, 1u);
  EXPECT_EQ(m.results.at(0).measurement.pass_sizes, (std::vector<std::size_t>{2}));
  EXPECT_EQ(m.program.processes.at(0).run, 1u);
}

TEST(MergeRuns, ARangeWithWorkInSomeRunsOnlyIsRefused) {
  Part other(200);
  other.push(1, 1, "step").kernel(1, 2, 10, 20).pop(1, 3);
  other.push(1, 4, "checkpoint").kernel(1, 5, 30, 40).pop(1, 6);
  ProgramOptions o = options();
  o.command_pid = 200;
  std::vector<ProgramReading> runs{one_run(100, {1000}), read_program({other.parse()}, o),
                                   one_run(300, {1000})};
  const ProgramRunsDiffer e = thrown<ProgramRunsDiffer>([&] { merge_program_runs(runs); });
  EXPECT_TRUE(Contains(e.what(), "'checkpoint'")) << e.what();
  EXPECT_TRUE(Contains(e.what(), "run(s) 2 of 3")) << e.what();
}

TEST(MergeRuns, NoRunIsAnError) {
  EXPECT_THROW(merge_program_runs({}), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// read_parts and missing_parts

// A fresh directory under the system's temporary one, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ =
        fs::temp_directory_path() / ("gpumeter-test-program-run-" + std::to_string(::getpid()) +
                                     "-" + std::to_string(counter++) + "-" + std::to_string(now));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
  }
  void marker(long pid) const { write(program_part::marker_name(pid), "1\n"); }
  void part(const Part& p) const { write(program_part::part_name(p.pid()), p.json()); }

 private:
  fs::path path_;
};

TEST(PartsDir, FoundAndMissing) {
  const TempDir dir;
  dir.marker(100);
  dir.part(Part(100).push(1, 1, "step").pop(1, 2));
  dir.marker(101);                                      // started owing a part, wrote none
  dir.part(Part(102, 100, program_part::kOriginFork));  // a part without its marker still counts
  dir.marker(99);
  // Not parts: a part being written, a marker of no pid, other files.
  dir.write("part-103.json.tmp", "{");
  dir.write("started-abc", "");
  dir.write("part-x.json", "{");
  dir.write("notes.txt", "");
  const PartsFound found = read_parts(dir.path());
  ASSERT_EQ(found.parts.size(), 2u);
  EXPECT_EQ(found.parts[0].pid, 100);
  EXPECT_EQ(found.parts[0].trace.ranges.size(), 2u);
  EXPECT_EQ(found.parts[1].pid, 102);
  EXPECT_TRUE(found.parts[1].forked);
  EXPECT_EQ(found.missing, (std::vector<long>{99, 101}));
  EXPECT_EQ(missing_parts(dir.path()), (std::vector<long>{99, 101}));
  // The part arrives: nothing is missing.
  dir.part(Part(101));
  dir.part(Part(99));
  EXPECT_TRUE(missing_parts(dir.path()).empty());
  EXPECT_EQ(read_parts(dir.path()).parts.size(), 4u);
}

TEST(PartsDir, EmptyDirHasNothing) {
  const TempDir dir;
  const PartsFound found = read_parts(dir.path());
  EXPECT_TRUE(found.parts.empty());
  EXPECT_TRUE(found.missing.empty());
}

TEST(PartsDir, CorruptPartFileIsCorruptTrace) {
  const TempDir dir;
  dir.marker(100);
  dir.write(program_part::part_name(100), "{\"schema\": \"gpumeter.program-part\", ");
  const CorruptTrace e = thrown<CorruptTrace>([&] { read_parts(dir.path()); });
  EXPECT_TRUE(Contains(e.what(), (dir.path() / "part-100.json").string() + ": not JSON"));
  // Only the markers are looked at while waiting: no parse, no error.
  EXPECT_TRUE(missing_parts(dir.path()).empty());
}

TEST(PartsDir, PartNamingAnotherProcessIsCorruptTrace) {
  const TempDir dir;
  dir.write(program_part::part_name(105), Part(106).json());
  const CorruptTrace e = thrown<CorruptTrace>([&] { read_parts(dir.path()); });
  EXPECT_TRUE(Contains(e.what(), "part-105.json: it names process 106"));
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
