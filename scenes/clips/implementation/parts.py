"""Builders for the implementation clip: the companion code as a listing with its shape column
(the kit's Listing), width bars (the kit's) for the two meanings of d_out, and the SDPA check's board.

Every number goes through the NumberBook; the texts arrive as Shown (book-made) strings.
"""
from __future__ import annotations

from typing import Any

from manim import DOWN, LEFT, RIGHT, VGroup

from scenes.compute import implementation as compute
from scenes.kit.text import style
from scenes.kit.draw.bars import width_bar
from scenes.kit.draw.columns import Listing, Table
from scenes.kit.draw.exact import zero_or
from scenes.kit.text.layout import content_width
from scenes.kit.draw.notes import lines
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Area
from scenes.kit.compose.sheets import one_under_another

SMALL = 20           # the d_out blocks and the check's board
WORD_GAP = 0.12      # a space at SMALL: between a word and the shape beside it


def shape(book: NumberBook, s: Any, name: str) -> Shown:
    return book.coords(f"shape.{name}", getattr(s, name))


def const(book: NumberBook, label: str, value: int) -> Shown:
    return book.index(f"code.{label}", value)


def dims(book: NumberBook, label: str, values: tuple) -> dict[str, Shown]:
    """transpose's two axes, as its arguments are named (dim0, dim1)."""
    return {f"dim{k}": const(book, f"{label}[{k}]", v) for k, v in enumerate(values)}


def code_listing(book: NumberBook, s: Any) -> Listing:
    """The companion code's Attention (__init__ and forward), each row with its shape."""
    c, f = compute, book.compose
    arrow = "{before} → {after}"
    rows = [
        (f("def __init__(self, D, H, L):"), style.MUTED, None),
        (f("    self.qkv = nn.Linear(D, {} * D, bias=False)", const(book, "qkv_factor", c.QKV_FACTOR)),
         style.TEXT, f("weight {}", shape(book, s, "qkv_weight"))),
        (f("    self.proj = nn.Linear(D, D)"), style.TEXT, f("weight {}", shape(book, s, "proj_weight"))),
        (f("    future = torch.ones(L, L).triu(diagonal={})", const(book, "diagonal", c.DIAGONAL)),
         style.TEXT, f("[L, L]，对角线以上为 True")),
        (f('    self.register_buffer("future", future.bool())'), style.TEXT, f("布尔缓冲区：未来位置")),
        (f("def forward(self, x, cache=None):"), style.MUTED,
         f("cache 见第 {} 章", book.index("chapter.cache", c.CACHE_CHAPTER))),
        (f("    B, T, D = x.shape;  d = D // H"), style.TEXT,
         f("x {x}，H = {heads}，d = {head_dim}", x=shape(book, s, "x"), heads=book.index("heads", s.split[2]),
           head_dim=book.index("shape.head_dim", s.head_dim))),
        (f("    q, k, v = self.qkv(x).chunk({chunks}, dim={dim})", chunks=const(book, "chunks", c.CHUNKS),
           dim=const(book, "chunk_dim", c.CHUNK_DIM)), style.TEXT,
         f("{qkv} → {chunks} × {q}", qkv=shape(book, s, "qkv"), chunks=book.index("shape.chunks", c.CHUNKS),
           q=shape(book, s, "q"))),
        (f("    q = q.view(B, T, H, d).transpose({dim0}, {dim1})", **dims(book, "split_swap", c.HEAD_SWAP)),
         style.TEXT, f(arrow, before=shape(book, s, "split"), after=shape(book, s, "heads"))),
        (f("    s = q @ k.transpose({dim0}, {dim1}) / math.sqrt(d)", **dims(book, "key_swap", c.KEY_SWAP)),
         style.TEXT, shape(book, s, "scores")),
        (f("    mask = self.future[:T, :T]"), style.TEXT, f("mask {}", shape(book, s, "mask"))),
        (f('    s = s.masked_fill(mask, float("-inf"))'), style.TEXT, shape(book, s, "scores")),
        (f("    a = torch.softmax(s, dim={})", const(book, "softmax_dim", c.SOFTMAX_DIM)), style.TEXT,
         shape(book, s, "weights")),
        (f("    z = (a @ v).transpose({dim0}, {dim1})", **dims(book, "merge_swap", c.HEAD_SWAP)), style.TEXT,
         f(arrow, before=shape(book, s, "context"), after=shape(book, s, "back"))),
        (f("    z = z.reshape(B, T, D)"), style.TEXT, shape(book, s, "merged")),
        (f("    return self.proj(z)"), style.TEXT, shape(book, s, "out")),
    ]
    return Area(content_width()).place(Listing(book, rows))


def d_out_blocks(book: NumberBook, w: Any, size: tuple, heads: int) -> list:
    """Each way to write d_out: the call, what d_out means there, and a bar as wide as its output."""
    b, t, d_model = size
    unit = content_width() / 2 / w.copied     # the widest bar takes half the content width
    blocks = []
    for name, cls, d_out, seg_w, color, verdict in (
            ("wrapper", "MultiHeadAttentionWrapper", w.head_dim, w.head_dim, style.VALUE,
             "d_out 是每个头的宽度：H 个头各输出 d_out，拼接后宽 H·d_out"),
            ("mha", "MultiHeadAttention", w.total, w.total // heads, style.QUERY,
             "d_out 是所有头的总宽度：一次投影后拆成 H 个头，每头 d_out/H"),
            ("copied", "MultiHeadAttentionWrapper", w.total, w.total,
             style.MASK if w.factor > 1 else style.VALUE, "把 MultiHeadAttention 的 d_out 照搬给 Wrapper")):
        code = book.text("{cls}(d_in={d_in}, d_out={d_out}, num_heads={heads})", cls=book.term(cls),
                         d_in=book.index(f"{name}.d_in", d_model), d_out=book.index(f"{name}.d_out", d_out),
                         heads=book.index(f"{name}.heads", heads), font=style.NUMBER_FONT, size=SMALL)
        bar = width_bar(heads, seg_w, color, unit)
        out = book.coords(f"{name}.shape", (b, t, heads * seg_w))
        if name == "copied" and w.factor > 1:
            tag = book.text("输出 {shape}：宽了 {factor} 倍", shape=out, size=SMALL, color=style.MASK,
                            factor=book.index("copied.factor", w.factor))
        else:       # the shape on its own: the listing's [B, T, D] (the same text) flies here from step 3
            tag = VGroup(book.text("输出", size=SMALL, color=color),
                         book.text("{}", out, size=SMALL, color=color)).arrange(RIGHT, buff=WORD_GAP)
        blocks.append(VGroup(code, book.text(verdict, size=SMALL, color=style.MUTED),
                             VGroup(bar, tag.next_to(bar, RIGHT, buff=0.3))).arrange(DOWN, aligned_edge=LEFT,
                                                                                     buff=0.14))
    one_under_another(*blocks, buff=0.42)
    return blocks


def sdpa_board(book: NumberBook, chk: Any, seed: Shown) -> VGroup:
    """The two routes in code, the check's set-up, the largest differences, what it leaves out."""
    c, bits = compute, book.index("sdpa.bits", compute.FLOAT_BITS)
    code = lines(book, [
        ("# 手写（本章）", style.MUTED),
        (book.compose("s = q @ k.transpose({dim0}, {dim1}) / math.sqrt(d)",
                      **dims(book, "key_swap", c.KEY_SWAP)), style.TEXT),
        (book.compose('z = torch.softmax(s.masked_fill(future, float("-inf")), dim={}) @ v',
                      const(book, "softmax_dim", c.SOFTMAX_DIM)), style.TEXT),
        ("# PyTorch", style.MUTED),
        ("z = F.scaled_dot_product_attention(q, k, v, is_causal=True)", style.TEXT)],
        font=style.NUMBER_FONT, buff=0.12)
    setup = lines(book, [
        (book.compose("Q、K、V 形状 {shape}，torch.float{bits}，CPU，torch.manual_seed({seed})",
                      shape=book.coords("sdpa.shape", chk.shape), bits=bits, seed=seed), style.TEXT),
        ("两条路线用同一个上游梯度 G（同样随机），L = Σ z·G，比较 ∂L/∂Q、∂L/∂K、∂L/∂V", style.MUTED)])
    rows = [(book.text(words, size=SMALL), book.num(label, value, zero_or(value), color=color))
            for words, label, value, color in (
                ("前向 z：最大 |差|", "sdpa.forward", chk.forward, style.ACCENT),
                ("梯度 ∂L/∂Q：最大 |差|", "sdpa.grad_q", chk.grad_q, style.QUERY),
                ("梯度 ∂L/∂K：最大 |差|", "sdpa.grad_k", chk.grad_k, style.KEY),
                ("梯度 ∂L/∂V：最大 |差|", "sdpa.grad_v", chk.grad_v, style.VALUE))]
    eps = book.text("参照：float{bits} 的机器精度 eps = {eps}", bits=bits, eps=book.fmt("sdpa.eps", chk.eps),
                    size=SMALL, color=style.MUTED)
    table = Table(rows, aligns=(LEFT, LEFT), gap=0.5, row_h=0.42)
    limits = lines(book, [("未覆盖：GPU 融合内核（如 FlashAttention）的结果与性能、半精度；这里只测了 CPU 上的小张量。",
                           style.MUTED)])
    gaps = VGroup(table, eps).arrange(DOWN, aligned_edge=LEFT, buff=0.22)
    return one_under_another(code, setup, gaps, limits, buff=0.32)
