// [export] weights naming torchvision's pretrained weights ("DEFAULT", or a
// member of the model's weights enum such as "IMAGENET1K_V1") rather than a
// state_dict file: what rules/export/torchvision_weights.toml says of each
// model (generated from Debian's torchvision by
// scripts/list-torchvision-weights.py), so that the checkpoint file is known
// when a build is planned, without importing torch.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace winml::config {

// The data's path in rules/.
inline constexpr const char* kTorchvisionWeightsRules = "export/torchvision_weights.toml";

// Whether a value of [export] weights names pretrained weights: "DEFAULT" or
// an enum name (an upper-case letter, then upper-case letters, digits and
// '_'). Anything else is a state_dict file's path.
bool names_pretrained_weights(const std::string& weights);

struct PretrainedWeights {
  std::string model;  // the torchvision builder, e.g. "resnet50"
  std::string name;   // the enum member, "DEFAULT" resolved: e.g. "IMAGENET1K_V2"
  std::string file;   // the checkpoint's file name in $TORCH_HOME/hub/checkpoints/
  std::string url;    // where torchvision downloads it from
};

// The weights `weights` names for torchvision model `model`; nullopt with
// `problem` set (a message to follow "'export.weights' is '<value>': ") when
// the data has no such model or name. InputError naming the rules file when
// it is missing or malformed.
std::optional<PretrainedWeights> find_pretrained_weights(const std::string& model, const std::string& weights,
                                                         std::string* problem = nullptr);

}  // namespace winml::config
