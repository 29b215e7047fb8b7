#!/usr/bin/env python3
"""Batch-1 latency of winml-make's CPU runtime vs ONNX Runtime (onnxruntime-node).

Side by side in one run: for each model, `winml-make run --repeat N` and
`tests/ort/ort_run.js --repeat N --opt-level basic` (ORT with basic graph
optimizations), same thread count, same all-ones input. Each reports the
median of N timed runs after one warm-up run. The two alternate for several
rounds (so background load hits both alike) and the median round is kept.
Prints latency, the ratio winml/ORT and each process's peak RSS.

usage: benchmarks/runtime/run.py [--build DIR] [--threads N] [--repeat 20] [--rounds 3] [MODEL ...]
MODEL names come from tests/fixtures/export_models.py (default: resnet50_op13 vit_b_16_op13).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def test_models_dir(build):
    """Where the build's tests keep the exported models: its WINML_TEST_MODELS
    (by default in the user's cache)."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("WINML_TEST_MODELS:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "winml-make", "test-models")


def run_json(argv, env=None):
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out[out.index("{"):])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("models", nargs="*", default=["resnet50_op13", "vit_b_16_op13"])
    a = p.parse_args()

    models_dir = test_models_dir(a.build)
    missing = [m for m in a.models if not os.path.exists(os.path.join(models_dir, m + ".onnx"))]
    if missing:
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "fixtures", "export_models.py"),
                        "--out", models_dir, *missing], check=True)
    node_modules = os.path.join(a.build, "ort-node", "node_modules")
    if not os.path.isdir(os.path.join(node_modules, "onnxruntime-node")):
        subprocess.run(["bash", os.path.join(ROOT, "tests", "ort", "install.sh"), os.path.join(a.build, "ort-node")],
                       check=True)
    env = dict(os.environ, NODE_PATH=node_modules)
    winml = os.path.join(a.build, "winml-make")

    print(f"threads {a.threads}; per round the median of {a.repeat} runs after warm-up; best of {a.rounds} "
          f"alternating rounds (median round in parentheses)")
    header = (f"{'model':<18} {'winml ms':>16} {'ORT ms':>16} {'ratio':>12} {'winml RSS MiB':>14} {'ORT RSS MiB':>12}"
              "  isa")
    print(header)
    for name in a.models:
        path = os.path.join(models_dir, name + ".onnx")
        ours, theirs = [], []
        for r in range(a.rounds):
            def run_ours():
                ours.append(run_json([winml, "run", "-m", path, "--threads", str(a.threads),
                                      "--repeat", str(a.repeat), "--json"]))

            def run_ort():
                theirs.append(run_json(["node", os.path.join(ROOT, "tests", "ort", "ort_run.js"), "--model", path,
                                        "--repeat", str(a.repeat), "--opt-level", "basic", "--threads",
                                        str(a.threads), "--json"], env))
            for step in ((run_ours, run_ort) if r % 2 == 0 else (run_ort, run_ours)):
                step()
        w = min(x["median_ms"] for x in ours)
        o = min(x["median_ms"] for x in theirs)
        wm = statistics.median(x["median_ms"] for x in ours)
        om = statistics.median(x["median_ms"] for x in theirs)
        w_rss = max(x["peak_rss_bytes"] for x in ours) / 2**20
        o_rss = max(x["rss_bytes"] for x in theirs) / 2**20
        print(f"{name:<18} {w:7.1f} ({wm:6.1f}) {o:7.1f} ({om:6.1f}) {w / o:5.2f} ({wm / om:4.2f}) {w_rss:14.1f} "
              f"{o_rss:12.1f}  {ours[0]['isa']}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
