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
# regular expression for ctest -R/-E (scripts/uninstrumented-only.txt says
# why). A parameterized test's ctest name goes on after its googletest name
# ("  # GetParam() = ..."): the name ends at a space or at the end.
uninstrumented_only() {
  echo "^($(grep -v '^#' scripts/uninstrumented-only.txt | paste -sd'|'))( |\$)"
}

# Fails naming each line of scripts/uninstrumented-only.txt that is no test
# of the tree in $1: a renamed test would otherwise run nowhere.
check_uninstrumented_only() {
  local name missing=0
  while read -r name; do
    # (grep reads to the end: with -q it could stop first, and under
    # pipefail ctest's SIGPIPE would then count as "no such test".)
    ctest --test-dir "$1" -N -R "^$name( |\$)" | grep "Test *#" >/dev/null && continue
    echo "scripts/uninstrumented-only.txt: no test named $name in $1" >&2
    missing=1
  done < <(grep -v '^#' scripts/uninstrumented-only.txt)
  return $missing
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
