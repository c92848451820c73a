#include "gpumeter/detail/board.hpp"

namespace gpumeter {

Board board_of(const DeviceIdentity& device, const DeviceState& state) {
  return Board{device.uuid, device.name, state.sm_clock_mhz, state.sm_clock_max_mhz,
               state.memory_clock_mhz};
}

// B10: a uuid names one board for every process and host; a name names a kind of board.
bool same_board(const Board& a, const Board& b) {
  if (a.uuid.empty() != b.uuid.empty()) return false;
  return a.uuid == b.uuid && a.name == b.name;
}

std::string board_label(const Board& board) {
  const std::string name = board.name.empty() ? std::string("(no name)") : board.name;
  return board.uuid.empty() ? name : name + " " + board.uuid;
}

}  // namespace gpumeter
