// The stages winml-make ships, one adapter per kind (builtin.cpp).
#pragma once

#include "stages/registry.h"

namespace winml::stages {

const StageRegistry& builtin_stages();
void register_builtin_stages(StageRegistry& registry);

}  // namespace winml::stages
