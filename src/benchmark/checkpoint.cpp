// The sweep's checkpoint (checkpoint.hpp).
#include "checkpoint.hpp"

#include "gpumeter/host_info.hpp"
#include "gpumeter/version.hpp"

namespace gpumeter::program {

void complete_header(Record& run) {
  if (!run.created_utc.empty()) return;
  run.created_utc = utc_now_iso();
  run.gpumeter_version = version();
  run.device.kind = "none";
}

}  // namespace gpumeter::program
