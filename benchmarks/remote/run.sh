#!/usr/bin/env bash
# The shared cache, side by side (one run, this machine): restoring the ViT
# example (every stage's artifact, ~1.3 GB with .onnx.data sidecars) from
# nginx on loopback, from the local cache, and by rebuilding it; and curl
# downloading the same blobs from the same server. The ratio that matters:
# winml-make's restore throughput / curl's (goal >= 0.5).
#
# usage: benchmarks/remote/run.sh [BUILD_DIR] [MODEL_DIR]
#   MODEL_DIR holds vit_b_16_op17.onnx(.data) (default: the build's exported
#   test models, made by the test suite's fixture.export_models)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
source "$here/../common/test_models.sh"
models=${2:-$(test_models_dir "$build")}
bin=$build/winml-make
[ -x /usr/sbin/nginx ] || { echo "needs nginx (scripts/install-deps.sh)"; exit 2; }
[ -f "$models/vit_b_16_op17.onnx" ] || { echo "needs $models/vit_b_16_op17.onnx (ctest -R fixture.export_models)"; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/winml-remote-bench.XXXXXX")
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# nginx with WebDAV PUT on a free loopback port, from a private prefix.
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx/www/cache" "$work/nginx/temp"
user=""; [ "$(id -u)" = 0 ] && user="user root;"
cat > "$work/nginx/nginx.conf" <<CONF
$user
daemon off; worker_processes 2; pid $work/nginx/nginx.pid; error_log $work/nginx/error.log;
events {}
http {
  access_log off; sendfile on;
  client_body_temp_path $work/nginx/temp/body; proxy_temp_path $work/nginx/temp/proxy;
  fastcgi_temp_path $work/nginx/temp/fastcgi; uwsgi_temp_path $work/nginx/temp/uwsgi; scgi_temp_path $work/nginx/temp/scgi;
  server {
    listen 127.0.0.1:$port;
    location /cache/ { root $work/nginx/www; dav_methods PUT; create_full_put_path on; client_max_body_size 8G; }
  }
}
CONF
/usr/sbin/nginx -p "$work/nginx/" -c "$work/nginx/nginx.conf" & pid=$!
for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
url=http://127.0.0.1:$port/cache

project() {  # a ViT project in $1
  mkdir -p "$1"
  ln "$models/vit_b_16_op17.onnx" "$1/" 2>/dev/null || cp "$models/vit_b_16_op17.onnx" "$1/"
  ln "$models/vit_b_16_op17.onnx.data" "$1/" 2>/dev/null || cp "$models/vit_b_16_op17.onnx.data" "$1/"
  printf '[model]\nname = "vit"\nsource = "vit_b_16_op17.onnx"\n[quantize]\nmode = "fp16"\nsamples = 1\n' > "$1/winml.toml"
}
seconds() { /usr/bin/python3 -c 'import sys,time,subprocess; t=time.perf_counter(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(f"{time.perf_counter()-t:.3f}")' "$@"; }

project "$work/a"
echo "building and uploading ViT-B/16 once..."
rebuild=$(cd "$work/a" && WINML_MAKE_CACHE_DIR=$work/cache-a WINML_MAKE_REMOTE_CACHE=$url seconds "$bin")

project "$work/b"
remote=$(cd "$work/b" && WINML_MAKE_CACHE_DIR=$work/cache-b WINML_MAKE_REMOTE_CACHE=$url seconds "$bin")
bytes=$(du -sb "$work/nginx/www/cache/cas" | cut -f1)
rm -rf "$work/b/build"
local=$(cd "$work/b" && WINML_MAKE_CACHE_DIR=$work/cache-b seconds "$bin")

# curl: the same blobs, one after another, to files on the same disk.
mkdir -p "$work/curl"
urls=()
for f in "$work"/nginx/www/cache/cas/*; do urls+=(-o "$work/curl/$(basename "$f")" "$url/cas/$(basename "$f")"); done
curl_s=$(seconds curl -sf "${urls[@]}")

/usr/bin/python3 - "$bytes" "$rebuild" "$remote" "$local" "$curl_s" <<'PY'
import sys
b, rebuild, remote, local, curl = int(sys.argv[1]), *map(float, sys.argv[2:])
mb = b / 1e6
print(f"ViT-B/16, 6 stages, {mb:.0f} MB of blobs on the server")
print(f"{'case':<34}{'seconds':>9}{'MB/s':>9}")
for name, s in [("build + upload (all stages run)", rebuild), ("restore from nginx (empty local)", remote),
                ("restore from the local cache", local), ("curl, the same blobs", curl)]:
    print(f"{name:<34}{s:>9.3f}{mb / s:>9.0f}")
print(f"restore from nginx / curl throughput: {curl / remote:.2f}x (goal >= 0.5x)")
print(f"restore from nginx vs building (with upload): {rebuild / remote:.1f}x faster")
PY
