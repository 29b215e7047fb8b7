#!/usr/bin/env python3
"""Clean builds with persistent workers vs a new worker per stage, side by side.

The same winml-make binary, interleaved runs of `winml-make --rebuild
--no-cache` with the default (a build thread reuses its worker process) and
with WINML_MAKE_WORKER_REUSE=0 (every stage starts winml-make again, as
ninja starts every action): the quickstart CNN (six stages, calibration on
two samples), and 20 small MatMul models built with -j 2. Prints each
median and the reuse/new-process ratio. Run with Debian's python3 (it uses
python3-onnx and numpy).

usage: worker_reuse.py [--winml-make BIN] [--runs 9]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np

from noop_vs_ninja import write_model  # a MatMul model with distinct weights per seed

HERE = os.path.dirname(os.path.abspath(__file__))


def cnn_project(root):
    d = os.path.join(root, "cnn")
    os.makedirs(os.path.join(d, "calibration"))
    shutil.copy(os.path.join(HERE, "../../examples/quickstart/model.onnx"), d)
    for i in range(2):
        os.makedirs(os.path.join(d, "calibration", f"s{i}"))
        np.save(os.path.join(d, "calibration", f"s{i}", "image.npy"),
                np.random.RandomState(i).rand(1, 3, 64, 64).astype(np.float32))
    with open(os.path.join(d, "winml.toml"), "w") as f:
        f.write('[model]\nname = "net"\nsource = "model.onnx"\n[quantize]\nsamples = 2\n'
                '[compile]\nep = "ref"\n[build]\nauto = false\n')
    return d, []


def many_project(root, n=20):
    d = os.path.join(root, "many")
    os.makedirs(os.path.join(d, "models"))
    with open(os.path.join(d, "winml.toml"), "w") as f:
        f.write('[compile]\nep = "ref"\n[quantize]\nsamples = 1\n')
        for i in range(n):
            write_model(os.path.join(d, "models", f"m{i}.onnx"), i)
            f.write(f'\n[[model]]\nname = "m{i}"\nsource = "models/m{i}.onnx"\n')
    return d, ["-j", "2"]


def time_build(binary, project, args, reuse):
    env = dict(os.environ)
    env["WINML_MAKE_WORKER_REUSE"] = "1" if reuse else "0"
    start = time.perf_counter()
    subprocess.run([binary, "--rebuild", "--no-cache", *args], cwd=project, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--winml-make", default=os.path.join(HERE, "../../build/winml-make"))
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    binary = os.path.abspath(a.winml_make)
    with tempfile.TemporaryDirectory() as root:
        print(f"{'clean build':34} {'reuse':>9} {'new each':>9} {'ratio':>7}")
        for name, make in (("quickstart CNN (6 stages)", cnn_project), ("20 MatMul models, -j 2", many_project)):
            project, args = make(root)
            time_build(binary, project, args, True)  # warm the page cache
            times = {True: [], False: []}
            for _ in range(a.runs):
                for reuse in (True, False):
                    times[reuse].append(time_build(binary, project, args, reuse))
            on, off = statistics.median(times[True]), statistics.median(times[False])
            print(f"{name:34} {on * 1000:7.0f}ms {off * 1000:7.0f}ms {on / off:6.2f}x")


if __name__ == "__main__":
    main()
