#!/usr/bin/env python3
"""int4 RTN accuracy of a winml-make model against an independent NumPy RTN.

ONNX Runtime (onnxruntime-node) runs the float decoder, winml-make's
quantized model and the float model whose MatMul weights
tests/fixtures/rtn_reference.py rounded (the same RTN, in NumPy), on the same
64 random tokens; prints each quantized model's logits SQNR against the float
model and their difference.

usage: rtn_accuracy.py BUILD_DIR FLOAT.onnx QUANTIZED.onnx WORK_DIR [--bits 4] [--block-size 32]
"""
import argparse
import json
import os
import subprocess

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..")


def run_ort(build, model, inputs, outputs):
    env = dict(os.environ, NODE_PATH=os.path.join(build, "ort-node", "node_modules"))
    subprocess.run(["node", os.path.join(root, "tests", "ort", "ort_run.js"), "--model", model, "--inputs", inputs,
                    "--outputs", outputs, "--threads", "2", "--json"], check=True, env=env, stdout=subprocess.DEVNULL)
    return np.load(os.path.join(outputs, "logits.npy")).astype(np.float64)


def sqnr(reference, candidate):
    return 10 * np.log10(np.sum(reference ** 2) / np.sum((reference - candidate) ** 2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("float_model")
    ap.add_argument("quantized")
    ap.add_argument("work")
    ap.add_argument("--bits", type=int, default=4)
    ap.add_argument("--block-size", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=64)
    args = ap.parse_args()
    inputs = os.path.join(args.work, "accuracy_inputs")
    os.makedirs(inputs, exist_ok=True)
    ids = np.random.default_rng(2024).integers(0, 32000, size=(1, args.tokens), dtype=np.int64)
    np.save(os.path.join(inputs, "input_ids.npy"), ids)
    reference = os.path.join(args.work, "rtn_reference.onnx")
    subprocess.run(["/usr/bin/python3", os.path.join(root, "tests", "fixtures", "rtn_reference.py"), args.float_model,
                    reference, "--bits", str(args.bits), "--block-size", str(args.block_size)], check=True,
                   stdout=subprocess.DEVNULL)
    floats = run_ort(args.build, args.float_model, inputs, os.path.join(args.work, "out_float"))
    ours = run_ort(args.build, args.quantized, inputs, os.path.join(args.work, "out_ours"))
    numpy_rtn = run_ort(args.build, reference, inputs, os.path.join(args.work, "out_numpy"))
    a, b = sqnr(floats, ours), sqnr(floats, numpy_rtn)
    print(json.dumps({"tokens": args.tokens, "winml_make_int4_sqnr_db": round(a, 3),
                      "numpy_rtn_sqnr_db": round(b, 3), "difference_db": round(a - b, 3),
                      "ours_vs_numpy_sqnr_db": round(sqnr(numpy_rtn, ours), 2)}))
    os.remove(reference + ".data")


if __name__ == "__main__":
    main()
