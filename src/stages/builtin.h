// The stages winml-make ships, one adapter per kind (builtin.cpp).
#pragma once

#include "pipeline/registry.h"

namespace winml::stages {

const pipeline::StageRegistry& builtin_stages();
void register_builtin_stages(pipeline::StageRegistry& registry);

}  // namespace winml::stages
