#pragma once
// libcupti, loaded at run time. Linking it would make a missing or mismatched library stop
// the program before main; loading it lets gpumeter say which file failed and why, and fall
// back to CUDA events where the user allowed it (T11).
#include <cupti.h>
#include <cstdint>

#include <string>
#include <vector>

namespace gpumeter::cuda {

struct CuptiApi {
  std::string library;  // the file that was loaded
  std::uint32_t version = 0;

  decltype(&::cuptiGetResultString) GetResultString = nullptr;
  decltype(&::cuptiGetVersion) GetVersion = nullptr;
  decltype(&::cuptiSubscribe) Subscribe = nullptr;
  decltype(&::cuptiSubscribe_v2) Subscribe_v2 = nullptr;  // may be missing: optional
  decltype(&::cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&::cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&::cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&::cuptiActivityEnableRuntimeApi) ActivityEnableRuntimeApi = nullptr;
  decltype(&::cuptiActivityEnableDriverApi) ActivityEnableDriverApi = nullptr;
  decltype(&::cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords = nullptr;
  decltype(&::cuptiActivityPushExternalCorrelationId) ActivityPushExternalCorrelationId = nullptr;
  decltype(&::cuptiActivityPopExternalCorrelationId) ActivityPopExternalCorrelationId = nullptr;
  decltype(&::cuptiActivitySetAttribute) ActivitySetAttribute = nullptr;
  // Optional (refused on some platforms): the clock CUPTI converts GPU timestamps into.
  decltype(&::cuptiActivityRegisterTimestampCallback) ActivityRegisterTimestampCallback = nullptr;

  // "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" for a result code.
  std::string result_text(CUptiResult result) const;
};

// The CUPTI libraries loaded in this process now (their paths), gpumeter's included: more than
// one means another copy of CUPTI serves another client (a profiler's), which an error about
// CUPTI's state should name.
std::vector<std::string> loaded_cupti_libraries();

// Loads libcupti (GPUMETER_CUPTI_LIBRARY if set, else the soname, else the toolkit's file found
// at build time), resolves every entry point and checks the API version against the headers
// gpumeter was built with. The library stays loaded for the process. Throws CuptiUnavailable
// naming each file tried and why it failed.
CuptiApi load_cupti_api();

}  // namespace gpumeter::cuda
