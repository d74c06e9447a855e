"""4.8 配套实现怎样对照每一行: the companion code's attention, one line at a time with the
shape it makes; the two meanings of d_out; the check against PyTorch's SDPA."""
from types import SimpleNamespace

from scenes.clips.implementation import parts
from scenes.kit.motion import flow
from scenes.kit.text import lang
from scenes.compute import implementation as compute
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.text.numbers import Shown
from scenes.kit.scene.inputs import InputError, integer, sizes
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.draw.exact import zero_or
from scenes.kit.compose.sheets import in_turn, tell

LIMITS = {"B": (1, 4), "T": (1, 8), "D": (1, 64)}   # the running example stays legible up to these
MAX_HEADS = 8
MAX_SEED = 2 ** 31 - 1
# What the lecturer says in each step (the caption is its one-line summary), keyed by step and case.
NARRATION = lang.words("implementation")["narration"]


def rules(raw: dict) -> dict:
    shape = sizes(raw.get("shape", "2,5,12"), "shape", LIMITS)
    heads = integer(raw.get("heads", 3), "heads", 1, MAX_HEADS)
    if shape[2] % heads:
        raise InputError("heads", str(raw.get("heads")),
                         f"must divide D = {shape[2]}: each head gets D/H features")
    seed = integer(raw.get("seed", 0), "seed", 0, MAX_SEED)
    return {"shape": shape, "heads": heads, "seed": seed}


class Implementation(ClipScene):
    spec = Clip(
        name="implementation", section="4.8", title="配套实现怎样对照每一行",
        summary="4.8 配套实现：逐行对照形状、d_out 的两种含义、与 PyTorch SDPA 核对",
        rules=rules,
        defaults={"shape": "2,5,12", "heads": 3, "seed": 0},
        options=(
            Option("shape", "B,T,D of the running example (B <= 4, T <= 8, D <= 64)"),
            Option("heads", "H, 1 to 8, divides D"),
            Option("seed", "seed of the SDPA check's Q, K, V (0 to 2**31-1)"),
        ),
    )

    def compute(self) -> SimpleNamespace:
        b, t, d_model = self.inputs["shape"]
        heads = self.inputs["heads"]
        shapes = compute.code_shapes((b, t, d_model), heads)
        return SimpleNamespace(shapes=shapes, widths=compute.out_widths(d_model, heads),
                               check=compute.sdpa_check(shapes.heads, self.inputs["seed"]))

    def provenance(self) -> dict:
        return {**compute.shape_sources(), **compute.sdpa_sources()}

    def kinds(self) -> dict:
        return compute.KINDS

    def construct(self) -> None:
        self.listing = parts.code_listing(self.book, self.result.shapes)
        self.band = None
        self.storyboard(self.projection, self.scores, self.merge, self.d_out, self.sdpa)

    # -- helpers
    def shape(self, name: str) -> Shown:
        return parts.shape(self.book, self.result.shapes, name)

    def const(self, label: str, value: int) -> Shown:
        return parts.const(self.book, label, value)

    def walk(self, rows: range) -> None:
        """Highlight each row in turn and show the shape it produces (its sizes made from those above)."""
        self.band = flow.walk(self, self.listing, rows, self.band)

    # -- steps
    def projection(self) -> None:
        s, c, book = self.result.shapes, compute, self.book
        one = self.inputs["heads"] == 1
        slots = {"factor": self.const("qkv_factor", c.QKV_FACTOR), "chunks": self.const("chunks", c.CHUNKS),
                 "heads": book.index("heads", self.inputs["heads"]),
                 "head_dim": book.index("shape.head_dim", s.head_dim)}
        self.step("一个 Linear(D, {factor}D) 同时算出 Q、K、V，chunk 切成 {chunks} 份；H = {heads}：view 与 transpose "
                  "只加出一个头轴，d = D = {head_dim}。" if one else
                  "一个 Linear(D, {factor}D) 同时算出 Q、K、V，chunk 切成 {chunks} 份，view 与 transpose 拆成 "
                  "{heads} 个头，每头宽 d = {head_dim}（k、v 同样拆）。", **slots)
        self.narrate(NARRATION["projection.code"], factor=slots["factor"],
                     diagonal=self.const("diagonal", c.DIAGONAL),
                     chapter=book.index("chapter.cache", c.CACHE_CHAPTER), qkv=self.shape("qkv"),
                     chunks=book.index("shape.chunks", c.CHUNKS), q=self.shape("q"))
        self.narrate(NARRATION["projection.one" if one else "projection.many"], heads=slots["heads"],
                     shape=self.shape("heads"), head_dim=slots["head_dim"])
        self.narrate(NARRATION["projection.sizes"], qkv=book.index("shape.qkv[2]", s.qkv[2]),
                     chunks=self.const("chunks", c.CHUNKS), q=book.index("shape.q[2]", s.q[2]),
                     heads=slots["heads"], head_dim=slots["head_dim"])
        self.play(Appear(self.listing.codes), run_time=0.8)
        self.walk(range(1, 9))

    def scores(self) -> None:
        s, book = self.result.shapes, self.book
        if s.masked:
            self.step("分数 q @ kᵀ 只乘最后两轴，得到 {scores}；掩码在每个 T×T 里遮住 {masked} 个未来位置，"
                      "softmax 后每行和为 {one}。", scores=self.shape("scores"),
                      masked=book.index("masked", s.masked), one=book.const(1))
        else:
            self.step("分数 q @ kᵀ 只乘最后两轴，得到 {scores}；T = {t} 时掩码里没有未来位置可遮，softmax 照常按行归一。",
                      scores=self.shape("scores"), t=book.index("shape.mask[0]", s.mask[0]))
        self.narrate(NARRATION["scores.table"], scores=self.shape("scores"), mask=self.shape("mask"))
        if s.masked:
            self.narrate(NARRATION["scores.masked"], book.index("masked", s.masked))
        else:
            self.narrate(NARRATION["scores.unmasked"], book.index("shape.mask[0]", s.mask[0]))
        self.narrate(NARRATION["scores.sizes"], keys=book.index("shape.scores[3]", s.scores[3]),
                     t=book.index("shape.mask[0]", s.mask[0]))
        self.walk(range(9, 13))

    def merge(self) -> None:
        s, book = self.result.shapes, self.book
        one = self.inputs["heads"] == 1
        shown = {"context": self.shape("context"), "merged": self.shape("merged"), "out": self.shape("out"),
                 "back": self.shape("back")}
        tell(self, "上下文 a @ v 是 {context}；只有一个头，换回与合并只去掉头轴：{merged}，再经输出投影。" if one else
             "a @ v 把每个头的权重作用到 V 上，得到 {context}；transpose 换回、reshape 合并成 {merged}，再经输出投影。",
             NARRATION["merge.one" if one else "merge.many"], **shown)
        self.narrate(NARRATION["merge.sizes"], head_dim=book.index("shape.context[3]", s.context[3]),
                     heads=book.index("shape.back[2]", s.back[2]),
                     width=book.index("shape.merged[2]", s.merged[2]),
                     out=book.index("shape.out[2]", s.out[2]))
        self.walk(range(13, 16))

    def d_out(self) -> None:
        """The two meanings of d_out, said with the widths the bars show."""
        book, w = self.book, self.result.widths
        b, t, d_model = self.inputs["shape"]
        heads = self.inputs["heads"]
        wrapper_out = book.coords("wrapper.shape", (b, t, heads * w.head_dim))
        if heads == 1:
            tell(self, "只有一个头时两种 d_out 相同：每头宽度就是总宽度 {d_out}，照搬也不会出错。",
                 NARRATION["d_out.one"], d_out=book.index("wrapper.d_out", w.head_dim), shape=wrapper_out)
        else:
            tell(self, "同名不同义：早期 Wrapper 的 d_out 指每个头的宽度，MultiHeadAttention 的指总宽度；"
                 "照搬 d_out = {copied_d_out} 输出宽 {factor} 倍。", NARRATION["d_out.many"],
                 wrapper_heads=book.index("wrapper.heads", heads),
                 wrapper_d_out=book.index("wrapper.d_out", w.head_dim), wrapper_out=wrapper_out,
                 mha_d_out=book.index("mha.d_out", w.total), mha_heads=book.index("mha.heads", heads),
                 copied_d_out=book.index("copied.d_out", w.total),
                 copied_out=book.coords("copied.shape", (b, t, heads * w.total)),
                 factor=book.index("copied.factor", w.factor))
        self.clear_stage()
        self.band = None
        in_turn(self, parts.d_out_blocks(book, w, (b, t, d_model), heads), run_time=0.6, pause=0.3)

    def sdpa(self) -> None:
        book, chk, c = self.book, self.result.check, compute
        forward = book.fmt("sdpa.forward", chk.forward, zero_or(chk.forward))
        bits = book.index("sdpa.bits", c.FLOAT_BITS)
        grad = None if chk.agreement == "exact" else book.fmt("sdpa.grad", chk.grad)
        gaps = {"forward": forward, "grad": grad, "bits": bits}
        if grad is None:
            self.step("手写注意力与 PyTorch SDPA 完全相同：前向和三个梯度的最大差都是 {}。", forward)
        else:
            self.step("手写注意力与 PyTorch SDPA：前向最大差 {forward}，梯度最大差 {grad}，都在 float{bits} 的舍入误差之内。"
                      if chk.agreement == "rounding" else
                      "手写注意力与 PyTorch SDPA 相差 {forward}（梯度 {grad}），超出 float{bits} 的舍入误差。", **gaps)
        self.narrate(NARRATION["sdpa.setup"], shape=book.coords("sdpa.shape", chk.shape), bits=bits,
                     seed=book.index("seed", self.inputs["seed"]))
        if grad is None:
            self.narrate(NARRATION["sdpa.exact"], forward)
        elif chk.agreement == "rounding":
            self.narrate(NARRATION["sdpa.rounding"], **gaps, eps=book.fmt("sdpa.eps", chk.eps))
        else:
            self.narrate(NARRATION["sdpa.differs"], **gaps)
        self.narrate(NARRATION["sdpa.limits"])
        self.clear_stage()
        in_turn(self, parts.sdpa_board(book, chk, book.index("seed", self.inputs["seed"])), run_time=0.6)
