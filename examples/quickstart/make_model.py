#!/usr/bin/env python3
"""Produces quickstart's model.onnx: a small image classifier (random weights,
seed 0) exported with Debian's python3-torch. Committed output; rerun to
regenerate: /usr/bin/python3 make_model.py"""
import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()

        def block(cin, cout, stride):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

        self.features = nn.Sequential(block(3, 16, 2), block(16, 32, 2), block(32, 64, 2), block(64, 64, 1))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.GELU(), nn.Linear(128, classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.mean(x, dim=(2, 3), keepdim=True)
        return self.head(x)


def main():
    torch.manual_seed(0)
    model = TinyNet().eval()
    # Non-trivial BatchNorm statistics, as a trained network would have.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    x = torch.rand(1, 3, 64, 64)
    torch.onnx.export(model, (x,), "model.onnx", opset_version=17, input_names=["image"],
                      output_names=["logits"], do_constant_folding=False,
                      # PRESERVE keeps BatchNormalization nodes (EVAL would fold them into
                      # Conv), leaving that to winml-make's optimizer.
                      training=torch.onnx.TrainingMode.PRESERVE)


if __name__ == "__main__":
    main()
