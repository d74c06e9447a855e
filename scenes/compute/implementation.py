"""4.8: the companion code's attention, line by line: the shape each line makes, the two
meanings of d_out, and the check of the hand-written attention against PyTorch's SDPA.

The shapes are numpy (arrays of zeros pushed through the same reshapes and transposes).
The SDPA check is the one place in scenes/compute that needs PyTorch: its point is to
compare `torch.nn.functional.scaled_dot_product_attention` (forward and autograd) with
the hand-written formula, which no numpy code can stand in for. torch is a pinned
dependency (requirements.txt); it is imported inside `sdpa_check` only, so listing or
rendering other clips never pays for the import. The check is seeded and runs on the CPU
in float64, so a render repeats it exactly; its result is kept on disk (scenes/compute/stored.py,
keyed by the inputs, this file and the installed torch), so a render whose check has run
before imports no torch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scenes.compute.provenance import Const, Given, Made, Source
from scenes.compute.stored import stored

# The numbers written in the listing (each one is also what the computation below uses).
QKV_FACTOR = 3          # nn.Linear(D, 3 * D): Q, K and V in one projection
CHUNKS = 3              # .chunk(3, dim=-1)
CHUNK_DIM = -1
HEAD_SWAP = (1, 2)      # .transpose(1, 2): [B, T, H, d] <-> [B, H, T, d]
KEY_SWAP = (-2, -1)     # k.transpose(-2, -1): the last two axes
SOFTMAX_DIM = -1        # softmax over the keys
DIAGONAL = 1            # triu(diagonal=1): True strictly above the diagonal = the future
CACHE_CHAPTER = 8       # the chapter that explains forward's cache argument
FLOAT_BITS = 64         # the check runs in torch.float64
PRECISION = 1e-12       # differences below this are float64 rounding


@dataclass(frozen=True)
class CodeShapes:
    """The shape each line of the listing produces, for input x of shape [B, T, D] and H heads."""
    x: tuple            # [B, T, D]
    head_dim: int       # d = D // H
    qkv_weight: tuple   # nn.Linear(D, 3D).weight: [3D, D]
    proj_weight: tuple  # nn.Linear(D, D).weight: [D, D]
    qkv: tuple          # qkv(x): [B, T, 3D]
    q: tuple            # one chunk: [B, T, D]
    split: tuple        # .view(B, T, H, d): [B, T, H, d]
    heads: tuple        # .transpose(1, 2): [B, H, T, d]
    scores: tuple       # q @ k^T: [B, H, T, T]
    mask: tuple         # future[:T, :T]: [T, T]
    masked: int         # True entries in that mask: T(T-1)/2 future keys
    weights: tuple      # softmax: [B, H, T, T]
    context: tuple      # a @ v: [B, H, T, d]
    back: tuple         # .transpose(1, 2): [B, T, H, d]
    merged: tuple       # .reshape(B, T, D): [B, T, D]
    out: tuple          # proj(z): [B, T, D]


def code_shapes(shape: tuple, heads: int) -> CodeShapes:
    """Push zeros of shape [B, T, D] through the listing's operations, in numpy."""
    b, t, d_model = shape
    d = d_model // heads
    x = np.zeros((b, t, d_model))
    w_qkv = np.zeros((QKV_FACTOR * d_model, d_model))      # torch stores [out, in]
    w_proj = np.zeros((d_model, d_model))
    qkv = x @ w_qkv.T
    q, k, v = np.split(qkv, CHUNKS, axis=CHUNK_DIM)
    split = q.reshape(b, t, heads, d)
    q_h = split.swapaxes(*HEAD_SWAP)
    k_h = k.reshape(b, t, heads, d).swapaxes(*HEAD_SWAP)
    v_h = v.reshape(b, t, heads, d).swapaxes(*HEAD_SWAP)
    scores = q_h @ k_h.swapaxes(*KEY_SWAP) / math.sqrt(d)
    future = np.triu(np.ones((t, t), bool), DIAGONAL)
    masked = np.where(future, -np.inf, scores)
    exp = np.exp(masked - masked.max(axis=SOFTMAX_DIM, keepdims=True))
    weights = exp / exp.sum(axis=SOFTMAX_DIM, keepdims=True)
    context = weights @ v_h
    back = context.swapaxes(*HEAD_SWAP)
    merged = back.reshape(b, t, d_model)
    out = merged @ w_proj.T
    return CodeShapes(x.shape, d, w_qkv.shape, w_proj.shape, qkv.shape, q.shape, split.shape,
                      q_h.shape, scores.shape, future.shape, int(future.sum()), weights.shape,
                      context.shape, back.shape, merged.shape, out.shape)


def _swapped(name: str, dims: int = 4) -> list:
    """transpose(HEAD_SWAP)'s sizes: each from the axis it takes."""
    order = list(range(dims))
    order[HEAD_SWAP[0]], order[HEAD_SWAP[1]] = order[HEAD_SWAP[1]], order[HEAD_SWAP[0]]
    return [(f"shape.{name}[{k}]",) for k in order]


def shape_sources() -> dict:
    """Where each size of the listing's shapes comes from: the sizes of the line before
    (or of x, the weights) and the code's numbers it is made from, by the line's operation: label ->
    Source. The structure only, no values: it holds for every B, T, D and H."""
    dim = lambda name, *ks: tuple(f"shape.{name}[{k}]" for k in ks)    # noqa: E731
    rules: dict[str, tuple[str, list[tuple[str, ...]]]] = {
        "qkv": ("linear", [dim("x", 0), dim("x", 1), dim("qkv_weight", 0)]),        # x @ W.T: W's rows
        "q": ("chunk", [dim("qkv", 0), dim("qkv", 1), dim("qkv", 2) + ("code.chunks",)]),
        "split": ("view", [dim("q", 0), dim("q", 1), ("heads",), ("shape.head_dim",)]),   # view(B, T, H, d)
        "heads": ("transpose", _swapped("split")),
        "scores": ("matmul", [dim("heads", 0), dim("heads", 1), dim("heads", 2), dim("heads", 2)]),  # k's T
        "mask": ("slice", [dim("x", 1), dim("x", 1)]),                                   # future[:T, :T]
        "weights": ("softmax", [dim("scores", k) for k in range(4)]),
        "context": ("matmul", [dim("weights", 0), dim("weights", 1), dim("weights", 2), dim("heads", 3)]),
        "back": ("transpose", _swapped("context")),
        "merged": ("reshape", [dim("back", 0), dim("back", 1), dim("back", 2, 3)]),       # H·d back into D
        "out": ("linear", [dim("merged", 0), dim("merged", 1), dim("proj_weight", 0)]),
    }
    out = {"shape.head_dim": Source("floor divide", ("shape.x[2]", "heads")),
           "shape.chunks": Source("chunk", ("code.chunks",))}
    for name, (op, sizes) in rules.items():
        out.update({f"shape.{name}[{k}]": Source(op, tuple(s)) for k, s in enumerate(sizes)})
    return out


def sdpa_sources() -> dict:
    """The SDPA check: each largest difference <- the shape of Q, K, V and the seed they are drawn
    with (both routes run on them); the gradients' largest <- the three."""
    drawn = tuple(f"sdpa.shape[{k}]" for k in range(4)) + ("seed",)
    out = {f"sdpa.{n}": Source("sdpa check", drawn) for n in ("forward", "grad_q", "grad_k", "grad_v")}
    out["sdpa.grad"] = Source("max", ("sdpa.grad_q", "sdpa.grad_k", "sdpa.grad_v"))
    return out


@dataclass(frozen=True)
class OutWidths:
    """The output width [.., width] of each way of writing d_out, for D and H heads."""
    head_dim: int       # the wrapper's d_out when it is read as each head's width: D / H
    wrapper: int        # MultiHeadAttentionWrapper(d_out=D/H): H heads of D/H, concatenated
    total: int          # MultiHeadAttention(d_out=D): the total width
    copied: int         # the wrapper given d_out=D (copied without checking): H * D
    factor: int         # copied / total = H


def out_widths(d_model: int, heads: int) -> OutWidths:
    """The wrapper concatenates H heads of width d_out; MultiHeadAttention splits d_out into H."""
    d = d_model // heads
    copied = heads * d_model
    return OutWidths(d, heads * d, d_model, copied, copied // d_model)


@dataclass(frozen=True)
class SdpaCheck:
    """Largest absolute differences between hand-written attention and PyTorch's SDPA."""
    shape: tuple        # [B, H, T, d] of Q, K and V
    forward: float      # max |z_hand - z_sdpa|
    grad_q: float       # max |dL/dQ_hand - dL/dQ_sdpa|, likewise K and V
    grad_k: float
    grad_v: float
    grad: float         # the largest of the three
    eps: float          # float64's machine epsilon, for scale

    @property
    def agreement(self) -> str:
        """"exact" (every difference is 0), "rounding" (all below PRECISION) or "differs"."""
        if self.forward == self.grad == 0:
            return "exact"
        return "rounding" if max(self.forward, self.grad) < PRECISION else "differs"


def hand_attention(q, k, v):
    """The chapter's formula: scaled scores, the future masked with -inf, softmax, @ V."""
    import torch
    t = q.shape[-2]
    future = torch.ones(t, t, dtype=torch.bool).triu(diagonal=DIAGONAL)
    scores = q @ k.transpose(*KEY_SWAP) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=SOFTMAX_DIM)
    return weights @ v


@stored("torch")
def sdpa_check(shape: tuple, seed: int) -> SdpaCheck:
    """Q, K, V of `shape` drawn from N(0, 1) (seeded, float64, CPU); forward outputs and the
    gradients of L = sum(z * G), G a seeded upstream gradient, by both routes."""
    import torch
    import torch.nn.functional as F
    gen = torch.Generator().manual_seed(int(seed))
    dtype = getattr(torch, f"float{FLOAT_BITS}")
    q, k, v, g = (torch.randn(shape, generator=gen, dtype=dtype) for _ in range(4))
    outs, grads = [], []
    for route in (hand_attention, lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True)):
        leaves = [x.clone().requires_grad_(True) for x in (q, k, v)]
        z = route(*leaves)
        (z * g).sum().backward()
        outs.append(z.detach())
        grads.append([x.grad for x in leaves])
    forward = float((outs[0] - outs[1]).abs().max())
    grad_q, grad_k, grad_v = (float((a - b).abs().max()) for a, b in zip(*grads))
    return SdpaCheck(tuple(int(n) for n in shape), forward, grad_q, grad_k, grad_v,
                     max(grad_q, grad_k, grad_v), float(torch.finfo(dtype).eps))


# what each number with no source is (provenance.kind): the listing's constants, the sizes each
# class is built with, float64's facts
KINDS = {r"code\.\w+(\[\d+\])?": Const("a constant of the code listing"),
         r"chapter\.cache": Const("the chapter's context length in the listing"),
         r"(wrapper|mha|copied)\.heads|copied\.factor": Given("heads"),
         r"(wrapper|mha|copied)\.d_in|(mha|copied)\.d_out": Given("shape", (2,)),
         r"wrapper\.d_out": Made("divide", ("wrapper.d_in", "wrapper.heads")),
         "masked": Made("count above the diagonal", ("shape.x[1]",)),
         r"sdpa\.bits": Const("float64's bits"), r"sdpa\.eps": Const("float64's machine epsilon")}
