#include <cstddef>

#include "schedule.hpp"

namespace gpumeter {

std::vector<PassSlot> symmetric_schedule(std::size_t n_implementations) {
  std::vector<PassSlot> order;
  order.reserve(2 * n_implementations);
  for (std::size_t i = 0; i < n_implementations; ++i) order.push_back({i, 0});
  for (std::size_t i = n_implementations; i-- > 0;) order.push_back({i, 1});
  return order;
}

}  // namespace gpumeter
