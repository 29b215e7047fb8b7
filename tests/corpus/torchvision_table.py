#!/usr/bin/env python3
"""The torchvision sweep's table (tests/corpus/torchvision.sh): one row per
model of the project it built, with the columns of the CI corpus check.

- stages completed, and the failed stage's reason;
- float difference: ONNX Runtime on the source and on our optimized.onnx, the
  same seeded input, max |a - b| over the output's span (max - min);
- nodes: the source, ours, and ONNX Runtime's basic level (its optimized
  model, saved);
- SQNR of each output from the quantize report;
- compiled: our model.onnx run by winml-make's runtime against ONNX Runtime on
  the quantized.onnx it was compiled from, the same input, max |a - b| over
  the span; beside it, how far ONNX Runtime's own integer kernels (level
  "all") move it from the same model (a value on a rounding boundary goes to
  the neighbouring quantum either way, and depth compounds it);
- seconds: every stage of the model.

usage: torchvision_table.py WORK_DIR BUILD_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_RUN = os.path.join(HERE, "..", "ort", "ort_run.js")


def nodes(path):
    try:
        g = onnx.load(path, load_external_data=False).graph
    except Exception:
        return None

    def count(g):
        return sum(1 + sum(count(a.g) for a in n.attribute if a.HasField("g")) for n in g.node)
    return count(g)


def run_ort(build, model, inputs_dir, out_dir, opt_level="disabled", optimized=None):
    cmd = ["node", ORT_RUN, "--model", model, "--inputs", inputs_dir, "--outputs", out_dir,
           "--opt-level", opt_level, "--threads", "2"]
    if optimized:
        cmd += ["--optimized-model", optimized]
    env = dict(os.environ, NODE_PATH=os.path.join(build, "ort-node", "node_modules"))
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "ORT failed")
    return {f[:-4]: np.load(os.path.join(out_dir, f)) for f in os.listdir(out_dir) if f.endswith(".npy")}


def float_difference(a, b):
    """Worst max |a - b| / span(a) over the outputs; None when every output is empty."""
    worst = None
    for name, x in a.items():
        y = b.get(name)
        if y is None or x.shape != y.shape:
            return float("inf")
        if x.size == 0 or not np.issubdtype(x.dtype, np.number):
            continue
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        span = float(x64.max() - x64.min()) or 1.0
        d = float(np.max(np.abs(x64 - y64))) / span
        worst = d if worst is None else max(worst, d)
    return worst


def run_ours(build, model, inputs_dir, out_dir):
    cmd = [os.path.join(build, "winml-make"), "run", "-m", model, "--threads", "2", "--output-dir", out_dir]
    for f in sorted(os.listdir(inputs_dir)):
        cmd += ["--input", f"{f[:-4]}={os.path.join(inputs_dir, f)}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "winml-make run failed")
    return {f[:-4]: np.load(os.path.join(out_dir, f)) for f in os.listdir(out_dir) if f.endswith(".npy")}


def sqnr_text(stage):
    parts = []
    for a in (stage or {}).get("metrics", {}).get("accuracy", []):
        if a.get("identical"):
            parts.append("identical")
        elif a.get("empty"):
            parts.append("empty")
        elif a.get("shape_changed_samples"):
            parts.append("shape changed")
        elif isinstance(a.get("sqnr_db"), (int, float)):
            parts.append(f'{a["sqnr_db"]:.1f} dB')
    return ", ".join(parts) or "-"


def compare_in_ort(build, name, source, optimized, spec, scratch):
    inputs = os.path.join(scratch, "in")
    os.makedirs(inputs, exist_ok=True)
    rng = np.random.default_rng(0)
    for input_name, s in spec["inputs"].items():
        lo, hi = s.get("range", [0, 1])
        np.save(os.path.join(inputs, input_name + ".npy"),
                rng.uniform(lo, hi, size=s["shape"]).astype(np.float32))
    outs = [os.path.join(scratch, d) for d in ("src", "opt", "basic", "quantized", "compiled", "fused")]
    for d in outs:
        os.makedirs(d, exist_ok=True)
    basic_model = os.path.join(scratch, "ort_basic.onnx")
    a = run_ort(build, source, inputs, outs[0])
    b = run_ort(build, optimized, inputs, outs[1])
    run_ort(build, source, inputs, outs[2], "basic", basic_model)
    built = os.path.dirname(optimized)
    q = run_ort(build, os.path.join(built, "quantized.onnx"), inputs, outs[3])
    c = run_ours(build, os.path.join(built, "model.onnx"), inputs, outs[4])
    try:
        fused = float_difference(q, run_ort(build, os.path.join(built, "quantized.onnx"), inputs, outs[5], "all"))
    except RuntimeError:  # level "all" cannot always run what it made (If bodies of a detector)
        fused = None
    return float_difference(a, b), nodes(basic_model), float_difference(q, c), fused


def main():
    work, build = sys.argv[1], os.path.abspath(sys.argv[2])
    report = json.load(open(f"{work}/project/report.json"))
    print("| model | opset | stages | float difference vs ORT | nodes source / ours / ORT basic | SQNR | "
          "compiled vs ORT on quantized (ORT level all vs ORT) | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for m in report["models"]:
        n = m["name"]
        st = m["stages"]
        done = sum(s["status"] in ("completed", "cached", "up-to-date") for s in st)
        failed = "; ".join(f'{s["name"]}: {s.get("reason", "")[:80]}' for s in st if s["status"] == "failed")
        secs = sum(s.get("elapsed_seconds", 0) or 0 for s in st)
        spec = json.load(open(f"{work}/models/{n}.json"))
        source, optimized = f"{work}/models/{n}.onnx", f"{work}/project/build/{n}/optimized.onnx"
        try:
            with tempfile.TemporaryDirectory() as scratch:
                diff, basic, compiled, fused = compare_in_ort(build, n, source, optimized, spec, scratch)
            diff_text = "-" if diff is None else f"{diff:.1e}"
            compiled_text = ("-" if compiled is None else f"{compiled:.1e}") + \
                (f" (ORT's own: {fused:.1e})" if fused is not None else "")
        except Exception as e:  # the runtime's own message, on one line
            diff_text, basic, compiled_text = f"error: {str(e)[:60]}", None, "-"
        quantize = next((s for s in st if s["name"] == "quantize"), None)
        stages = f"{done}/{len(st)}" + (f" ({failed})" if failed else "")
        print(f'| {n} | {spec["opset"]} | {stages} | {diff_text} | '
              f'{nodes(source)} / {nodes(optimized)} / {basic if basic is not None else "-"} | '
              f'{sqnr_text(quantize)} | {compiled_text} | {secs:.1f} |', flush=True)


if __name__ == "__main__":
    main()
