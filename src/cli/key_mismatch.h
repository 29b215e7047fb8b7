// A reader for which every entry the server had fails its signature check
// most likely holds the wrong key (another key pair, a secret that differs,
// the writer's private key where its public key belongs): a forger would
// have had to replace every entry. The run's warning says so before it
// counts the refusals.
#pragma once

#include <string>
#include <vector>

#include "graph/builder.h"
#include "remote/http_cache.h"

namespace winml::cli {

// "" unless the run's remote lookups found entries and refused every one of
// them as `bad signature`; else the warning naming the key's variable and file.
std::string key_mismatch_warning(const std::vector<graph::NodeResult>& results, const remote::HttpCache& remote);

}  // namespace winml::cli
