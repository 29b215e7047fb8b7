// Debian's nginx serving WebDAV PUT on a free 127.0.0.1 port, from a
// private temp prefix, as a cache server for tests: started by the
// constructor, stopped (and its folder removed) by the destructor. The
// Windows build's tests run under Wine, which starts Debian's nginx as a
// Linux program (tests/support/posix/, tests/support/windows/).
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "support/temp_dir.h"

namespace winml::test {

struct NginxOptions {
  std::string client_max_body_size = "4G";
  bool basic_auth_for_writes = false;  // anonymous GET/HEAD, PUT needs user:password
  std::string user = "ci", password = "s3cret";
};

class NginxServer {
 public:
  explicit NginxServer(NginxOptions options = {});
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  static bool available();  // /usr/sbin/nginx is installed

  std::string url() const;  // "http://127.0.0.1:PORT/cache"
  int port() const { return port_; }
  // The files behind url(): root()/"cas"/<sha256>, root()/"ac"/<sha256>.
  std::filesystem::path root() const;
  // One line per finished request: "METHOD URI STATUS BODY_BYTES".
  std::string access_log() const;
  // Whether a request body is being received right now (nginx spools PUT
  // bodies to its client body temp folder until the upload is complete).
  bool upload_in_progress() const;
  void stop();

 private:
  void start();
  // nginx.conf in dir_, naming files as `server_path` spells them for nginx.
  void write_config(const std::function<std::string(const std::filesystem::path&)>& server_path, bool as_root);
  TempDir dir_;
  NginxOptions options_;
  int port_ = 0;
  long long pid_ = -1;
};


}  // namespace winml::test
