#!/usr/bin/env python3
"""winml-make's built-in export recipe: a torchvision model to ONNX.

Run by `[export] torchvision = "<name>"` with Debian's python3-torch and
python3-torchvision. Weights are random (torch.manual_seed(0)) unless
--weights gives a state_dict file, or --weights-enum names torchvision's
pretrained weights for the model (a member of its weights enum, e.g.
IMAGENET1K_V1), loaded from --checkpoint, the file torchvision keeps in
$TORCH_HOME/hub/checkpoints/ (never downloaded here). Random weights are
settled so that the outputs vary with the input (settle_random_weights); they
are for trying the pipeline, not for accuracy. Exit codes: 0 ok, 2 bad
arguments, 3 missing Python packages.
"""
import argparse
import json
import os
import sys


def random_batch(example, generator, batch=2, draw=None):
    """Arguments shaped as `example` with `batch` items (a tensor's first
    dimension, a list's length: a detector takes a list of images), floats
    drawn anew by `draw` (torch.rand: uniform in [0, 1), as the recipe's
    example). Two items, as BatchNorm in train mode needs more than one value
    per channel."""
    import torch
    draw = draw or torch.rand

    def fresh(t, shape):
        return draw(shape, generator=generator).to(t.dtype) if t.is_floating_point() else t

    out = []
    for arg in example:
        if isinstance(arg, (list, tuple)):
            out.append(type(arg)(fresh(arg[0], arg[0].shape) for _ in range(batch)))
        elif isinstance(arg, torch.Tensor) and arg.dim() >= 1:
            out.append(fresh(arg, (batch,) + tuple(arg.shape[1:])))
        else:
            out.append(arg)
    return out


def settle_random_weights(model, example, passes=2, draw=None):
    """Gives a randomly initialized network what a trained one has, so that
    its outputs depend on its input: a weight torchvision leaves at zero (ViT's
    classification head) drawn from normal(0, 0.02), and BatchNorm statistics
    measured on `passes` random batches of two inputs shaped as `example` (the defaults, mean
    0 and variance 1, collapse deep random networks to one output for every
    input), with inputs drawn as the model will be fed (`draw`, see
    random_batch). Leaves the model in eval mode."""
    import torch
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for module in model.modules():
            for weight in module.parameters(recurse=False):
                if weight.dim() >= 2 and not weight.any():
                    weight.copy_(torch.randn(weight.shape, generator=generator) * 0.02)
    model.eval()
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a plain average over the passes
        norm.train()
    if norms:
        with torch.no_grad():
            for _ in range(passes):
                model(*random_batch(example, generator, draw=draw))
    model.eval()
    return model


def pretrained_model(torchvision, builder, args):
    """The model built with its pretrained weights args.weights_enum, which
    torchvision loads from its cache: torch.hub's folder set so that the file
    it reads is args.checkpoint. None (after a message) when torchvision has no
    such weights or the file is not the one they load."""
    enum = torchvision.models.get_model_weights(builder)
    weights = enum.__members__.get(args.weights_enum)
    if weights is None:
        sys.stderr.write(f"winml-make export: torchvision's {args.model} has no pretrained weights "
                         f"'{args.weights_enum}'. Known: {', '.join(e.name for e in enum)}\n")
        return None
    if os.path.basename(weights.url) != os.path.basename(args.checkpoint):
        sys.stderr.write(f"winml-make export: {args.model}'s {weights.name} load {os.path.basename(weights.url)}, "
                         f"not {args.checkpoint}\n")
        return None
    if not os.path.isfile(args.checkpoint):
        sys.stderr.write(f"winml-make export: {args.checkpoint}: no such file (download {weights.url})\n")
        return None
    import torch.hub
    torch.hub.set_dir(os.path.dirname(os.path.dirname(os.path.abspath(args.checkpoint))))
    return builder(weights=weights, progress=False)


def parse_input(spec):
    # NAME:DTYPE:D0,D1,...  (dims are integers)
    try:
        name, dtype, dims = spec.split(":")
        return name, dtype, [int(d) for d in dims.split(",") if d]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad --input '{spec}', expected NAME:DTYPE:D0,D1,...")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--weights", default="")
    p.add_argument("--weights-enum", default="")
    p.add_argument("--checkpoint", default="")
    p.add_argument("--input", action="append", type=parse_input, default=[])
    p.add_argument("--dynamic-axes", default="{}")
    args = p.parse_args()

    try:
        import torch
        import torchvision
    except ImportError as e:
        sys.stderr.write(f"winml-make export: {e}. The torchvision recipe needs Debian's python3-torch and "
                         "python3-torchvision: apt install python3-torch python3-torchvision\n")
        return 3

    builder = getattr(torchvision.models, args.model, None)
    if builder is None or not callable(builder) or args.model.startswith("_"):
        names = sorted(n for n in torchvision.models.list_models()) if hasattr(torchvision.models, "list_models") \
            else sorted(n for n in dir(torchvision.models) if n.islower() and not n.startswith("_"))
        sys.stderr.write(f"winml-make export: torchvision has no model '{args.model}'. Known: {', '.join(names)}\n")
        return 2

    torch.manual_seed(0)
    if args.weights_enum:
        model = pretrained_model(torchvision, builder, args)
        if model is None:
            return 2
    else:
        model = builder(weights=None)
    if args.weights:
        state = torch.load(args.weights, map_location="cpu")
        model.load_state_dict(state.get("state_dict", state) if isinstance(state, dict) else state)
    model.eval()

    dtypes = {"float32": torch.float32, "float16": torch.float16, "int64": torch.int64, "int32": torch.int32}
    if args.input:
        names = [n for n, _, _ in args.input]
        example = []
        gen = torch.Generator().manual_seed(1)
        for _, dtype, dims in args.input:
            if dtype not in dtypes:
                sys.stderr.write(f"winml-make export: unsupported input dtype {dtype}\n")
                return 2
            t = torch.rand(dims, generator=gen) if dtype.startswith("float") else torch.zeros(dims)
            example.append(t.to(dtypes[dtype]))
    else:
        size = 299 if args.model.startswith("inception") else 224
        names = ["input"]
        example = [torch.rand(args.batch_size, 3, size, size, generator=torch.Generator().manual_seed(1))]

    if not args.weights and not args.weights_enum:
        settle_random_weights(model, tuple(example))
    dynamic = {name: {int(axis): dim for axis, dim in axes.items()}
               for name, axes in json.loads(args.dynamic_axes).items()}
    torch.onnx.export(model, tuple(example), args.out, opset_version=args.opset, input_names=names,
                      output_names=["output"], dynamic_axes=dynamic or None, do_constant_folding=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
