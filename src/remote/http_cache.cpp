#include "remote/http_cache.h"

#include <chrono>
#include <filesystem>

#include "base/atomic_file.h"
#include "base/native_file.h"
#include "base/this_process.h"
#include "base/text.h"
#include "remote/action_message.h"
#include "remote/sha256.h"
#include "store/digest.h"
#include "base/path_text.h"

namespace winml::remote {

namespace fs = std::filesystem;

namespace {

constexpr int kAttempts = 4;
constexpr std::size_t kQueueCapacity = 8;  // entries waiting; the builder waits beyond that
constexpr int kUploadThreads = 2;
constexpr std::size_t kMaxMessageBytes = 16u << 20;  // an action entry is a few KiB; a bigger answer is garbage
// Room a download must leave on the local cache's file system.
constexpr std::uint64_t kFreeSpaceReserve = 64ull << 20;

// Why a reader holding `key` (none: no signatures) would refuse the entry
// `body`, if it would.
std::optional<std::string> refused_by_this_reader(const std::string& body, const store::Digest& entry_key,
                                                  const EntryKey* key) {
  std::string why;
  auto decoded = decode_action(body, entry_key, &why);
  if (!decoded) return why;
  if (key)
    if (auto problem = signature_problem(*decoded, *key)) return problem->reason + ": " + problem->detail;
  return std::nullopt;
}

}  // namespace

HttpCache::HttpCache(RemoteSettings settings, Warn warn) : settings_(std::move(settings)), warn_(std::move(warn)) {
  if (!settings_.signing_key.empty()) key_ = EntryKey::load_signing(settings_.signing_key);
  else if (!settings_.verify_key.empty()) key_ = EntryKey::load(settings_.verify_key);
  // The first client now: options this system's client cannot honour stop
  // the build here (InputError), not in the middle of it.
  idle_.push_back(std::make_unique<HttpClient>(settings_.http));
}

HttpCache::~HttpCache() { finish(); }

std::string HttpCache::url_of(const char* kind, const std::string& hash) const {
  return settings_.url + "/" + kind + "/" + hash;
}

std::unique_ptr<HttpClient> HttpCache::take_client() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
  }
  return std::make_unique<HttpClient>(settings_.http);
}

void HttpCache::return_client(std::unique_ptr<HttpClient> client) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(client));
}

void HttpCache::warn_once(const std::string& kind, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!warned_.insert(kind).second) return;
  }
  if (warn_) warn_(message);
}

void HttpCache::give_up(const std::string& what, const HttpResult& r) {
  std::string hint;
  if (r.status == 401 || r.status == 403)
    hint = " (check the credentials: URL, ~/.netrc or WINML_MAKE_REMOTE_CACHE_TOKEN)";
  switch_off(what + ": " + r.describe() + hint);
}

void HttpCache::switch_off(const std::string& message) {
  if (off_.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.switched_off = true;
  }
  changed_.notify_all();
  if (settings_.http.abort && settings_.http.abort->load()) return;  // Ctrl-C: nothing to explain
  warn_once("off", "remote cache " + redact_url(settings_.url) + " switched off for this run: " + message +
                       "; the build goes on with the local cache");
}

HttpResult HttpCache::with_retries(HttpClient& http, const std::function<HttpResult(HttpClient&)>& op) {
  HttpResult r;
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 0; attempt < kAttempts && !off(); ++attempt) {
    if (attempt > 0) {
      // 0.2 s, 0.4 s, 0.8 s: a restarting server or a full queue gets time.
      std::this_thread::sleep_for(std::chrono::milliseconds(200 << (attempt - 1)));
    }
    r = op(http);
    if (!r.transient()) break;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mu_);
  stats_.seconds += seconds;
  return r;
}

HttpCache::Blob HttpCache::download(HttpClient& http, const RemoteBlob& blob, const store::OutputFile& output,
                                    store::LocalCache& local) {
  const fs::path dir = local.incoming_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  static std::atomic<unsigned> counter{0};
  // A temporary name carrying the pid: a killed build's leftovers are swept.
  const fs::path part =
      dir / (blob.sha256 + std::string(kTempMarker) + std::to_string(current_process_id()) + "." + std::to_string(counter++));
  bool verified = false;
  const HttpResult r = with_retries(http, [&](HttpClient& h) {
    const int fd = native::create(part, native::Create::kReplace);
    if (fd < 0) return HttpResult{0, "cannot write " + to_utf8(part)};
    Sha256 sha;
    store::Hasher xxh;
    std::uint64_t size = 0;
    bool write_failed = false;
    HttpResult got = h.get(url_of("cas", blob.sha256), [&](const char* data, std::size_t n) {
      size += n;
      received_ += n;
      if (size > blob.size) return false;  // longer than promised: not this blob
      sha.update(data, n);
      xxh.update(data, n);
      if (!native::write_all(fd, data, n)) return !(write_failed = true);
      return true;
    });
    native::close(fd);
    verified =
        got.ok() && !write_failed && size == blob.size && sha.hex() == blob.sha256 && xxh.finish() == output.digest;
    if (got.status == 0 && size > blob.size) got = HttpResult{200, ""};  // an answer, just a wrong one
    return got;
  });
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.bytes_down += r.bytes;
  }
  if (verified) {
    local.adopt_blob(output.digest, part);
    return Blob::kStored;
  }
  fs::remove(part, ec);
  if (r.miss()) return Blob::kMissing;
  if (r.ok()) {
    // The server holds other bytes under this name (tampered or torn):
    // the stage reruns here and the upload replaces them.
    std::lock_guard<std::mutex> lock(mu_);
    distrusted_.insert(blob.sha256);
    return Blob::kCorrupt;
  }
  give_up("downloading " + output.name, r);
  return Blob::kRefused;
}

std::optional<store::Rejection> HttpCache::screen(const RemoteEntry& remote, const std::string& primary,
                                                  store::LocalCache& local) const {
  if (key_)
    if (auto why = signature_problem(remote, *key_)) return why;
  if (auto why = store::outputs_problem(remote.entry.outputs, primary)) return why;
  // What the entry claims must fit, whatever the server then sends.
  std::uint64_t needed = 0;
  std::set<store::Digest> counted;
  for (const auto& o : remote.entry.outputs)
    if (counted.insert(o.digest).second && !local.has_blob(o.digest)) needed += o.size;
  if (needed == 0) return std::nullopt;
  std::error_code ec;
  fs::create_directories(local.incoming_dir(), ec);
  const auto free = native::free_bytes(local.incoming_dir());
  if (free && needed + kFreeSpaceReserve > *free)
    return store::Rejection{store::rejection::kNoSpace, human_bytes(needed) + " to download, " + human_bytes(*free) +
                                                            " free in " + to_utf8(local.root())};
  return std::nullopt;
}

store::Fetched HttpCache::fetch(const store::Digest& key, const std::string& primary, store::LocalCache& local) {
  store::Fetched out;
  if (off()) return out;
  std::call_once(swept_, [&] { local.sweep_incoming(); });
  auto http = take_client();
  std::string body;
  bool too_large = false;
  const HttpResult r = with_retries(*http, [&](HttpClient& h) {
    body.clear();
    too_large = false;
    HttpResult got = h.get(url_of("ac", action_name(settings_.name_space, key)), [&](const char* data, std::size_t n) {
      if (body.size() + n > kMaxMessageBytes) return !(too_large = true);
      body.append(data, n);
      return true;
    });
    if (too_large) got.status = 200;  // an answer, only one no entry can be: not retried
    return got;
  });
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.bytes_down += body.size();
  }
  std::string why;
  if (too_large) {
    out.rejected = store::Rejection{store::rejection::kTooLarge,
                                    "more than " + human_bytes(kMaxMessageBytes) + " (an entry is a few KiB)"};
  } else if (r.ok()) {
    if (auto remote = decode_action(body, key, &why)) {
      out.rejected = screen(*remote, primary, local);
      bool complete = !out.rejected;
      for (std::size_t i = 0; i < remote->blobs.size() && complete; ++i) {
        const auto& output = remote->entry.outputs[i];
        if (local.has_blob(output.digest)) continue;  // restore re-hashes it anyway
        const Blob got = download(*http, remote->blobs[i], output, local);
        complete = got == Blob::kStored;
        if (got == Blob::kCorrupt)
          out.rejected = store::Rejection{store::rejection::kContent, "blob " + remote->blobs[i].sha256 + " of " +
                                                                          output.name + " does not match its digest"};
      }
      if (complete) out.entry = std::move(remote->entry);
    } else {
      out.rejected = store::Rejection{store::rejection::kUnreadable, why};
    }
  } else if (!r.miss()) {
    give_up("looking up an entry", r);
  }
  return_client(std::move(http));
  std::lock_guard<std::mutex> lock(mu_);
  ++(out.entry ? stats_.hits : stats_.misses);
  if (out.rejected) ++stats_.refused;
  return out;
}

void HttpCache::refused(const store::Digest&) {
  std::lock_guard<std::mutex> lock(mu_);
  --stats_.hits;
  ++stats_.misses;
  ++stats_.refused;
}

bool HttpCache::put_blob(HttpClient& http, const std::string& sha256, const fs::path& file) {
  bool distrusted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    distrusted = distrusted_.count(sha256) > 0;
  }
  if (!distrusted) {
    const HttpResult present = with_retries(http, [&](HttpClient& h) { return h.head(url_of("cas", sha256)); });
    if (present.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.blobs_present;
      return true;
    }
    if (!present.miss()) {
      give_up("checking for a blob", present);
      return false;
    }
  }
  const HttpResult put = with_retries(http, [&](HttpClient& h) { return h.put_file(url_of("cas", sha256), file); });
  if (put.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.blobs_uploaded;
    stats_.bytes_up += put.bytes;
    sent_ += put.bytes;
    distrusted_.erase(sha256);
    return true;
  }
  std::error_code ec;
  if (put.status == 413 || put.status == 400) {
    // This blob only (a server size limit): the others may still fit.
    warn_once("refused:" + std::to_string(put.status),
              "remote cache " + redact_url(settings_.url) + " refused an upload of " +
                  std::to_string(fs::file_size(file, ec)) + " bytes (" + put.describe() +
                  (put.status == 413 ? ": raise the server's body size limit, e.g. nginx client_max_body_size" : "") +
                  "); such entries stay local");
    return false;
  }
  give_up("uploading a blob", put);
  return false;
}

void HttpCache::run_upload(HttpClient& http, const Upload& job) {
  std::vector<std::string> sha256s;
  for (const auto& output : job.entry.outputs) {
    if (off()) return;
    const fs::path blob = job.local->blob_path(output.digest);
    std::string sha;
    try {
      sha = sha256_file(blob);
    } catch (const std::exception&) {
      return;  // evicted meanwhile (a concurrent gc): nothing to share
    }
    if (!put_blob(http, sha, blob)) return;
    sha256s.push_back(std::move(sha));
  }
  const std::string body = encode_action(job.entry, sha256s, key_ && key_->can_sign() ? key_.get() : nullptr);
  if (auto why = refused_by_this_reader(body, job.entry.key, key_.get())) {
    // What this run would refuse as a reader, no reader should be handed.
    switch_off("not uploading an entry this run would itself refuse (" + *why + ")");
    return;
  }
  const std::string url = url_of("ac", action_name(settings_.name_space, job.entry.key));
  const HttpResult r = with_retries(http, [&](HttpClient& h) { return h.put_bytes(url, body); });
  if (!r.ok()) {
    give_up("uploading an entry", r);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.uploads;
  stats_.bytes_up += body.size();
}

void HttpCache::upload_worker() {
  auto http = take_client();
  for (;;) {
    Upload job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return closing_ || !queue_.empty() || off(); });
      if (queue_.empty() || off()) {
        queue_.clear();
        if (closing_ || off()) break;
        continue;
      }
      job = std::move(queue_.front());
      queue_.pop_front();
      ++in_flight_;
    }
    changed_.notify_all();  // room in the queue
    run_upload(*http, job);
    {
      std::lock_guard<std::mutex> lock(mu_);
      --in_flight_;
    }
    changed_.notify_all();
  }
  return_client(std::move(http));
  changed_.notify_all();
}

void HttpCache::upload(const store::ActionEntry& entry, store::LocalCache& local) {
  if (settings_.mode == RemoteMode::kReadOnly || off()) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (workers_.empty()) {
    for (int i = 0; i < kUploadThreads; ++i) workers_.emplace_back([this] { upload_worker(); });
  }
  // Bounded: a builder far ahead of the uploads waits here.
  changed_.wait(lock, [&] { return queue_.size() < kQueueCapacity || off() || closing_; });
  if (off() || closing_) return;
  queue_.push_back({entry, &local});
  lock.unlock();
  changed_.notify_all();
}

void HttpCache::finish() {
  std::vector<std::thread> workers;
  {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return (queue_.empty() && in_flight_ == 0) || off(); });
    closing_ = true;
    workers.swap(workers_);
  }
  changed_.notify_all();
  for (auto& t : workers) t.join();
}

RemoteStats HttpCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace winml::remote
