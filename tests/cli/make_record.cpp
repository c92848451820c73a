// Test helper: writes the synthetic record of tests/unit/synthetic_record.hpp.
//   gpumeter_make_record DIR    write it atomically into DIR under a new run id, print the path
//   gpumeter_make_record --stdout   print it with its fixed run id (regenerates
//                                   tests/data/record_v1.json)
#include <exception>
#include <iostream>
#include <string>

#include "gpumeter/record_io.hpp"
#include "synthetic_record.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gpumeter_make_record DIR | --stdout\n";
    return 2;
  }
  try {
    const std::string arg = argv[1];
    if (arg == "--stdout") {
      std::cout << gpumeter::serialize(gpumeter::testing::full_record());
    } else {
      std::cout << gpumeter::write_record(gpumeter::testing::full_record(gpumeter::new_run_id()),
                                          arg)
                       .string()
                << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "gpumeter_make_record: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
