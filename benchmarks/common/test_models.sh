# Sourced by the benchmarks' scripts. test_models_dir BUILD_DIR: where that
# build's tests keep the exported models (its WINML_TEST_MODELS, by default
# in the user's cache), so that a benchmark reuses them.
test_models_dir() {
  local dir
  dir=$(sed -n 's/^WINML_TEST_MODELS:[A-Z]*=//p' "$1/CMakeCache.txt" 2>/dev/null)
  echo "${dir:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/test-models}"
}
