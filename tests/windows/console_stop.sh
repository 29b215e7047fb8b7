#!/usr/bin/env bash
# Ctrl-C on Windows, for real, under Wine: winml-make.exe runs in a
# pseudo-terminal (tmux), whose console Wine gives it, with an export command
# that waits. Wine turns the SIGINT of a terminal's Ctrl-C into the console's
# CTRL_C_EVENT, so winml-make's console handler runs as on Windows. Twice:
#   terminal  Ctrl-C typed at the terminal (every process on the console)
#   alone     the event for winml-make's process alone (its Wine process signalled)
# Each time winml-make exits 130, records the build as interrupted, leaves no
# export.onnx, and the export command it started has ended.
# (The in-process tests send Ctrl-Break with GenerateConsoleCtrlEvent, which
# Wine 8 does not deliver to another process: tests/cli/stop_test.cpp.)
# usage: console_stop.sh WINML_MAKE_EXE TEST_COMMAND_EXE MODEL.onnx
set -euo pipefail
exe=$1 command=$2 model=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
wine_run=$here/../../scripts/windows/wine-run.sh
work=$(mktemp -d)
socket=winml-console-stop-$$
cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "console_stop: $case: $*" >&2
  exit 1
}

wait_for() {  # SECONDS TEST...
  local seconds=$1
  shift
  for _ in $(seq $((seconds * 10))); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  return 1
}

for case in terminal alone; do
  project=$work/$case
  mkdir -p "$project"
  cp "$model" "$project/net.onnx"
  marker=export-$case-$$.pid  # names the command's process among all others
  cat >"$project/winml.toml" <<TOML
[[model]]
name = "net"
[model.export]
command = ['Z:$command', 'pid', '$marker', 'wait', 'go', '300', 'copy', 'net.onnx', '{output}']
inputs = ["net.onnx"]
TOML
  tmux -L "$socket" new-session -d -s "$case" -x 200 -y 50 \
    "cd '$project' && WINML_CONSOLE_STOP_RUN=$case-$$ bash '$wine_run' 'Z:$exe' --no-cache; echo \$? > exit.txt; sleep 600"
  wait_for 120 test -s "$project/$marker" || fail "the export command never started"
  case $case in
    terminal) tmux -L "$socket" send-keys -t "$case" C-c ;;
    alone)
      # winml-make's own process, not a stage worker (Wine parents both to
      # init: a worker is told by its --worker-process argument).
      pid=
      for p in $(pgrep -x winml-make.exe || true); do
        ! tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q -- --worker-process || continue
        if tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qx "WINML_CONSOLE_STOP_RUN=$case-$$"; then pid=$p; fi
      done
      [ -n "$pid" ] || fail "no Wine process of winml-make.exe"
      kill -INT "$pid"
      ;;
  esac
  wait_for 60 test -s "$project/exit.txt" || fail "winml-make did not stop within 60 s"
  code=$(cat "$project/exit.txt")
  [ "$code" = 130 ] || fail "exit code $code, not 130; the terminal showed: $(tmux -L "$socket" capture-pane -p -t "$case")"
  grep -q '"status": *"interrupted"' "$project/build/net/build_manifest.json" ||
    fail "the manifest does not say interrupted: $(cat "$project/build/net/build_manifest.json")"
  [ ! -e "$project/build/net/export.onnx" ] || fail "an export.onnx was left"
  # (A bracket in the pattern: the pattern's own process never matches it.)
  wait_for 10 bash -c "! pgrep -f '[e]${marker#e}' >/dev/null" || fail "the export command outlived winml-make"
  echo "console_stop: $case: exit 130, interrupted, the export command ended"
done
