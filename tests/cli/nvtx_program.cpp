// An unmodified program with NVTX ranges and no CUDA, for `gpumeter run`'s tests on a machine
// without a GPU: the collector is injected through NVTX_INJECTION64_PATH alone, so the range
// bookkeeping, the parts of forked children and every refusal are exercised end to end. Its
// ranges have no device work. One mode per run:
//   nest        push/pop nested 3 times, a start/end range ended on another thread, a domain range
//   fork-exit   the parent and a forked child each record a range; the child exits normally
//   fork-_exit  a forked child records a range and leaves through _exit (no exit handler runs)
//   fork-quiet  a forked child records nothing and leaves through _exit (owes no part)
//   open        a push without its pop
//   unbalanced  a pop without a push
//   none        no NVTX call at all
//   cupti-client  subscribes to CUPTI itself, as a profiler inside the program would
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

void nest() {
  for (int i = 0; i < 3; ++i) {
    nvtxRangePushA("outer");
    nvtxRangePushA("inner");
    nvtxRangePop();
    nvtxRangePop();
  }
  const nvtxRangeId_t id = nvtxRangeStartA("across_threads");
  std::thread([id] { nvtxRangeEnd(id); }).join();
  const nvtxDomainHandle_t domain = nvtxDomainCreateA("gpumeter_test");
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "in_domain";
  nvtxDomainRangePushEx(domain, &a);
  nvtxDomainRangePop(domain);
}

int fork_child(bool quick_exit, bool record) {
  nvtxRangePushA("parent");
  nvtxRangePop();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (record) {
      nvtxRangePushA("child");
      nvtxRangePop();
    }
    if (quick_exit) ::_exit(0);
    std::exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "nest") {
    nest();
    return 0;
  }
  if (mode == "fork-exit") return fork_child(false, true);
  if (mode == "fork-_exit") return fork_child(true, true);
  if (mode == "fork-quiet") return fork_child(true, false);
  if (mode == "open") {
    nvtxRangePushA("never_closed");
    return 0;
  }
  if (mode == "unbalanced") {
    nvtxRangePushA("fine");
    nvtxRangePop();
    nvtxRangePop();
    return 0;
  }
  if (mode == "none") return 0;
  if (mode == "cupti-client") {
    nvtxRangePushA("profiled");
    CUpti_SubscriberHandle subscriber = nullptr;
    (void)cuptiSubscribe(&subscriber, nullptr, nullptr);  // without a driver it may fail: asked
    nvtxRangePop();
    return 0;
  }
  std::fprintf(stderr,
               "usage: gpumeter_nvtx_program nest|fork-exit|fork-_exit|fork-quiet|open|"
               "unbalanced|none|cupti-client\n");
  return 2;
}
