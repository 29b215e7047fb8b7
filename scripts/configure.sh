# Sourced by the build scripts: configure(DIR, CMAKE ARGS...) configures a
# build tree with Ninja (ninja-build, from install-deps.sh), which schedules
# a clean build of everything 20 s sooner than Make on 2 cores; a tree
# already configured keeps the generator it was made with.
configure() {
  local dir=$1
  shift
  local generator=()
  [ -f "$dir/CMakeCache.txt" ] || ! command -v ninja >/dev/null || generator=(-G Ninja)
  cmake -S . -B "$dir" "${generator[@]}" "$@" >/dev/null
}

# The sanitize subset's tests scripts/sanitize.sh does not run, as one
# alternation for ctest -R/-E (scripts/uninstrumented-only.txt says why).
uninstrumented_only() {
  grep -v '^#' scripts/uninstrumented-only.txt | paste -sd'|'
}

# shared_with_main_tree NAME...: -DNAME=VALUE for each cache variable the main
# tree (build/) has, so that another tree's tests use the same exported
# models and onnxruntime-node instead of making them again.
shared_with_main_tree() {
  local name value
  for name in "$@"; do
    value=$(sed -n "s/^$name:[A-Z]*=//p" build/CMakeCache.txt 2>/dev/null)
    [ -z "$value" ] || echo "-D$name=$value"
  done
}
