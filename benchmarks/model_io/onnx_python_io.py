"""The peer: Python onnx's load + save with external data (onnx 1.12, Debian)."""
import sys
import time

import onnx

t0 = time.monotonic()
m = onnx.load(sys.argv[1])
onnx.save_model(m, sys.argv[2], save_as_external_data=True, all_tensors_to_one_file=True,
                location=sys.argv[2].rsplit("/", 1)[-1] + ".data", size_threshold=1024)
print(f"{time.monotonic() - t0:.3f}")
