#include "support/nginx_server.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace winml::test {

namespace fs = std::filesystem;

NginxServer::NginxServer(NginxOptions options) : options_(std::move(options)) {
  // Another process may take the port between the probe and nginx's bind:
  // try a few ports before giving up.
  for (int attempt = 0;; ++attempt) {
    try {
      start();
      return;
    } catch (const std::exception&) {
      stop();
      if (attempt == 4) throw;
    }
  }
}

NginxServer::~NginxServer() { stop(); }

fs::path NginxServer::root() const { return dir_ / "www" / "cache"; }

std::string NginxServer::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/cache"; }

std::string NginxServer::access_log() const { return read_text(dir_ / "access.log"); }

bool NginxServer::upload_in_progress() const {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_ / "temp" / "client_body", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) return true;
  return false;
}

void NginxServer::write_config(const std::function<std::string(const fs::path&)>& server_path, bool as_root) {
  const fs::path d = dir_.path();
  fs::create_directories(root());
  fs::create_directories(d / "temp");
  std::string auth;
  if (options_.basic_auth_for_writes) {
    // {PLAIN} is a scheme nginx's auth_basic_user_file understands: no
    // hashing tool needed for a test password.
    std::ofstream(d / "htpasswd") << options_.user << ":{PLAIN}" << options_.password << "\n";
    auth = "      limit_except GET HEAD { auth_basic \"cache\"; auth_basic_user_file " + server_path(d / "htpasswd") +
           "; }\n";
  }
  std::ofstream conf(d / "nginx.conf");
  // As root, workers would switch to nobody and could not write the temp
  // folder: keep them as the user running the test.
  if (as_root) conf << "user root;\n";
  conf << "daemon off;\nworker_processes 1;\npid " << server_path(d / "nginx.pid") << ";\n"
       << "error_log " << server_path(d / "error.log") << " info;\nevents {}\nhttp {\n"
       << "  log_format plain '$request_method $uri $status $body_bytes_sent';\n"
       << "  access_log " << server_path(d / "access.log") << " plain;\n";
  for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    conf << "  " << t << "_temp_path " << server_path(d / "temp" / t) << ";\n";
  conf << "  server {\n    listen 127.0.0.1:" << port_ << ";\n"
       << "    location /cache/ {\n      root " << server_path(d / "www") << ";\n"
       << "      dav_methods PUT;\n      create_full_put_path on;\n      dav_access user:rw group:r all:r;\n"
       << "      client_max_body_size " << options_.client_max_body_size << ";\n"
       << auth << "    }\n  }\n}\n";
}

}  // namespace winml::test
