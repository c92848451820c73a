// The gpumeter command. Everything but the streams lives in cli.cpp and one file per subcommand.
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
  return gpumeter::cli::run(argc, argv, std::cout, std::cerr);
}
