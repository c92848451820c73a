#include "gpumeter/errors.hpp"

#include <cxxabi.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>

#include "gpumeter/error_catalogue.hpp"

namespace gpumeter {
namespace {

std::string loss_note(bool loss_ruled_out) {
  if (loss_ruled_out) return "";
  return " The dropped-record counter is not proven live on this system, so lost records "
         "cannot be ruled out either.";
}

// A C++ type as its source names it ("std::runtime_error"), else as the compiler mangled it.
std::string type_name(const std::type_info* type) {
  if (type == nullptr) return "an exception of unknown type";
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> plain(
      abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), &std::free);
  return status == 0 && plain ? std::string(plain.get()) : std::string(type->name());
}

std::string user_code_text(const std::string& step, const std::string& type,
                           const std::string& message) {
  return (step.empty() ? std::string("your code") : step) + " threw " + type +
         (message.empty() ? "" : ": " + message) +
         "; no number was produced for it (the exception is your code's, not gpumeter's: fix it, "
         "or catch it there)";
}

// How a range error names an NVTX domain.
std::string domain_text(const std::string& domain) {
  return domain.empty() ? std::string("the default domain") : "domain '" + domain + "'";
}

}  // namespace

RecordsLost::RecordsLost(std::uint64_t dropped, int attempts, const std::string& collector)
    : Error(collector + " dropped " + std::to_string(dropped) +
            " activity record(s) in the last of " + std::to_string(attempts) +
            " attempt(s): the iterations ran but their readings are lost, so no number is "
            "reported. Lower the host load, or raise the activity buffer size."),
      dropped_(dropped),
      attempts_(attempts) {}

OffThreadLaunch::OffThreadLaunch(std::size_t n_orphans, const std::string& example_name,
                                 bool loss_ruled_out)
    : Error(std::to_string(n_orphans) + " kernel(s) (e.g. '" + example_name +
            "') carry no iteration id of this measurement: they were launched from a thread "
            "gpumeter did not tag (autograd engine, a library worker, another thread using "
            "the GPU). Launch the work from the calling thread (for PyTorch backward: "
            "torch.autograd.set_multithreading_enabled(False)), stop other GPU threads, or, if "
            "your code uses the same external-correlation kind, configure another one." +
            loss_note(loss_ruled_out)),
      n_orphans_(n_orphans),
      example_kernel_(example_name),
      loss_ruled_out_(loss_ruled_out) {}

AttributionError::AttributionError(std::size_t iteration, const std::string& why,
                                   bool loss_ruled_out)
    : Error("iteration " + std::to_string(iteration) + ": " + why + loss_note(loss_ruled_out)),
      iteration_(iteration),
      why_(why),
      loss_ruled_out_(loss_ruled_out) {}

WrongDevice::WrongDevice(std::size_t iteration, const std::string& name, std::uint32_t ran_on,
                         std::uint32_t measured)
    : Error("iteration " + std::to_string(iteration) + ": '" + name + "' ran on device " +
            std::to_string(ran_on) + ", but device " + std::to_string(measured) +
            " is the one measured (flushed, drained and named in the record); no number is "
            "reported. Measure the device the call's data lives on, or move the data."),
      iteration_(iteration),
      kernel_(name),
      ran_on_(ran_on),
      measured_(measured) {}

UserCodeError::UserCodeError(std::string step, std::string type, std::string message)
    : Error(user_code_text(step, type, message)),
      step_(std::move(step)),
      type_(std::move(type)),
      message_(std::move(message)) {}

UserCodeError::UserCodeError(std::string type, std::string message)
    : UserCodeError("", std::move(type), std::move(message)) {}

void run_user_code(const std::string& step, const std::function<void()>& code) {
  try {
    code();
  } catch (const UserCodeError& e) {
    if (!e.step().empty()) throw;
    throw UserCodeError(step, e.type(), e.message());
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw UserCodeError(step, type_name(&typeid(e)), e.what());
  } catch (...) {
    // Not a std::exception (a thrown int, a library's own class): its type is all there is.
    throw UserCodeError(step, type_name(abi::__cxa_current_exception_type()), "");
  }
}

const char* error_name(const std::exception& error) {
  // Every class of the catalogue derives from Error alone, so the order does not matter.
#define GPUMETER_NAME_IF(Name, error_class, exit_code, base, fields, doc) \
  if (dynamic_cast<const Name*>(&error)) return #Name;
#define GPUMETER_NO_FIELD(...)
  GPUMETER_ERRORS(GPUMETER_NAME_IF, GPUMETER_NO_FIELD, )
#undef GPUMETER_NAME_IF
#undef GPUMETER_NO_FIELD
  if (dynamic_cast<const Error*>(&error)) return "Error";
  return "std::exception";
}

ProgramProcessError::ProgramProcessError(long pid, std::string cause, const std::string& message)
    : Error("process " + std::to_string(pid) + ": " + message),
      pid_(pid),
      cause_(std::move(cause)) {}

InvalidRecord::InvalidRecord(const std::string& path, const std::string& problem)
    : Error(path + ": " + problem), path_(path), problem_(problem) {}

CollectorRecordsLost::CollectorRecordsLost(std::string records,
                                           std::optional<std::uint64_t> dropped)
    : Error(dropped ? "the collector lost " + std::to_string(*dropped) + " " + records +
                          ": the ranges' kernels may be missing from them, so no range is "
                          "reported. Lower the host load, or raise the collector's buffer size."
                    : "the collector could not count its lost " + records +
                          " (the counter is not proven live): a range could be missing work "
                          "and nothing would show it, so no range is reported."),
      records_(std::move(records)),
      dropped_(dropped) {}

RangeNotOpen::RangeNotOpen(std::uint64_t thread, std::string domain, bool process_wide,
                           std::uint64_t id, Nanos host_ns)
    : Error((process_wide
                 ? "an end of range id " + std::to_string(id) + " (" + domain_text(domain) +
                       ") on thread " + std::to_string(thread) + " at " + std::to_string(host_ns) +
                       " ns closes no range: no start opened that id"
                 : "a pop on thread " + std::to_string(thread) + " (" + domain_text(domain) +
                       ") at " + std::to_string(host_ns) +
                       " ns closes no range: that thread pushed none that is still "
                       "open") +
            ", so the ranges around it cannot be told apart and none is reported. Balance the "
            "program's range calls (pop on the thread that pushed)."),
      thread_(thread),
      domain_(std::move(domain)),
      process_wide_(process_wide),
      id_(id) {}

RangeLeftOpen::RangeLeftOpen(std::string name, std::string domain, std::uint64_t thread,
                             bool process_wide, std::size_t n_open)
    : Error("range '" + name + "' (" + domain_text(domain) + ", " +
            (process_wide ? "started" : "pushed") + " on thread " + std::to_string(thread) +
            ") was still open when the program ended" +
            (n_open > 1 ? " (" + std::to_string(n_open) + " ranges were)" : std::string()) +
            ": it has no end, so no range is reported. " +
            (process_wide ? "End every range the program starts." : "Pop every range it pushes.")),
      name_(std::move(name)),
      domain_(std::move(domain)),
      thread_(thread),
      process_wide_(process_wide),
      n_open_(n_open) {}

LaunchNotFound::LaunchNotFound(std::uint64_t correlation_id, std::string kernel,
                               std::size_t n_activities)
    : Error(std::to_string(n_activities) + " device activit" + (n_activities == 1 ? "y" : "ies") +
            " (e.g. '" + kernel + "', correlation id " + std::to_string(correlation_id) +
            ") match no recorded launch: the thread that launched it is unknown, so it cannot be "
            "attributed to a range and no range is reported. The collector must record every "
            "launching API call of the process."),
      correlation_id_(correlation_id),
      kernel_(std::move(kernel)),
      n_activities_(n_activities) {}

ConfigError::ConfigError(std::string argument, const std::string& problem)
    : Error(argument + ": " + problem), argument_(std::move(argument)) {}

}  // namespace gpumeter
