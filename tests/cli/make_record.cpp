// Test helper: writes a synthetic record of tests/unit/synthetic_record.hpp.
//   gpumeter_make_record DIR [VARIANT]   write it atomically into DIR under a new run id, print
//                                        the path. VARIANT: full (the default), zero-device and
//                                        zero-wall (two rows of 0 ns samples, device time or
//                                        wall clock), hostile-text (text that would break every
//                                        output if it were not made inert), markup-and-failures
//                                        (names that are markdown; a failure of every kind)
//   gpumeter_make_record --stdout        print the full record with its fixed run id
//                                        (regenerates tests/data/record_vN.json)
#include <exception>
#include <iostream>
#include <string>

#include "gpumeter/errors.hpp"
#include "gpumeter/record_io.hpp"
#include "synthetic_record.hpp"

namespace {

gpumeter::Record variant(const std::string& name, const std::string& run_id) {
  using gpumeter::TimingMethod;
  namespace t = gpumeter::testing;
  if (name == "full") return t::full_record(run_id);
  if (name == "zero-device") return t::zero_sample_record(TimingMethod::cupti, run_id);
  if (name == "zero-wall") return t::zero_sample_record(TimingMethod::host_wall, run_id);
  if (name == "hostile-text") return t::hostile_text_record(run_id);
  if (name == "markup-and-failures") return t::markup_and_failures_record(run_id);
  throw gpumeter::Error("unknown variant '" + name + "'");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: gpumeter_make_record DIR "
                 "[full|zero-device|zero-wall|hostile-text|markup-and-failures] | "
                 "--stdout\n";
    return 2;
  }
  try {
    const std::string arg = argv[1];
    if (arg == "--stdout") {
      std::cout << gpumeter::serialize(gpumeter::testing::full_record());
    } else {
      const gpumeter::Record record = variant(argc == 3 ? argv[2] : "full", gpumeter::new_run_id());
      std::cout << gpumeter::write_record(record, arg).string() << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "gpumeter_make_record: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
