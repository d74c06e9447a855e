"""4.8's oracle: every shape of the listing from real torch modules, the wrapper's and
MultiHeadAttention's widths, the listing's constants; legal inputs drawn at the limits. Shared by
tests/clips/test_implementation*.py and the contract (tests/clips/test_contract.py)."""
import math
import random

import torch
import torch.nn.functional as F
from torch import nn

CONTEXT = 8            # the buffer's side L in the oracle: any L >= T gives the same slice
BELOW_PRECISION = lambda v: 0 <= v < 1e-12   # noqa: E731  float noise: only the bound is meaningful


class CausalHead(nn.Module):
    """One head of the early wrapper: its own Q, K, V projections of width d_out."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(d_in, d_out, bias=False) for _ in range(3))

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        t = x.shape[1]
        s = (q @ k.transpose(1, 2)).masked_fill(torch.ones(t, t).triu(1).bool(), float("-inf"))
        return torch.softmax(s / math.sqrt(q.shape[-1]), -1) @ v


class Wrapper(nn.Module):
    """MultiHeadAttentionWrapper: num_heads independent heads of width d_out, concatenated."""

    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        self.heads = nn.ModuleList(CausalHead(d_in, d_out) for _ in range(num_heads))

    def forward(self, x):
        return torch.cat([h(x) for h in self.heads], dim=-1)


class MultiHead(nn.Module):
    """MultiHeadAttention: d_out is the total; one projection, split into heads of d_out / H."""

    def __init__(self, d_in, d_out, num_heads):
        super().__init__()
        self.h, self.qkv = num_heads, nn.Linear(d_in, 3 * d_out, bias=False)
        self.proj = nn.Linear(d_out, d_out)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = (z.reshape(b, t, self.h, -1).transpose(1, 2) for z in self.qkv(x).chunk(3, -1))
        z = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(z.transpose(1, 2).reshape(b, t, -1))


def shapes(prefix, size):
    return {f"{prefix}[{k}]": int(n) for k, n in enumerate(size)}


def listing_oracle(b, t, d_model, h):
    """The listing's shapes, by running its lines with torch modules on x of shape [B, T, D]."""
    torch.manual_seed(0)
    d = d_model // h
    x = torch.randn(b, t, d_model)
    qkv, proj = nn.Linear(d_model, 3 * d_model, bias=False), nn.Linear(d_model, d_model)
    parts = qkv(x).chunk(3, dim=-1)
    q, k, v = (p.view(b, t, h, d).transpose(1, 2) for p in parts)
    s = q @ k.transpose(-2, -1) / math.sqrt(d)
    future = torch.ones(CONTEXT, CONTEXT).triu(diagonal=1).bool()
    mask = future[:t, :t]
    a = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
    z = (a @ v).transpose(1, 2)
    out = proj(z.reshape(b, t, d_model))
    found = {"shape.head_dim": d, "shape.chunks": len(parts), "masked": int(mask.sum())}
    for name, tensor in (("qkv_weight", qkv.weight), ("proj_weight", proj.weight), ("x", x),
                         ("qkv", qkv(x)), ("q", parts[0]), ("split", parts[0].view(b, t, h, d)),
                         ("heads", q), ("scores", s), ("mask", mask), ("weights", a), ("context", a @ v),
                         ("back", z), ("merged", z.reshape(b, t, d_model)), ("out", out)):
        found.update(shapes(f"shape.{name}", tensor.shape))
    return found


def width_oracle(b, t, d_model, h):
    """Output shapes of the wrapper and MultiHeadAttention, each given its own d_out and the other's."""
    x = torch.randn(b, t, d_model)
    found = {}
    for name, module, d_out in (("wrapper", Wrapper, d_model // h), ("mha", MultiHead, d_model),
                                ("copied", Wrapper, d_model)):
        found.update({f"{name}.d_in": d_model, f"{name}.d_out": d_out, f"{name}.heads": h})
        found.update(shapes(f"{name}.shape", module(d_model, d_out, h)(x).shape))
    found["copied.factor"] = found["copied.shape[2]"] // found["mha.shape[2]"]
    return found


# The numbers written in the companion code itself (constants of the listing).
CODE = {"code.qkv_factor": 3, "code.chunks": 3, "code.chunk_dim": -1, "code.diagonal": 1,
        "code.split_swap[0]": 1, "code.split_swap[1]": 2, "code.key_swap[0]": -2, "code.key_swap[1]": -1,
        "code.softmax_dim": -1, "code.merge_swap[0]": 1, "code.merge_swap[1]": 2, "chapter.cache": 8}


def oracle(inputs):
    """Every label the clip can draw, from torch (shapes, widths, float64) or the listing's constants."""
    b, t, d_model = inputs["shape"]
    h = inputs["heads"]
    found = {"section": "4.8", "const": 1, "heads": h, "seed": inputs["seed"], **CODE}
    found.update(listing_oracle(b, t, d_model, h))
    found.update(width_oracle(b, t, d_model, h))
    found.update(shapes("sdpa.shape", (b, h, t, d_model // h)))
    found.update({"sdpa.bits": torch.finfo(torch.float64).bits, "sdpa.eps": torch.finfo(torch.float64).eps})
    found.update({f"sdpa.{k}": BELOW_PRECISION for k in ("forward", "grad_q", "grad_k", "grad_v", "grad")})
    return found


def legal_inputs(rng: random.Random) -> dict:
    """Raw options at the limits: B, T from their ends or between, D up to 64 with H a divisor up to 8."""
    b = rng.choice([1, 4, rng.randint(1, 4)])
    t = rng.choice([1, 8, rng.randint(1, 8)])
    d_model = rng.choice([64, 1, rng.randint(1, 64), 8 * rng.randint(1, 8)])
    heads = rng.choice([h for h in range(1, 9) if d_model % h == 0])
    return {"shape": f"{b},{t},{d_model}", "heads": str(heads),
            "seed": str(rng.choice([0, 2**31 - 1, rng.randint(0, 2**31 - 1)]))}
