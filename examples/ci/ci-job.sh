#!/usr/bin/env bash
# The CI job: build every model with a cache directory that the CI system
# saves after the job and restores before the next one, bound the cache's
# size, and leave a machine-readable report next to the artifacts.
#
#   WINML_MAKE=path/to/winml-make CACHE_DIR=.winml-cache bash ci-job.sh
#
# Exit code: winml-make's (0 ok, 1 a stage failed, 2 bad config or model).
set -euo pipefail
cd "$(dirname "$0")"
WINML_MAKE=${WINML_MAKE:-winml-make}
CACHE_DIR=${CACHE_DIR:-.winml-cache}

status=0
"$WINML_MAKE" --cache-dir "$CACHE_DIR" --keep-going --json > build-report.json || status=$?
# Keep the saved cache bounded: least recently used entries go first.
"$WINML_MAKE" cache --cache-dir "$CACHE_DIR" gc --max-size 5G
# For the job log: each model and stage, up to date or why not.
"$WINML_MAKE" status || true
exit $status
