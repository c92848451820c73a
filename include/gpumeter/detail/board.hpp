#pragma once
// The board a row was measured on: which device (its uuid and name) and its clocks as read when
// the run began. Boards of one kind differ by a few percent, more than runs on one board vary, so
// rows of two boards are never compared, and a record joined from runs on several boards keeps
// each row's own.
#include <optional>
#include <string>

#include "gpumeter/detail/device.hpp"

namespace gpumeter {

struct Board {
  std::string uuid;  // "" when the device has none (the host CPU)
  std::string name;
  // As read when the run began; nullopt where they could not be read (never a zero).
  std::optional<int> sm_clock_mhz;
  std::optional<int> sm_clock_max_mhz;
  std::optional<int> memory_clock_mhz;

  // Neither name nor uuid: a row that names no board of its own, whose record's device is its
  // board (fill_boards, record.hpp).
  bool known() const { return !name.empty() || !uuid.empty(); }
  friend bool operator==(const Board&, const Board&) = default;
};

// The board of a run on `device`, with the clocks `state` read.
Board board_of(const DeviceIdentity& device, const DeviceState& state);

// One board: the same uuid and name where both have a uuid; the same name where neither has one
// (a device without a uuid, the host CPU, is told apart by its name only). A board with a uuid
// and one without are two. The clocks are readings, not identity.
bool same_board(const Board& a, const Board& b);

// The name, then the uuid where there is one ("<name> <uuid>").
std::string board_label(const Board& board);

}  // namespace gpumeter
