// The shared cache over Bazel's HTTP cache protocol: GET/HEAD/PUT of
// {url}/cas/<sha256> (blobs) and {url}/ac/<sha256> (action entries, see
// action_message.h), as bazel-remote and nginx with WebDAV serve them.
//
// Lookups run on the builder's threads. An entry is refused (a miss) unless
// it decodes, carries a valid signature when a key is configured, passes the
// output rules (store/entry_rules.h) and fits on the disk: all before any
// download. Then every blob is streamed to a file while hashed (SHA-256 and
// the local XXH3) and adopted into the local cache only when both match;
// the builder restores and checks the entry before recording it there.
// Uploads run on a bounded background queue: blobs first (HEAD, PUT only
// what is missing), the entry last (signed, with a signing key), so no
// server ever holds an entry whose blobs it lacks. Nothing here fails a
// build: transient errors are retried with backoff, and an error that
// persists switches the remote off for the run with one warning.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "remote/action_message.h"
#include "remote/http_client.h"
#include "remote/settings.h"
#include "store/remote_cache.h"

namespace winml::remote {

struct RemoteStats {
  std::uint64_t hits = 0, misses = 0;
  std::uint64_t refused = 0;         // of the misses: entries the server had, refused
  std::uint64_t uploads = 0;         // entries written
  std::uint64_t blobs_uploaded = 0;  // PUTs of blobs the server lacked
  std::uint64_t blobs_present = 0;   // blobs a HEAD found already there
  std::uint64_t bytes_down = 0, bytes_up = 0;
  double seconds = 0;  // spent waiting on the server, summed over threads
  bool switched_off = false;
};

class HttpCache : public store::RemoteCache {
 public:
  using Warn = std::function<void(const std::string&)>;  // called from any thread
  // Reads the signing or verification key (InputError naming its file).
  HttpCache(RemoteSettings settings, Warn warn);
  ~HttpCache() override;

  store::Fetched fetch(const store::Digest& key, const std::string& primary, store::LocalCache& local) override;
  void refused(const store::Digest& key) override;
  void upload(const store::ActionEntry& entry, store::LocalCache& local) override;
  // Waits until every queued upload is done (or abandoned: switched off, or
  // the abort flag set).
  void finish();

  RemoteStats stats() const;
  // Bytes received and sent so far, counted as they move (a download by the
  // chunk, an upload when its blob is stored): what a long transfer's status
  // line shows.
  const std::atomic<std::uint64_t>& bytes_received() const { return received_; }
  const std::atomic<std::uint64_t>& bytes_sent() const { return sent_; }
  const RemoteSettings& settings() const { return settings_; }

 private:
  struct Upload {
    store::ActionEntry entry;
    store::LocalCache* local;
  };
  enum class Blob { kStored, kMissing, kCorrupt, kRefused };
  std::atomic<std::uint64_t> received_{0}, sent_{0};

  Blob download(HttpClient& http, const RemoteBlob& blob, const store::OutputFile& output, store::LocalCache& local);
  bool put_blob(HttpClient& http, const std::string& sha256, const std::filesystem::path& file);
  void run_upload(HttpClient& http, const Upload& job);
  void upload_worker();
  // Runs `op` until it answers, or its error is not transient, or the
  // attempts are spent; time spent counts in the stats.
  HttpResult with_retries(HttpClient& http, const std::function<HttpResult(HttpClient&)>& op);
  // An answer the protocol does not allow: the remote goes off for the run.
  void give_up(const std::string& what, const HttpResult& r);
  // The remote goes off for the run with `message` as its one warning.
  void switch_off(const std::string& message);
  void warn_once(const std::string& kind, const std::string& message);
  bool off() const { return off_.load() || (settings_.http.abort && settings_.http.abort->load()); }
  std::unique_ptr<HttpClient> take_client();
  void return_client(std::unique_ptr<HttpClient> client);
  std::string url_of(const char* kind, const std::string& hash) const;

  // Why the entry cannot be used before anything is downloaded, if so.
  std::optional<store::Rejection> screen(const RemoteEntry& remote, const std::string& primary,
                                         store::LocalCache& local) const;

  RemoteSettings settings_;
  Warn warn_;
  std::shared_ptr<const EntryKey> key_;  // signs (a writer's) or verifies; none: entries are not signed
  std::atomic<bool> off_{false};
  std::once_flag swept_;  // the incoming folder's leftovers, once per run

  mutable std::mutex mu_;  // guards everything below
  RemoteStats stats_;
  std::set<std::string> warned_;
  std::set<std::string> distrusted_;  // blobs the server served wrong: replaced on upload whatever HEAD says
  std::vector<std::unique_ptr<HttpClient>> idle_;
  std::deque<Upload> queue_;
  std::size_t in_flight_ = 0;
  bool closing_ = false;
  std::condition_variable changed_;
  std::vector<std::thread> workers_;
};

}  // namespace winml::remote
