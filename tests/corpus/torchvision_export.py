#!/usr/bin/python3
"""Exports the torchvision corpus: torchvision architectures with random
weights (torch.manual_seed(0) before each model, settled so that outputs
vary with the input: tests/fixtures/varied_outputs.py), small inputs, through
Debian's python3-torch / python3-torchvision, offline. One model per line of
MODELS: name, constructor, input shape, opset, kind.

usage: /usr/bin/python3 tests/corpus/torchvision_export.py OUT_DIR [--keep] [--list FILE.json] [NAME...]
Writes OUT_DIR/<name>.onnx and OUT_DIR/<name>.json (input shape, opset, kind,
and the digest of this script and PyTorch's version); prints one line per model: name, ok or the
exporter's error. --list takes the names from a JSON list of {"name": ...}
(tests/corpus/torchvision_ci.json); --keep leaves a model this very script
exported as it is.
"""
import json
import os
import sys
import time

import torch
import torchvision
from torchvision import models as m

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from varied_outputs import RECIPE, check_outputs_vary, exclusive_folder, exporter_digest, settle_random_weights  # noqa: E402,E501

# name, constructor, input shape, opset, kind
MODELS = [
    ("resnet18", lambda: m.resnet18(), [1, 3, 64, 64], 17, "classification: residual"),
    ("mobilenet_v2", lambda: m.mobilenet_v2(), [1, 3, 64, 64], 13, "classification: inverted residual"),
    ("mobilenet_v3_small", lambda: m.mobilenet_v3_small(), [1, 3, 64, 64], 17, "classification: squeeze-excite, hardswish"),
    ("efficientnet_b0", lambda: m.efficientnet_b0(), [1, 3, 64, 64], 17, "classification: squeeze-excite, SiLU"),
    ("regnet_y_400mf", lambda: m.regnet_y_400mf(), [1, 3, 64, 64], 14, "classification: grouped conv, SE"),
    ("shufflenet_v2_x0_5", lambda: m.shufflenet_v2_x0_5(), [1, 3, 64, 64], 12, "classification: channel shuffle"),
    ("squeezenet1_1", lambda: m.squeezenet1_1(), [1, 3, 64, 64], 11, "classification: fire modules"),
    ("mnasnet0_5", lambda: m.mnasnet0_5(), [1, 3, 64, 64], 13, "classification: NAS"),
    ("densenet121", lambda: m.densenet121(), [1, 3, 64, 64], 15, "classification: dense concat"),
    ("googlenet", lambda: m.googlenet(aux_logits=False, init_weights=True), [1, 3, 64, 64], 13, "classification: inception"),
    ("inception_v3", lambda: m.inception_v3(aux_logits=False, init_weights=True), [1, 3, 96, 96], 13,
     "classification: inception v3, factorized convs"),
    ("convnext_tiny", lambda: m.convnext_tiny(), [1, 3, 64, 64], 17, "classification: LayerNorm, depthwise 7x7"),
    ("swin_t", lambda: m.swin_t(), [1, 3, 64, 64], 17, "classification: window attention, roll"),
    ("vit_b_16", lambda: m.vit_b_16(image_size=64), [1, 3, 64, 64], 17, "classification: attention"),
    ("maxvit_t", lambda: m.maxvit_t(), [1, 3, 224, 224], 17, "classification: block/grid attention"),
    ("fasterrcnn_mobilenet_v3_large_320_fpn",
     lambda: m.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, num_classes=91,
                                                                min_size=128, max_size=128),
     [1, 3, 128, 128], 11, "detection: Loop/If, NonMaxSuppression, RoiAlign, TopK"),
    ("retinanet_resnet50_fpn",
     lambda: m.detection.retinanet_resnet50_fpn(weights=None, weights_backbone=None, min_size=128, max_size=128),
     [1, 3, 128, 128], 11, "detection: anchors, NonMaxSuppression"),
    ("ssdlite320_mobilenet_v3_large",
     lambda: m.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None),
     [1, 3, 320, 320], 11, "detection: SSDlite"),
    ("maskrcnn_resnet50_fpn",
     lambda: m.detection.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None, min_size=128, max_size=128),
     [1, 3, 128, 128], 11, "detection: masks, RoiAlign, Loop/If"),
    ("keypointrcnn_resnet50_fpn",
     lambda: m.detection.keypointrcnn_resnet50_fpn(weights=None, weights_backbone=None, min_size=128, max_size=128),
     [1, 3, 128, 128], 11, "detection: keypoints"),
    ("fcos_resnet50_fpn",
     lambda: m.detection.fcos_resnet50_fpn(weights=None, weights_backbone=None, min_size=128, max_size=128),
     [1, 3, 128, 128], 11, "detection: FCOS, anchor-free"),
    ("ssd300_vgg16", lambda: m.detection.ssd300_vgg16(weights=None, weights_backbone=None),
     [1, 3, 300, 300], 11, "detection: SSD, VGG"),
    ("fcn_resnet50", lambda: m.segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False),
     [1, 3, 64, 64], 13, "segmentation: FCN"),
    ("deeplabv3_mobilenet_v3_large",
     lambda: m.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False),
     [1, 3, 64, 64], 13, "segmentation: DeepLabV3, ASPP"),
    ("lraspp_mobilenet_v3_large",
     lambda: m.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), [1, 3, 64, 64], 13,
     "segmentation: LR-ASPP"),
    ("r3d_18", lambda: m.video.r3d_18(), [1, 3, 4, 32, 32], 13, "video: 3D conv"),
    ("r2plus1d_18", lambda: m.video.r2plus1d_18(), [1, 3, 4, 32, 32], 13, "video: (2+1)D conv"),
    ("mc3_18", lambda: m.video.mc3_18(), [1, 3, 4, 32, 32], 13, "video: mixed 3D/2D conv"),
    # Its last pooling (2x7x7) needs 16 frames of 224x224.
    ("s3d", lambda: m.video.s3d(), [1, 3, 16, 224, 224], 13, "video: separable 3D conv"),
    # Two images in (a frame pair), flow out.
    ("raft_small", lambda: m.optical_flow.raft_small(weights=None), [1, 3, 128, 128], 16,
     "optical flow: correlation volume, GridSample, 12 updates"),
]


EXPORTER = exporter_digest(
    __file__, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "varied_outputs.py"), RECIPE)


def exported_by_this_script(name, out_dir):
    try:
        with open(os.path.join(out_dir, name + ".json")) as f:
            spec = json.load(f)
    except (OSError, ValueError):
        return False
    return spec.get("exporter") == EXPORTER and os.path.exists(os.path.join(out_dir, name + ".onnx"))


class NotInThisTorchvision(Exception):
    pass


def export(name, make, shape, opset, kind, out_dir):
    torch.manual_seed(0)
    try:
        model = make().eval()
    except AttributeError as e:  # the constructor's module lacks it
        raise NotInThisTorchvision(str(e))
    x = torch.rand(*shape, generator=torch.Generator().manual_seed(1))
    path = os.path.join(out_dir, name + ".onnx")
    detection = kind.startswith("detection")
    pair = kind.startswith("optical flow")
    names = ["input", "input2"] if pair else ["input"]
    args = ([x[0]],) if detection else (x, torch.roll(x, 3, dims=3)) if pair else (x,)
    settle_random_weights(model, args)
    # A random detector's scores (about 1/classes) stay below its score
    # threshold: it finds nothing in any image, and says so in the same
    # outputs, empty. (With a threshold of 0 its hundred tied scores make the
    # order of detections a matter of rounding, in any two runtimes.)
    check_outputs_vary(model, args, allow_empty=detection)
    # Not under torch.no_grad(): there nn.MultiheadAttention takes its fused
    # fast path (aten::_native_multi_head_attention), which has no ONNX export.
    # Through a rename: a test reading the cache never sees half a model.
    torch.onnx.export(model, args, path + ".tmp", opset_version=opset, input_names=names, do_constant_folding=True)
    os.replace(path + ".tmp", path)
    # Detection models take a list of images: their one input is the image itself.
    spec = {"name": name, "kind": kind, "opset": opset, "exporter": EXPORTER,
            "inputs": {n: {"shape": shape[1:] if detection else shape, "range": [0, 1]} for n in names}}
    # The spec last (through a rename): its digest says the model beside it is whole.
    tmp = os.path.join(out_dir, name + ".json.tmp")
    with open(tmp, "w") as f:
        json.dump(spec, f)
    os.replace(tmp, os.path.join(out_dir, name + ".json"))


def main():
    out_dir, args = sys.argv[1], sys.argv[2:]
    keep = "--keep" in args
    args = [a for a in args if a != "--keep"]
    if "--list" in args:
        i = args.index("--list")
        with open(args[i + 1]) as f:
            args = args[:i] + [entry["name"] for entry in json.load(f)] + args[i + 2:]
    wanted = set(args)
    with exclusive_folder(out_dir):
        return export_all(out_dir, wanted, keep)


def export_all(out_dir, wanted, keep):
    failed = 0
    for name, make, shape, opset, kind in MODELS:
        if wanted and name not in wanted:
            continue
        if keep and exported_by_this_script(name, out_dir):
            print(f"{name}: kept")
            continue
        start = time.time()
        try:
            export(name, make, shape, opset, kind, out_dir)
            print(f"{name}: ok ({time.time() - start:.1f} s)", flush=True)
        except NotInThisTorchvision as e:
            print(f"{name}: not in torchvision {torchvision.__version__} ({e})", flush=True)
        except Exception as e:  # the exporter's error, on one line
            failed += 1
            print(f"{name}: export failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
