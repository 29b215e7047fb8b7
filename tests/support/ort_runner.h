// A RunnerFactory backed by onnxruntime-node (the test oracle), for tests of
// the quantizer that must not depend on the project's own runtime: observed
// values are requested as extra graph outputs.
#pragma once

#include "quant/model_runner.h"

namespace winml::test {

quant::RunnerFactory ort_runner_factory();

}  // namespace winml::test
