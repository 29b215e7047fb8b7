#include "cli/key_mismatch.h"

#include "store/entry_rules.h"
#include "base/path_text.h"

namespace winml::cli {

std::string key_mismatch_warning(const std::vector<graph::NodeResult>& results, const remote::HttpCache& remote) {
  if (remote.stats().hits != 0) return "";
  int bad = 0;
  for (const auto& r : results)
    for (const auto& x : r.rejections) {
      if (x.source != "remote") continue;
      if (x.why.reason != store::rejection::kBadSignature) return "";
      ++bad;
    }
  if (bad == 0) return "";
  const remote::RemoteSettings& s = remote.settings();
  const bool writer = !s.signing_key.empty();
  const std::string variable =
      writer ? "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY" : "WINML_MAKE_REMOTE_CACHE_VERIFY_KEY";
  const std::string key = to_utf8((writer ? s.signing_key : s.verify_key));
  return "winml-make: warning: every entry the remote cache had (" + std::to_string(bad) +
         ") failed its signature check with this build's key, " + variable + " (" + key +
         "): most likely it is not the key the cache's entries are signed with (a reader gives the writer's public "
         "key, or the same HMAC secret, and the same scheme). Only if it is the right key were the entries signed "
         "by someone else or altered after signing";
}

}  // namespace winml::cli
