#include "gpumeter/detail/program.hpp"

namespace gpumeter {

const char* to_string(ProcessOrigin origin) {
  switch (origin) {
    case ProcessOrigin::command:
      return "command";
    case ProcessOrigin::exec:
      return "exec";
    case ProcessOrigin::fork:
      return "fork";
  }
  return "?";
}

std::optional<ProcessOrigin> parse_process_origin(std::string_view text) {
  for (const ProcessOrigin o : {ProcessOrigin::command, ProcessOrigin::exec, ProcessOrigin::fork}) {
    if (text == to_string(o)) return o;
  }
  return std::nullopt;
}

}  // namespace gpumeter
