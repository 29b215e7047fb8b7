#!/usr/bin/env bash
# Runs a Windows x64 program under Wine 8: the CMAKE_CROSSCOMPILING_EMULATOR
# of scripts/windows/toolchain.cmake, so ctest, gtest_discover_tests and
# custom commands run the cross-built executables through it.
#
#   wine-run.sh PROGRAM.exe [ARGS...]
#
# - Wine's binary is /usr/lib/wine/wine64 (Debian's wine64 package; not on
#   PATH without the `wine` package). WINML_WINE overrides it.
# - The programs run in a Wine prefix of their own, never ~/.wine:
#   $WINML_WINEPREFIX, else
#   ${WINML_WINDOWS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/windows}/wineprefix.
#   It is made on first use under a lock, so that parallel ctest jobs
#   starting at once make it once: 0.7 GB, about 12.5 s on an idle 2-core
#   machine (wineboot 7 s, then 5 s until the wineserver has written the
#   prefix and exited). Later, a run that starts a Wine session (no program
#   ran in the last 3 s) takes about 1.2 s, and one in a running session
#   about 0.1 s.
# - WINEDEBUG=-all (Wine's own diagnostics would mix with the program's
#   stderr) and winedbg disabled: a crashing program exits with its exception
#   code at once instead of starting Wine's debugger.
# - WINML_ORT_CACHE names fetch-ort.sh's cache on drive Z:, so winml-make
#   finds ONNX Runtime's Windows DLLs where a Windows user's fetch puts them.
# - stdin, stdout and stderr are the program's; wine64 exits with the
#   program's exit code (its low 8 bits, as any Unix exit status: an access
#   violation, 0xC0000005, is 5).
# The executables of the Windows build link libgcc, libstdc++ and winpthread
# statically (toolchain.cmake), so no WINEPATH is needed to find MinGW DLLs.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: wine-run.sh PROGRAM.exe [ARGS...]" >&2
  exit 2
fi

wine=${WINML_WINE:-/usr/lib/wine/wine64}
if [ ! -x "$wine" ]; then
  echo "wine-run: $wine not found: install Debian's wine64 package (scripts/install-deps.sh)" >&2
  exit 127
fi
cache=${WINML_WINDOWS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/windows}
export WINEPREFIX=${WINML_WINEPREFIX:-$cache/wineprefix}
export WINEARCH=win64
export WINEDEBUG=-all
# Wine names Unix files through the locale's character set: in the POSIX
# locale a folder named in UTF-8 (ü, 模型) is not found.
export LC_ALL=C.UTF-8
unset WINELOADERNOEXEC WINESERVER
# ONNX Runtime's Windows DLLs are in scripts/fetch-ort.sh's cache, which a
# Windows program sees on Wine's drive Z: (the Linux root).
ort_cache=${WINML_ORT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/winml-make/ort}
case $ort_cache in
  /*) export WINML_ORT_CACHE="Z:$ort_cache" ;;
esac

# What a ready prefix's marker holds: a prefix made by an older recipe is made again.
recipe="win10"
# The prefix is ready once its marker exists (written after wineboot and
# wineserver have finished). A killed first run leaves no marker and the next
# run makes the prefix again.
if [ "$(cat "$WINEPREFIX/.winml-ready" 2>/dev/null)" != "$recipe" ]; then
  mkdir -p "$(dirname "$WINEPREFIX")"
  exec 9>"$WINEPREFIX.lock"
  flock 9
  if [ "$(cat "$WINEPREFIX/.winml-ready" 2>/dev/null)" != "$recipe" ]; then
    # (A server still running for an older prefix ends first.)
    [ ! -d "$WINEPREFIX" ] || "$(dirname "$wine")/wineserver" -k 2>/dev/null || true
    rm -rf "$WINEPREFIX"
    # mscoree/mshtml disabled: no offer to install Wine Mono or Gecko (the
    # programs here need neither); wineboot's chatter goes to a log.
    if ! WINEDLLOVERRIDES="mscoree,mshtml=d;winedbg.exe=d" "$wine" wineboot --init \
      >"$WINEPREFIX.log" 2>&1; then
      echo "wine-run: making the Wine prefix $WINEPREFIX failed (see $WINEPREFIX.log)" >&2
      exit 125
    fi
    # wineboot returns before the prefix is written out; the server's exit is
    # the end of it.
    "$(dirname "$wine")/wineserver" -w
    # A new prefix says it is Windows 7; the programs are for Windows 10 and 11.
    "$wine" reg add 'HKEY_CURRENT_USER\Software\Wine' /v Version /d win10 /f >>"$WINEPREFIX.log" 2>&1
    "$(dirname "$wine")/wineserver" -w
    echo "$recipe" >"$WINEPREFIX/.winml-ready"
  fi
  flock -u 9
  exec 9>&-
fi

export WINEDLLOVERRIDES="winedbg.exe=d${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"

# The wineserver and the session's system processes (services.exe,
# winedevice.exe, ...) live about 3 s past the last program and keep the
# stderr of the program that started them: ctest, which reads a test's
# output until every writer has closed it, would wait those 3 s after each
# test (and a warm-looking run would start a new session each time). So when
# no server runs (exit 0: this call started one), the session is started
# with stdio on /dev/null by a trivial program first; the program then runs
# in it, and the next test within 3 s finds it warm. Parallel tests take
# turns at this under a lock: else a second test, finding the server just
# started, would run its program before the session's processes are up, and
# they would keep its stderr (and its ctest slot) for the whole run.
exec 9>"$WINEPREFIX.session-lock"
flock 9
if "$(dirname "$wine")/wineserver" </dev/null >/dev/null 2>&1; then
  "$wine" cmd.exe /c exit </dev/null >/dev/null 2>&1 || true
fi
flock -u 9
exec 9>&-
exec "$wine" "$@"
