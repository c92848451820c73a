// Preloaded by `gpumeter run` (LD_PRELOAD) into the program's processes: names every other
// client of CUPTI in the process. CUPTI serves one subscriber and one set of activity buffers; a
// profiler inside the program (the PyTorch profiler's Kineto) that subscribes or registers buffers
// either fails, and loses its own trace, or takes the collector's records. Either way the run is
// not what it seems, so the collector's part names the client and `gpumeter run` refuses the run.
// Each call is passed on to CUPTI unchanged. No dependency but libdl: it is in every process of the
// command, most of which never touch CUDA.
#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

namespace {

std::mutex g_mutex;
std::string g_clients;  // "library (function)" of each foreign call, '\n'-separated, each once

// The CUPTI function `name`: the next definition after this library, else libcupti if it was
// loaded privately (RTLD_LOCAL).
void* real(const char* name) {
  if (void* f = ::dlsym(RTLD_NEXT, name)) return f;
  for (const char* lib : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) {
    if (void* h = ::dlopen(lib, RTLD_NOW | RTLD_NOLOAD)) {
      if (void* f = ::dlsym(h, name)) return f;
    }
  }
  return nullptr;
}

void note_caller(const void* return_address, const char* function) {
  Dl_info info{};
  const char* lib = (::dladdr(return_address, &info) != 0 && info.dli_fname != nullptr)
                        ? info.dli_fname
                        : "an unknown library";
  if (std::strstr(lib, "libgpumeter_collector") != nullptr) return;  // the collector itself
  const std::string entry = std::string(lib) + " (" + function + ")";
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_clients.find(entry) != std::string::npos) return;
  if (!g_clients.empty()) g_clients += '\n';
  g_clients += entry;
}

}  // namespace

extern "C" {

// CUPTI's result type is an enum of int size; the handles are pointers.
__attribute__((visibility("default"))) int cuptiSubscribe(void** subscriber, void* callback,
                                                          void* userdata) {
  note_caller(__builtin_return_address(0), "cuptiSubscribe");
  using Fn = int (*)(void**, void*, void*);
  const auto f = reinterpret_cast<Fn>(real("cuptiSubscribe"));
  return f != nullptr ? f(subscriber, callback, userdata) : 999;  // CUPTI_ERROR_UNKNOWN
}

__attribute__((visibility("default"))) int cuptiActivityRegisterCallbacks(void* requested,
                                                                          void* completed) {
  note_caller(__builtin_return_address(0), "cuptiActivityRegisterCallbacks");
  using Fn = int (*)(void*, void*);
  const auto f = reinterpret_cast<Fn>(real("cuptiActivityRegisterCallbacks"));
  return f != nullptr ? f(requested, completed) : 999;
}

// What the collector reads at exit (part_format.hpp's kGuardSymbol): the foreign clients,
// '\n'-separated, "" when none.
__attribute__((visibility("default"))) const char* gpumeter_cupti_guard_clients() {
  std::lock_guard<std::mutex> lock(g_mutex);
  static std::string copy;
  copy = g_clients;
  return copy.c_str();
}

}  // extern "C"
