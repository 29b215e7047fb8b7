#!/usr/bin/env python3
"""ONNX Runtime with the `ref` plugin EP (libwinml_ref_ep.so): compile time
per model through ORT's compile API (blobs embedded and in a .bin sidecar),
and time to a ready session for the compiled models against the uncompiled
one -- through the plugin (which then plans the model at load) and on ORT's
CPU EP alone. Sessions are created in one process per ORT library,
interleaved so drift on a shared machine hits every variant alike; medians
and the ratios uncompiled / compiled are printed, of wall time, then of the
process's CPU time (which other processes on a shared machine do not
inflate).

usage: ort_sessions.py HARNESS PLUGIN ORT_LIB REPS MODEL.onnx...
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def harness(binary, ort, plugin, actions):
    argv = [binary, "--ort", ort] + (["--plugin", plugin] if plugin else []) + actions
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    return lines[0]["ort_version"], lines[1:]


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    binary, plugin, ort, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    models = sys.argv[5:]
    work = tempfile.mkdtemp(prefix="ort_sessions.")
    print(f"ONNX Runtime + {os.path.basename(plugin)}: compile time, and time to a ready session "
          f"(median of {reps} interleaved sessions, ms)")
    header = ("model", "compile .bin", "compile embed", "uncompiled+ep", "uncompiled cpu", ".bin", "embed",
              "ratio .bin", "ratio embed")
    print("%-16s" % header[0] + "".join("%15s" % h for h in header[1:]))
    cpu_rows = []
    for source in models:
        name = os.path.splitext(os.path.basename(source))[0]
        bin_model = os.path.join(work, name, "bin", "compiled.onnx")
        embed_model = os.path.join(work, name, "embed", "compiled.onnx")
        os.makedirs(os.path.dirname(bin_model))
        os.makedirs(os.path.dirname(embed_model))
        version, compiled = harness(binary, ort, plugin, ["--embed", "0", "--compile", source, bin_model,
                                                          "--embed", "1", "--compile", source, embed_model])
        compile_bin, compile_embed = compiled[0]["ms"], compiled[1]["ms"]
        # One warm-up each (page cache), then rounds of one session per variant.
        variants = [source, bin_model, embed_model]
        actions = []
        for _ in range(reps + 1):
            for v in variants:
                actions += ["--time", v, "1"]
        _, timed = harness(binary, ort, plugin, actions)
        ms = {v: [] for v in variants}
        cpu_of = {v: [] for v in variants}
        for i, r in enumerate(timed[len(variants):]):
            ms[variants[i % len(variants)]] += r["session_ms"]
            cpu_of[variants[i % len(variants)]] += r["session_cpu_ms"]
        _, cpu = harness(binary, ort, None, ["--time", source, str(reps + 1)])
        cpu_ms = statistics.median(cpu[0]["session_ms"][1:])
        u, b, e = (statistics.median(ms[v]) for v in variants)
        print("%-16s" % name + "%15.1f%15.1f%15.1f%15.1f%15.2f%15.2f%14.1fx%14.1fx" %
              (compile_bin, compile_embed, u, cpu_ms, b, e, u / b, u / e))
        uc, bc, ec = (statistics.median(cpu_of[v]) for v in variants)
        cpu_only = statistics.median(cpu[0]["session_cpu_ms"][1:])
        cpu_rows.append("%-16s" % name + "%15s%15s%15.1f%15.1f%15.2f%15.2f%14.1fx%14.1fx" %
                        ("", "", uc, cpu_only, bc, ec, uc / bc, uc / ec))
        sys.stdout.flush()
    print("process CPU time per session (ms, medians):")
    print("\n".join(cpu_rows))
    print(f"(ONNX Runtime {version})")
    subprocess.run(["rm", "-rf", work], check=False)


if __name__ == "__main__":
    main()
