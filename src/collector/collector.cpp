// The collector `gpumeter run` injects into an unmodified program (docs/program-runs.md). Loaded
// by the CUDA driver (CUDA_INJECTION64_PATH: InitializeInjection, at cuInit) and by NVTX
// (NVTX_INJECTION64_PATH: InitializeInjectionNvtx2, at the first NVTX call), whichever comes
// first; one library, so both see the same state. It only records: NVTX range events and
// launch-type API calls, each with the calling thread and one host clock (CLOCK_MONOTONIC), and
// CUPTI's kernel, copy and fill records. At exit it writes what it saw as this process's part
// (part_format.hpp); `gpumeter run` attributes it with the core's rules. Nothing here decides
// what a number means.
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cupti_records.hpp"
#include "part_format.hpp"

namespace {

using nlohmann::json;
namespace part = gpumeter::program_part;
namespace records = gpumeter::cupti_records;

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::uint32_t thread_id() {
  thread_local const auto tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
  return tid;
}

// Linux's wchar_t is UTF-32: written as UTF-8 (a code point that is not one becomes U+FFFD).
std::string utf8_of(const wchar_t* w) {
  std::string out;
  if (w == nullptr) return out;
  for (; *w != 0; ++w) {
    auto c = static_cast<std::uint32_t>(*w);
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// Handles NVTX hands back to the program: the objects live until exit, so a handle stays valid.
struct DomainObject {
  std::string name;
};
struct StringObject {
  std::string text;
};

struct RangeRecord {
  part::RangeKind kind;
  std::int64_t host_ns;
  std::uint32_t thread;
  std::uint64_t id;
  std::string name;
  std::string domain;
};

struct LaunchRecord {
  std::uint32_t thread;
  std::uint64_t correlation_id;
  std::uint64_t enclosing_id;  // the runtime call this driver call was made inside, else 0
  std::int64_t host_ns;
  std::string api;
  bool capturing;  // a stream capture was under way: the call may have been captured, not run
};

struct DeviceRecord {
  part::DeviceKind kind;
  std::uint64_t start_ns;
  std::uint64_t end_ns;
  std::uint64_t correlation_id;
  std::uint32_t device;
  std::uint32_t stream;
  std::uint64_t graph_node;
  std::string name;
};

// Past this many host events the collector stops storing and counts what it drops: a run that
// long is reported as lost records, never as a process that ran out of memory.
constexpr std::size_t kMaxHostEvents = std::size_t{1} << 26;
// CUPTI's activity buffers: large enough that a busy training step does not fill one between two
// of CUPTI's flushes; CUPTI asks for more as it needs them.
constexpr std::size_t kActivityBufferBytes = std::size_t{8} << 20;

struct State {
  std::mutex mutex;
  bool started = false;  // the process's marker exists: it owes a part
  bool finished = false;
  std::string dir;
  std::string origin = part::kOriginExec;
  long parent_pid = 0;
  std::vector<RangeRecord> ranges;
  std::vector<LaunchRecord> launches;
  std::vector<DeviceRecord> device;
  std::unordered_map<std::uint32_t, std::string> thread_names;
  std::uint64_t dropped_host = 0;
  std::uint64_t lost_device = 0;  // records with impossible timestamps, buffers cut short
  std::vector<CUcontext> contexts;
  bool cupti_on = false;
  std::string cupti_problem;  // why CUPTI could not be used in this process
  std::deque<DomainObject> domains;
  std::deque<StringObject> strings;
  CUpti_SubscriberHandle subscriber = nullptr;
};

State& state() {
  static State* s = new State;  // never destroyed: exit handlers of other libraries may call us
  return *s;
}

std::atomic<std::uint64_t> g_next_range_id{1};

void note_thread_locked(State& s, std::uint32_t tid) {
  if (s.thread_names.count(tid) != 0) return;
  char name[32] = {0};
  if (::pthread_getname_np(::pthread_self(), name, sizeof(name)) != 0) name[0] = 0;
  s.thread_names.emplace(tid, name);
}

void write_marker(const State& s) {
  const std::string path = s.dir + "/" + part::marker_name(::getpid());
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fprintf(f, "%ld\n", s.parent_pid);
    std::fclose(f);
  }
}

// A forked child owes a part only once it records something: most workers (a DataLoader's) never
// touch NVTX or CUDA, and exit through _exit, which runs no exit handler.
void ensure_started_locked(State& s) {
  if (s.started || s.dir.empty()) return;
  s.started = true;
  write_marker(s);
}

bool store_host_event_locked(State& s) {
  if (s.finished) return false;
  if (s.ranges.size() + s.launches.size() >= kMaxHostEvents) {
    ++s.dropped_host;
    return false;
  }
  ensure_started_locked(s);
  return true;
}

void record_range(part::RangeKind kind, std::uint64_t id, std::string name, std::string domain) {
  const std::int64_t t = now_ns();
  const std::uint32_t tid = thread_id();
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!store_host_event_locked(s)) return;
  note_thread_locked(s, tid);
  s.ranges.push_back(RangeRecord{kind, t, tid, id, std::move(name), std::move(domain)});
}

// ---- NVTX ----

thread_local int t_depth = 0;  // push/pop nesting, for the levels NVTX's calls return

std::string message_of(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return a->message.ascii != nullptr ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
      return utf8_of(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered != nullptr
                 ? reinterpret_cast<const StringObject*>(a->message.registered)->text
                 : "";
    default:
      return {};
  }
}

std::string domain_name(nvtxDomainHandle_t d) {
  return d != nullptr ? reinterpret_cast<const DomainObject*>(d)->name : "";
}

int push(std::string name, std::string domain) {
  record_range(part::RangeKind::push, 0, std::move(name), std::move(domain));
  return t_depth++;
}
int pop(std::string domain) {
  record_range(part::RangeKind::pop, 0, {}, std::move(domain));
  if (t_depth > 0) --t_depth;
  return t_depth;
}
nvtxRangeId_t start(std::string name, std::string domain) {
  const std::uint64_t id = g_next_range_id.fetch_add(1);
  record_range(part::RangeKind::start, id, std::move(name), std::move(domain));
  return id;
}
void end(nvtxRangeId_t id, std::string domain) {
  record_range(part::RangeKind::end, id, {}, std::move(domain));
}

int NVTX_API nvtx_push_a(const char* m) {
  return push(m != nullptr ? m : "", "");
}
int NVTX_API nvtx_push_w(const wchar_t* m) {
  return push(utf8_of(m), "");
}
int NVTX_API nvtx_push_ex(const nvtxEventAttributes_t* a) {
  return push(message_of(a), "");
}
int NVTX_API nvtx_pop() {
  return pop("");
}
nvtxRangeId_t NVTX_API nvtx_start_a(const char* m) {
  return start(m != nullptr ? m : "", "");
}
nvtxRangeId_t NVTX_API nvtx_start_w(const wchar_t* m) {
  return start(utf8_of(m), "");
}
nvtxRangeId_t NVTX_API nvtx_start_ex(const nvtxEventAttributes_t* a) {
  return start(message_of(a), "");
}
void NVTX_API nvtx_end(nvtxRangeId_t id) {
  end(id, "");
}

int NVTX_API nvtx_domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return push(message_of(a), domain_name(d));
}
int NVTX_API nvtx_domain_pop(nvtxDomainHandle_t d) {
  return pop(domain_name(d));
}
nvtxRangeId_t NVTX_API nvtx_domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return start(message_of(a), domain_name(d));
}
void NVTX_API nvtx_domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  end(id, domain_name(d));
}

nvtxDomainHandle_t make_domain(std::string name) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.domains.push_back(DomainObject{std::move(name)});
  return reinterpret_cast<nvtxDomainHandle_t>(&s.domains.back());
}
nvtxDomainHandle_t NVTX_API nvtx_domain_create_a(const char* name) {
  return make_domain(name != nullptr ? name : "");
}
nvtxDomainHandle_t NVTX_API nvtx_domain_create_w(const wchar_t* name) {
  return make_domain(utf8_of(name));
}
void NVTX_API nvtx_domain_destroy(nvtxDomainHandle_t) {}  // handles stay valid: events name it

nvtxStringHandle_t make_string(std::string text) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.strings.push_back(StringObject{std::move(text)});
  return reinterpret_cast<nvtxStringHandle_t>(&s.strings.back());
}
nvtxStringHandle_t NVTX_API nvtx_register_a(nvtxDomainHandle_t, const char* text) {
  return make_string(text != nullptr ? text : "");
}
nvtxStringHandle_t NVTX_API nvtx_register_w(nvtxDomainHandle_t, const wchar_t* text) {
  return make_string(utf8_of(text));
}
void NVTX_API nvtx_initialize(const void*) {}

void install(NvtxFunctionTable table, unsigned int size, unsigned int slot, void* fn) {
  if (table != nullptr && slot < size && table[slot] != nullptr) {
    *table[slot] = reinterpret_cast<NvtxFunctionPointer>(fn);
  }
}

// ---- CUPTI ----

thread_local std::uint64_t t_runtime_call = 0;     // the runtime launch this thread is inside
thread_local std::int64_t t_enter_ns[2] = {0, 0};  // entry time of the runtime [0] and driver [1]
// Stream captures under way in the process: a launch into a capturing stream is recorded into a
// graph and runs nothing until the graph is launched.
std::atomic<int> g_captures{0};

bool contains(const char* name, const char* part) {
  return name != nullptr && std::strstr(name, part) != nullptr;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto* r = static_cast<const CUpti_ResourceData*>(data);
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.contexts.push_back(r->context);
    return;
  }
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  const bool nested = !runtime && t_runtime_call != 0;
  // The call's result: cudaError_t and CUresult are both int-sized, 0 for success.
  const auto succeeded = [&] {
    return info->functionReturnValue == nullptr ||
           *static_cast<const int*>(info->functionReturnValue) == 0;
  };
  if (contains(info->functionName, "BeginCapture")) {
    if (info->callbackSite == CUPTI_API_EXIT && !nested && succeeded()) ++g_captures;
    return;
  }
  if (contains(info->functionName, "EndCapture")) {
    if (info->callbackSite == CUPTI_API_ENTER && !nested && g_captures.load() > 0) --g_captures;
    return;
  }
  if (info->callbackSite == CUPTI_API_ENTER) {
    t_enter_ns[runtime ? 0 : 1] = now_ns();
    if (runtime) t_runtime_call = info->correlationId;
    return;
  }
  if (runtime) t_runtime_call = 0;
  if (!succeeded()) return;  // a failed launch put nothing on the device
  const std::uint32_t tid = thread_id();
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!store_host_event_locked(s)) return;
  note_thread_locked(s, tid);
  s.launches.push_back(LaunchRecord{
      tid, info->correlationId, nested ? t_runtime_call : 0, t_enter_ns[runtime ? 0 : 1],
      info->functionName != nullptr ? info->functionName : "", g_captures.load() > 0});
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kActivityBufferBytes));
  *size = *buffer != nullptr ? kActivityBufferBytes : 0;
  *max_records = 0;
}

part::DeviceKind part_kind(records::DeviceKind kind) {
  switch (kind) {
    case records::DeviceKind::kernel:
      return part::DeviceKind::kernel;
    case records::DeviceKind::memcpy:
      return part::DeviceKind::memcpy;
    case records::DeviceKind::memset:
      return part::DeviceKind::memset;
  }
  return part::DeviceKind::kernel;
}

// The decoded records of one buffer into the state, under its lock. A copy's runtime id is not
// needed: the part ties a driver call to the runtime call it was made inside (enclosing_id).
struct StateSink {
  State& s;

  void device(records::DeviceRecord&& d) {
    s.device.push_back(DeviceRecord{part_kind(d.kind), d.start_ns, d.end_ns, d.correlation_id,
                                    d.device, d.stream, d.graph_node, std::move(d.name)});
  }
  void lost() { ++s.lost_device; }
  // Kinds the collector does not enable (subscribe_and_enable): never handed over.
  void external(std::uint64_t, std::uint64_t) {}
  void api_call(const records::ApiRecord&) {}
};

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    StateSink sink{s};
    // The collector enables no external-correlation records: no kind is its own.
    records::decode_activity_buffer(cuptiActivityGetNextRecord, buffer, valid,
                                    CUPTI_EXTERNAL_CORRELATION_KIND_INVALID, sink);
  }
  std::free(buffer);
}

std::string cupti_text(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(r));
  }
  return text;
}

std::string subscribe_and_enable(State& s);

// Subscribes, switches on the launch-type callbacks and the device records. On failure the
// process still runs (it is the user's program), and its part says why nothing was timed.
void start_cupti(State& s) {
  const std::string problem = subscribe_and_enable(s);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.cupti_problem = problem;
  s.cupti_on = problem.empty();
}

// "" when CUPTI records, else why not. Called without the state's lock: CUPTI may call back.
std::string subscribe_and_enable(State& s) {
  CUptiResult r = cuptiSubscribe(&s.subscriber, on_callback, nullptr);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return "another CUPTI client (a profiler: Nsight Systems, Nsight Compute, the PyTorch "
           "profiler) subscribed in this process before gpumeter's collector";
  }
  if (r != CUPTI_SUCCESS) {
    return "cuptiSubscribe failed: " + cupti_text(r);
  }
  for (const bool runtime : {true, false}) {
    const CUpti_CallbackDomain domain =
        runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const CUpti_CallbackId size = runtime
                                      ? static_cast<CUpti_CallbackId>(CUPTI_RUNTIME_TRACE_CBID_SIZE)
                                      : static_cast<CUpti_CallbackId>(CUPTI_DRIVER_TRACE_CBID_SIZE);
    for (CUpti_CallbackId cbid = 1; cbid < size; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS) continue;
      if ((name != nullptr && records::launches_device_work(name)) ||
          contains(name, "BeginCapture") || contains(name, "EndCapture")) {
        (void)cuptiEnableCallback(1, s.subscriber, domain, cbid);
      }
    }
  }
  (void)cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    return "cuptiActivityRegisterCallbacks failed: " + cupti_text(r);
  }
  // MEMCPY2: peer-to-peer copies come only as that record, never as MEMCPY (as the backend's
  // kinds, cupti_session.cpp).
  for (const CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET}) {
    r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      return "cuptiActivityEnable failed: " + cupti_text(r);
    }
  }
  return {};
}

// ---- the part ----

json part_json(State& s, const std::optional<std::uint64_t>& dropped_device) {
  json j;
  j["schema"] = part::kSchema;
  j["version"] = part::kVersion;
  j["pid"] = static_cast<long>(::getpid());
  j["parent_pid"] = s.parent_pid;
  j["origin"] = s.origin;
  j["cupti"] = s.cupti_on;
  j["cupti_problem"] = s.cupti_problem;
  // Other CUPTI clients the preloaded guard saw (cupti_guard.cpp), one per line.
  json foreign = json::array();
  using Clients = const char* (*)();
  if (const auto clients = reinterpret_cast<Clients>(::dlsym(RTLD_DEFAULT, part::kGuardSymbol))) {
    std::string all = clients();
    std::size_t from = 0;
    while (from < all.size()) {
      const std::size_t to = std::min(all.find('\n', from), all.size());
      foreign.push_back(all.substr(from, to - from));
      from = to + 1;
    }
  }
  j["foreign_cupti_clients"] = std::move(foreign);
  j["dropped_host_events"] = s.dropped_host;
  j["dropped_device_records"] = dropped_device ? json(*dropped_device) : json(nullptr);
  j["lost_device_records"] = s.lost_device;
  json threads = json::object();
  for (const auto& [tid, name] : s.thread_names) threads[std::to_string(tid)] = name;
  j["threads"] = std::move(threads);
  json ranges = json::array();
  for (const RangeRecord& r : s.ranges) {
    ranges.push_back(
        json::array({part::to_string(r.kind), r.host_ns, r.thread, r.id, r.name, r.domain}));
  }
  j["ranges"] = std::move(ranges);
  json launches = json::array();
  for (const LaunchRecord& l : s.launches) {
    launches.push_back(
        json::array({l.thread, l.correlation_id, l.enclosing_id, l.host_ns, l.api, l.capturing}));
  }
  j["launches"] = std::move(launches);
  json device = json::array();
  for (const DeviceRecord& d : s.device) {
    device.push_back(json::array({part::to_string(d.kind), d.start_ns, d.end_ns, d.correlation_id,
                                  d.device, d.stream, d.graph_node, d.name}));
  }
  j["device"] = std::move(device);
  return j;
}

// Written to a temporary name and renamed: the parent never reads half a part.
void write_part(State& s, const json& j) {
  const long pid = ::getpid();
  const std::string final_path = s.dir + "/" + part::part_name(pid);
  const std::string tmp = final_path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << j.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    if (!out.flush()) {
      std::fprintf(stderr, "gpumeter collector: cannot write %s: %s\n", tmp.c_str(),
                   std::strerror(errno));
      return;
    }
  }
  if (std::rename(tmp.c_str(), final_path.c_str()) != 0) {
    std::fprintf(stderr, "gpumeter collector: cannot rename %s: %s\n", tmp.c_str(),
                 std::strerror(errno));
  }
}

void finish() {
  State& s = state();
  std::optional<std::uint64_t> dropped;
  bool cupti_on = false;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.finished || !s.started) return;
    cupti_on = s.cupti_on;
  }
  if (cupti_on) {
    // Forced: records of work still running are handed over too (and counted lost if untimed).
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::vector<CUcontext> contexts;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      contexts = s.contexts;
    }
    std::uint64_t total = 0;
    bool read = true;
    std::size_t n = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &n) == CUPTI_SUCCESS) {
      total += n;
    } else {
      read = false;
    }
    for (CUcontext c : contexts) {
      if (cuptiActivityGetNumDroppedRecords(c, 0, &n) == CUPTI_SUCCESS) {
        total += n;
      } else {
        read = false;
      }
    }
    if (read) dropped = total;
  }
  json j;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.finished = true;
    j = part_json(s, dropped);
  }
  write_part(s, j);
}

void after_fork_in_child() {
  State& s = state();
  // The parent's records are the parent's: the child starts empty. A lock another thread of the
  // parent held at the fork is not ours to wait for.
  new (&s.mutex) std::mutex;
  s.parent_pid = static_cast<long>(::getppid());
  s.origin = part::kOriginFork;
  s.started = false;
  s.finished = false;
  s.ranges.clear();
  s.launches.clear();
  s.device.clear();
  s.thread_names.clear();
  s.dropped_host = 0;
  s.lost_device = 0;
  s.contexts.clear();
  // CUDA does not survive a fork, and CUPTI's threads are gone: the child records ranges only.
  s.cupti_on = false;
  s.cupti_problem = "a forked child: CUDA cannot be used after fork, so it has no device records";
}

// Once per process, from whichever entry point comes first.
void initialize_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    State& s = state();
    const char* dir = std::getenv(part::kDirEnv);
    if (dir == nullptr || *dir == 0) return;  // not under `gpumeter run`: record nothing
    std::lock_guard<std::mutex> lock(s.mutex);
    s.dir = dir;
    s.parent_pid = static_cast<long>(::getppid());
    ensure_started_locked(s);
    std::atexit(finish);
    ::pthread_atfork(nullptr, nullptr, after_fork_in_child);
  });
}

}  // namespace

extern "C" {

// Called by the CUDA driver at cuInit when CUDA_INJECTION64_PATH names this library.
__attribute__((visibility("default"))) int InitializeInjection() {
  initialize_once();
  static std::once_flag once;
  std::call_once(once, [] {
    if (!state().dir.empty()) start_cupti(state());
  });
  return 1;
}

// Called by NVTX at the program's first NVTX call when NVTX_INJECTION64_PATH names this library.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_table) {
  initialize_once();
  if (state().dir.empty()) return 0;  // NVTX's calls stay no-ops
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 0;
  NvtxFunctionTable core = nullptr;
  unsigned int core_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) == 0) return 0;
  install(core, core_size, NVTX_CBID_CORE_RangeStartEx, reinterpret_cast<void*>(nvtx_start_ex));
  install(core, core_size, NVTX_CBID_CORE_RangeStartA, reinterpret_cast<void*>(nvtx_start_a));
  install(core, core_size, NVTX_CBID_CORE_RangeStartW, reinterpret_cast<void*>(nvtx_start_w));
  install(core, core_size, NVTX_CBID_CORE_RangeEnd, reinterpret_cast<void*>(nvtx_end));
  install(core, core_size, NVTX_CBID_CORE_RangePushEx, reinterpret_cast<void*>(nvtx_push_ex));
  install(core, core_size, NVTX_CBID_CORE_RangePushA, reinterpret_cast<void*>(nvtx_push_a));
  install(core, core_size, NVTX_CBID_CORE_RangePushW, reinterpret_cast<void*>(nvtx_push_w));
  install(core, core_size, NVTX_CBID_CORE_RangePop, reinterpret_cast<void*>(nvtx_pop));
  NvtxFunctionTable core2 = nullptr;
  unsigned int core2_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size) != 0) {
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx,
            reinterpret_cast<void*>(nvtx_domain_start));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd,
            reinterpret_cast<void*>(nvtx_domain_end));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx,
            reinterpret_cast<void*>(nvtx_domain_push));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop,
            reinterpret_cast<void*>(nvtx_domain_pop));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA,
            reinterpret_cast<void*>(nvtx_register_a));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringW,
            reinterpret_cast<void*>(nvtx_register_w));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA,
            reinterpret_cast<void*>(nvtx_domain_create_a));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateW,
            reinterpret_cast<void*>(nvtx_domain_create_w));
    install(core2, core2_size, NVTX_CBID_CORE2_DomainDestroy,
            reinterpret_cast<void*>(nvtx_domain_destroy));
    install(core2, core2_size, NVTX_CBID_CORE2_Initialize,
            reinterpret_cast<void*>(nvtx_initialize));
  }
  return 1;
}

}  // extern "C"
