#include "cupti_api.hpp"

#include <dlfcn.h>
#include <link.h>
#include <cstdint>

#include <cstdlib>
#include <string_view>
#include <vector>

#include "gpumeter/cuda.hpp"
#include "gpumeter/errors.hpp"

#ifndef GPUMETER_CUPTI_SONAME
#define GPUMETER_CUPTI_SONAME "libcupti.so"
#endif
#ifndef GPUMETER_CUPTI_LIBRARY_PATH
#define GPUMETER_CUPTI_LIBRARY_PATH ""
#endif

namespace gpumeter::cuda {

std::string CuptiApi::result_text(CUptiResult result) const {
  const char* text = nullptr;
  if (GetResultString != nullptr && GetResultString(result, &text) == CUPTI_SUCCESS &&
      text != nullptr) {
    return text;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

namespace {

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (out == nullptr) missing += std::string(missing.empty() ? "" : ", ") + symbol;
  return out != nullptr;
}

int add_if_cupti(dl_phdr_info* info, std::size_t, void* out) {
  const std::string_view name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (name.find("libcupti") != std::string_view::npos) {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  }
  return 0;
}

}  // namespace

std::vector<std::string> loaded_cupti_libraries() {
  std::vector<std::string> found;
  dl_iterate_phdr(add_if_cupti, &found);
  return found;
}

CuptiApi load_cupti_api() {
  std::vector<std::string> candidates;
  const char* override_path = std::getenv(kCuptiLibraryEnv);
  if (override_path != nullptr && *override_path != '\0') {
    candidates.emplace_back(override_path);  // the user named one: try nothing else
  } else {
    candidates.emplace_back(GPUMETER_CUPTI_SONAME);
    if (*GPUMETER_CUPTI_LIBRARY_PATH != '\0') candidates.emplace_back(GPUMETER_CUPTI_LIBRARY_PATH);
  }

  void* handle = nullptr;
  std::string tried;
  CuptiApi api;
  for (const std::string& path : candidates) {
    // RTLD_NODELETE: CUPTI keeps callbacks into the driver; it must never be unloaded.
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle != nullptr) {
      api.library = path;
      break;
    }
    const char* why = dlerror();
    tried += "\n  " + path + ": " + (why != nullptr ? why : "not loadable");
  }
  if (handle == nullptr) {
    throw CuptiUnavailable(
        "libcupti cannot be loaded; tried:" + tried +
        "\nInstall the CUDA toolkit's CUPTI (extras/CUPTI or the cuda-cupti package), put its "
        "directory on LD_LIBRARY_PATH, or name the file in " +
        std::string(kCuptiLibraryEnv));
  }

  std::string missing;
  resolve(handle, "cuptiGetResultString", api.GetResultString, missing);
  resolve(handle, "cuptiGetVersion", api.GetVersion, missing);
  resolve(handle, "cuptiSubscribe", api.Subscribe, missing);
  resolve(handle, "cuptiUnsubscribe", api.Unsubscribe, missing);
  resolve(handle, "cuptiGetCallbackName", api.GetCallbackName, missing);
  resolve(handle, "cuptiActivityRegisterCallbacks", api.ActivityRegisterCallbacks, missing);
  resolve(handle, "cuptiActivityEnable", api.ActivityEnable, missing);
  resolve(handle, "cuptiActivityDisable", api.ActivityDisable, missing);
  resolve(handle, "cuptiActivityEnableRuntimeApi", api.ActivityEnableRuntimeApi, missing);
  resolve(handle, "cuptiActivityEnableDriverApi", api.ActivityEnableDriverApi, missing);
  resolve(handle, "cuptiActivityFlushAll", api.ActivityFlushAll, missing);
  resolve(handle, "cuptiActivityGetNextRecord", api.ActivityGetNextRecord, missing);
  resolve(handle, "cuptiActivityGetNumDroppedRecords", api.ActivityGetNumDroppedRecords, missing);
  resolve(handle, "cuptiActivityPushExternalCorrelationId", api.ActivityPushExternalCorrelationId,
          missing);
  resolve(handle, "cuptiActivityPopExternalCorrelationId", api.ActivityPopExternalCorrelationId,
          missing);
  resolve(handle, "cuptiActivitySetAttribute", api.ActivitySetAttribute, missing);
  std::string optional_missing;
  resolve(handle, "cuptiSubscribe_v2", api.Subscribe_v2, optional_missing);
  resolve(handle, "cuptiActivityRegisterTimestampCallback", api.ActivityRegisterTimestampCallback,
          optional_missing);
  if (!missing.empty()) {
    throw CuptiUnavailable(
        "libcupti at " + api.library + " lacks entry points gpumeter needs (" + missing +
        "): it is older than CUPTI " + std::to_string(CUPTI_API_VERSION / 10000) +
        ". Use the CUPTI of the toolkit gpumeter was built with, or name it in " +
        kCuptiLibraryEnv);
  }

  const CUptiResult r = api.GetVersion(&api.version);
  if (r != CUPTI_SUCCESS) {
    throw CuptiUnavailable("cuptiGetVersion failed for " + api.library + ": " + api.result_text(r));
  }
  // Activity records are read through the structs of the headers gpumeter was built with;
  // within one major version CUPTI only appends fields, across majors the layouts change.
  constexpr std::uint32_t kBuiltMajor = CUPTI_API_VERSION / 10000;
  if (api.version / 10000 != kBuiltMajor) {
    throw CuptiUnavailable(
        "libcupti at " + api.library + " has API version " + std::to_string(api.version) +
        ", but gpumeter was built against " + std::to_string(CUPTI_API_VERSION) +
        " and reads records in that layout. Load the CUPTI of CUDA " + std::to_string(kBuiltMajor) +
        " (" + kCuptiLibraryEnv + ") or rebuild gpumeter against this toolkit.");
  }
  return api;
}

}  // namespace gpumeter::cuda
