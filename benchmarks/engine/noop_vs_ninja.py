#!/usr/bin/env python3
"""No-op and touch-only builds: winml-make vs ninja on the same DAG, side by side.

For N = 1, 100, 1000 small models (a MatMul each, distinct weights), builds a
winml-make project and a build.ninja with the same DAG and the same files
(per model: source -> export -> optimized -> quantized -> compiled -> model,
optimized -> analyze_result.json, and the model's reports build_manifest.json
and winml_build_config.json from model.onnx and analyze_result.json; one
command per edge), builds both once, then times, interleaved:

  no-op:  a build with nothing to do (median of at least --runs runs and
          --min-seconds of winml-make runs, interleaved)
  touch:  every source model touched (content unchanged), then a build:
          winml-make must rerun 0 stages; ninja reruns every edge

and prints each time and the winml-make/ninja ratio. Run with Debian's python3
(it uses python3-onnx to write the models).

With --compile-backend ort the models compile through ONNX Runtime with the
`ref` plugin EP (`[compile] ep = "ref"`, `backend = "ort"`): a no-op build
must still load neither ORT nor the plugin, so it costs what the default
backend's does.

usage: noop_vs_ninja.py [--winml-make BIN] [--sizes 1,100,1000] [--runs 11] [--min-seconds 1] [--no-touch]
                        [--compile-backend ref|ort]
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

STAGES = ["export", "optimized", "quantized", "compiled", "model"]


def write_model(path, seed):
    w = numpy_helper.from_array(np.random.RandomState(seed).rand(4, 3).astype(np.float32), "W")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def make_projects(root, n, backend):
    wm, nj = os.path.join(root, "winml"), os.path.join(root, "ninja")
    for d in (wm, nj):
        os.makedirs(os.path.join(d, "models"))
    with open(os.path.join(wm, "winml.toml"), "w") as toml, open(os.path.join(nj, "build.ninja"), "w") as ninja:
        if backend == "ort":
            toml.write('[compile]\nep = "ref"\nbackend = "ort"\n\n')
        ninja.write("rule cp\n  command = cp $in $out\n")
        ninja.write("rule reports\n  command = for f in $out; do cat $in > $$f; done\n")
        for i in range(n):
            name = f"m{i:04d}"
            src = f"models/{name}.onnx"
            write_model(os.path.join(wm, src), i)
            shutil.copy(os.path.join(wm, src), os.path.join(nj, src))
            toml.write(f'[[model]]\nname = "{name}"\nsource = "{src}"\n\n')
            prev = src
            for stage in STAGES:
                out = f"build/{name}/{stage}.onnx"
                ninja.write(f"build {out}: cp {prev}\n")
                if stage == "optimized":  # the analyze node reads optimized.onnx
                    ninja.write(f"build build/{name}/analyze_result.json: cp {out}\n")
                prev = out
            ninja.write(f"build build/{name}/build_manifest.json build/{name}/winml_build_config.json: reports "
                        f"{prev} build/{name}/analyze_result.json\n")
    return wm, nj


def cpu_of_children():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def timed(cmd, cwd, env):
    """(wall seconds, CPU seconds, stdout) of one run."""
    c = cpu_of_children()
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}:\n{r.stdout}\n{r.stderr}")
    return elapsed, cpu_of_children() - c, r.stdout


def report(rows, n, case, w_runs, n_runs, note):
    med = lambda runs, i: statistics.median(r[i] for r in runs) * 1e3  # noqa: E731
    ww, nw, wc, nc = med(w_runs, 0), med(n_runs, 0), med(w_runs, 1), med(n_runs, 1)
    print(f"{n:>7} {case:<7} {ww:>11.1f} {nw:>11.1f} {ww / nw:>5.2f}x {wc:>10.1f} {nc:>10.1f} {wc / nc:>5.2f}x        {note}")
    rows.append({"models": n, "case": case, "winml_wall_ms": ww, "ninja_wall_ms": nw, "winml_cpu_ms": wc,
                 "ninja_cpu_ms": nc})


def touch_sources(d):
    now = time.time()
    models = os.path.join(d, "models")
    for f in os.listdir(models):
        os.utime(os.path.join(models, f), (now, now))


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--winml-make", default=os.path.join(here, "..", "..", "build", "winml-make"))
    ap.add_argument("--sizes", default="1,100,1000")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--min-seconds", type=float, default=1.0,
                    help="no-op runs go on past --runs until winml-make's add up to this: a median of 11 "
                         "two-millisecond runs moves by 5-8 %% from one sitting to the next")
    ap.add_argument("--no-touch", action="store_true", help="time the no-op only (ninja's touch case takes minutes)")
    ap.add_argument("--compile-backend", choices=["ref", "ort"], default="ref",
                    help="compile with winml-make's ref backend, or through ONNX Runtime with the ref plugin EP")
    args = ap.parse_args()
    wmake = os.path.abspath(args.winml_make)
    ninja = shutil.which("ninja")
    if not ninja:
        raise SystemExit("ninja not found (apt install ninja-build)")
    print(f"winml-make: {wmake}\nninja:      {ninja} {subprocess.run([ninja, '--version'], capture_output=True, text=True).stdout.strip()}")
    print(f"runs: at least {args.runs} and {args.min_seconds:g} s of winml-make no-ops (median); each model = 6 stages (5 in a chain, analyze beside them) and its two reports "
          f"(one ninja edge); winml-make -j1 like ninja -j1, cache off; compile backend: {args.compile_backend}")
    print("wall = elapsed time; cpu = user + system time of the process (steadier on a busy machine)\n")
    header = (f"{'models':>7} {'case':<7} {'winml wall':>11} {'ninja wall':>11} {'ratio':>6} "
              f"{'winml cpu':>10} {'ninja cpu':>10} {'ratio':>6}  (ms)  notes")
    print(header)
    print("-" * len(header))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(s) for s in args.sizes.split(",")]:
            root = os.path.join(tmp, f"n{n}")
            wm, nj = make_projects(root, n, args.compile_backend)
            env = dict(os.environ, WINML_MAKE_CACHE_DIR=os.path.join(root, "cache"))
            wcmd = [wmake, "-j1", "--no-cache"]
            ncmd = [ninja, "-j1"]
            timed(wcmd, wm, env)
            timed(ncmd, nj, env)
            # Warm-up: winml-make re-hashes outputs written less than the racy
            # window before they were recorded (once), ninja loads its logs.
            for _ in range(2):
                timed(wcmd, wm, env)
                timed(ncmd, nj, env)
            w_noop, n_noop = [], []
            while len(w_noop) < args.runs or sum(w for w, _ in w_noop) < args.min_seconds:
                w_noop.append(timed(wcmd, wm, env)[:2])
                n_noop.append(timed(ncmd, nj, env)[:2])
            report(rows, n, "no-op", w_noop, n_noop, f"{len(w_noop)} runs each")

            if args.no_touch:
                continue
            w_touch, n_touch, reran = [], [], 0
            for _ in range(max(3, args.runs // 3)):
                touch_sources(wm)
                t, c, out = timed(wcmd + ["--json"], wm, env)
                w_touch.append((t, c))
                summary = json.loads(out)["summary"]
                reran += summary.get("completed", 0) + summary.get("cached", 0)
                touch_sources(nj)
                n_touch.append(timed(ncmd, nj, env)[:2])
            note = f"winml-make reran {reran} stages; ninja reran {7 * n} edges each time"
            report(rows, n, "touch", w_touch, n_touch, note)
    print("\n" + json.dumps(rows))


if __name__ == "__main__":
    main()
