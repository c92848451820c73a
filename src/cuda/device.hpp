#pragma once
// Resolving the measured device (P3): it exists, the driver answers, its context is
// created and current, and no sticky error is known on it. Throws DeviceError naming the cause.
namespace gpumeter::cuda {

void open_device(int device);

}  // namespace gpumeter::cuda
