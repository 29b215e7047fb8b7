#!/usr/bin/python3
"""What rounding the weights alone costs an exported test model, in PyTorch:
the model as tests/fixtures/export_models.py builds it (random weights,
settled), BatchNorm folded into the convolutions as the exporter folds it,
each Conv and Linear weight rounded to 8 bits per output channel
(symmetric), activations in float; SQNR of the output over 3 Normal(0, 1)
inputs (seed 2024), as tests/quant/real_models_test.cpp measures
winml-make's quantized models. A floor no 8-bit-weight quantizer should be
far below, from an implementation independent of winml-make's.

usage: /usr/bin/python3 benchmarks/quantize/weights_only_reference.py MODEL...   (torchvision names)
"""
import copy
import math
import os
import sys
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures"))

import torch  # noqa: E402
import torch.fx.experimental.optimization as fx_optimization  # noqa: E402
import torchvision  # noqa: E402

from varied_outputs import settle_random_weights  # noqa: E402


def weights_only_sqnr(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    example = (torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1)),)
    settle_random_weights(model, example, draw=torch.randn)
    folded = fx_optimization.fuse(model)
    rounded = copy.deepcopy(folded)
    with torch.no_grad():
        for module in rounded.modules():
            if isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)):
                w = module.weight
                scale = w.abs().amax(dim=tuple(range(1, w.dim())), keepdim=True) / 127
                w.copy_(torch.round(w / scale) * scale)
    generator = torch.Generator().manual_seed(2024)
    signal = noise = 0.0
    with torch.no_grad():
        for _ in range(3):
            x = torch.randn(1, 3, 224, 224, generator=generator)
            a, b = folded(x).double(), rounded(x).double()
            signal += (a ** 2).sum().item()
            noise += ((a - b) ** 2).sum().item()
    return 10 * math.log10(signal / noise)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: 8-bit per-channel weights only, in PyTorch: SQNR {weights_only_sqnr(name):.2f} dB", flush=True)
