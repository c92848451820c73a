#pragma once

namespace gpumeter {
const char* version();
}  // namespace gpumeter
