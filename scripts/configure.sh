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
