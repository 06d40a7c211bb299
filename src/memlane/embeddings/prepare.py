"""Preparing a BERT-style ONNX graph for this CPU once: int8 matrix products with the NaN guards removed.

The bundled graph stores its weights as int8 but multiplies in fp32 (each weight is cast and
scaled at load), and its attention runs ``Where(IsNaN(softmax), 0, softmax)`` over every
``batch x heads x len x len`` score tensor: a guard for rows whose keys are all masked, which
cannot happen here (the additive mask is the finite float32 minimum and [CLS] is never masked),
yet it took about a third of the run time. :func:`prepare_int8` writes a graph that

1. folds the dequantisation into fp32 initializers (onnxruntime's basic optimisation level),
2. drops the NaN guards,
3. quantises the weight products to int8 per output channel with activations quantised per call
   (``MatMulInteger``: VNNI on CPUs that have it), except the feed-forward down-projections, whose
   post-GELU inputs carry the outliers that per-tensor activation scales clip.

Measured on real conversation chunks (docs/DESIGN.md §15): ~4,800 -> ~10,000 wordpieces/s on two
cores, cosine to the fp32 graph median 0.998, minimum 0.995. (onnxruntime's transformer optimiser
would fuse bias + GELU and residual + LayerNorm for another 3%, at the price of sympy.) The result
is cached by content under ``local.modelCacheDir``; building it takes ~3 s once per machine.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import ProviderError

# Part of the embedder's fingerprint: a change here must re-embed indexes built with the old graph.
PREPARE_VERSION = "int8-v1"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/memlane/models`` or ``~/.cache/memlane/models``: derived files, safe to delete."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memlane" / "models"


def prepared_graph(src: Path, cache_dir: Path | None = None) -> Path:
    """The int8 graph for ``src``, built on first use and reused from the cache afterwards."""
    st = src.stat()
    key = hashlib.sha256(f"{src.resolve()}:{st.st_size}:{st.st_mtime_ns}:{PREPARE_VERSION}".encode()).hexdigest()
    name = f"{src.stem}-{PREPARE_VERSION}-{key[:12]}.onnx"
    for folder in (cache_dir or default_cache_dir(), Path(tempfile.gettempdir()) / f"memlane-models-{os.getuid()}"):
        dst = folder / name
        if dst.exists():
            return dst
        try:
            folder.mkdir(parents=True, exist_ok=True)
            prepare_int8(src, dst)
            return dst
        except OSError:
            continue  # a read-only cache: the temp folder next, rebuilt per boot at worst
    raise ProviderError(f"cannot write the prepared model for {src}: set memorySearch.local.modelCacheDir")


def prepare_int8(src: Path, dst: Path) -> None:
    """Write the prepared graph of ``src`` to ``dst`` atomically (concurrent builders just race to rename)."""
    try:
        import onnx
        import onnxruntime as ort
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        hint = "set memorySearch.local.quantize to 'none'"
        raise ProviderError(f"cannot prepare the int8 model ({exc}); {hint}") from None

    with tempfile.TemporaryDirectory(dir=dst.parent, prefix=".prepare-") as tmp:
        folded = Path(tmp) / "folded.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        opts.log_severity_level = 3
        try:
            ort.InferenceSession(str(src), opts, providers=["CPUExecutionProvider"])
            model = onnx.load(str(folded))
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ProviderError(f"cannot load ONNX model {src}: {exc}") from None
        drop_nan_guards(model.graph)
        quiet = logging.getLogger()
        level = quiet.level
        quiet.setLevel(logging.ERROR)  # the quantiser logs advice on the root logger
        try:
            out = Path(tmp) / "int8.onnx"
            quantize_dynamic(
                model,
                out,
                weight_type=QuantType.QInt8,
                per_channel=True,
                nodes_to_exclude=down_projections(model.graph),
            )
        finally:
            quiet.setLevel(level)
        os.replace(out, dst)


def drop_nan_guards(graph: Any) -> int:
    """Remove ``Where(IsNaN(s), c, s)`` after a Softmax ``s``: consumers read ``s`` itself. Returns the count."""
    producer = {out: node for node in graph.node for out in node.output}
    dead = []
    for node in graph.node:
        if node.op_type != "Where" or len(node.input) != 3:
            continue
        cond = producer.get(node.input[0])
        soft = producer.get(node.input[2])
        if cond is None or cond.op_type != "IsNaN" or cond.input[0] != node.input[2]:
            continue
        if soft is None or soft.op_type != "Softmax":
            continue
        for consumer in graph.node:
            for i, name in enumerate(consumer.input):
                if name == node.output[0]:
                    consumer.input[i] = node.input[2]
        dead += [node, cond]
    for node in dead:
        graph.node.remove(node)
    return len(dead) // 2


def down_projections(graph: Any) -> list[str]:
    """The MatMuls whose constant weight narrows the width (the feed-forward's ``4h -> h``)."""
    shapes = {init.name: list(init.dims) for init in graph.initializer}
    return [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and len(shape := shapes.get(node.input[1], [])) == 2 and shape[0] > shape[1]
    ]
