// Reads each record named with this branch's reader (read_record) and says what it holds.
#include <cstdio>
#include <exception>

#include "gpumeter/detail/record_io.hpp"

int main(int argc, char** argv) {
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      const gpumeter::Record r = gpumeter::read_record(argv[i]);
      std::printf("%s: read, schema %d, %zu rows, %zu comparisons\n", argv[i], r.schema_version,
                  r.results.size(), r.comparisons.size());
    } catch (const std::exception& e) {
      std::printf("%s: %s\n", argv[i], e.what());
      rc = 1;
    }
  }
  return rc;
}
