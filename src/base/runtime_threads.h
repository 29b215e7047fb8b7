// How many threads the CPU runtime uses when its caller names none (the
// build's stages: calibration, the accuracy pass, validation): one per core,
// or $WINML_RUNTIME_THREADS. Not part of any key: the runtime's results do
// not depend on the thread count (docs/runtime.md), which
// tests/quant/same_bytes_matrix_test.cpp checks on real models.
#pragma once

namespace winml {

// $WINML_RUNTIME_THREADS (a whole number from 1 to 1024), else 0 (one per
// core). Decided once; any other value is an InputError naming the variable.
int runtime_threads_override();

}  // namespace winml
