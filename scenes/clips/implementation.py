"""4.8 配套实现怎样对照每一行: the companion code's attention, one line at a time with the
shape it makes; the two meanings of d_out; the check against PyTorch's SDPA."""
from types import SimpleNamespace

from scenes.clips import implementation_parts as parts
from scenes.kit import flow
from scenes.compute import implementation as compute
from scenes.kit.anim import Appear
from scenes.kit.base import ClipScene
from scenes.kit.numbers import Shown
from scenes.kit.inputs import InputError, integer, sizes
from scenes.kit.clip import Clip, Option
from scenes.kit.exact import zero_or
from scenes.kit.sheets import in_turn, tell

LIMITS = {"B": (1, 4), "T": (1, 8), "D": (1, 64)}   # the running example stays legible up to these
MAX_HEADS = 8
MAX_SEED = 2 ** 31 - 1


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
        return compute.shape_sources()

    def construct(self) -> None:
        self.listing = parts.code_listing(self.book, self.result.shapes)
        self.band = None
        self.projection()
        self.scores()
        self.merge()
        self.d_out()
        self.sdpa()
        self.end()

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
        slots = {"factor": self.const("qkv_factor", c.QKV_FACTOR), "chunks": self.const("chunks", c.CHUNKS),
                 "heads": book.index("heads", self.inputs["heads"]),
                 "head_dim": book.index("shape.head_dim", s.head_dim)}
        if self.inputs["heads"] == 1:
            self.step("一个 Linear(D, {factor}D) 同时算出 Q、K、V，chunk 切成 {chunks} 份；H = {heads}：view 与 transpose "
                      "只加出一个头轴，d = D = {head_dim}。", **slots)
        else:
            self.step("一个 Linear(D, {factor}D) 同时算出 Q、K、V，chunk 切成 {chunks} 份，view 与 transpose 拆成 "
                      "{heads} 个头，每头宽 d = {head_dim}（k、v 同样拆）。", **slots)
        self.narrate("按刚才的形状变化对照配套代码 core.py 的 Attention：__init__ 把三份投影合成一个 "
                     "Linear(D, {factor}D, bias=False)，并用 triu(diagonal={diagonal}) 存下标出未来位置的布尔缓冲区；"
                     "forward 的 cache 参数留到第 {chapter} 章，不传就是本章的普通因果注意力。"
                     "qkv(x) 的形状是 {qkv}，chunk 沿最后一维切成 {chunks} 份，每份 {q}。",
                     factor=slots["factor"], diagonal=self.const("diagonal", c.DIAGONAL),
                     chapter=book.index("chapter.cache", c.CACHE_CHAPTER), qkv=self.shape("qkv"),
                     chunks=book.index("shape.chunks", c.CHUNKS), q=self.shape("q"))
        said = {"heads": slots["heads"], "shape": self.shape("heads"), "head_dim": slots["head_dim"]}
        if self.inputs["heads"] == 1:
            self.narrate("只有一个头，view 和 transpose 只加出一个长度为 {heads} 的头轴，得到 {shape}，"
                         "每头宽 d 就是 D，等于 {head_dim}。", **said)
        else:
            self.narrate("view 再把它拆成 {heads} 个头，transpose 交换位置轴和头轴，得到 {shape}，每头宽 d = {head_dim}。",
                         **said)
        self.narrate("每行的形状都由上面已有的数得到：qkv 的最后一维 {qkv} 是权重的行数，chunk 把它除以 {chunks} 得 {q}，"
                     "view 用上 H = {heads} 和 d = {head_dim}，transpose 再把位置轴和头轴换位。",
                     qkv=book.index("shape.qkv[2]", s.qkv[2]), chunks=self.const("chunks", c.CHUNKS),
                     q=book.index("shape.q[2]", s.q[2]), heads=slots["heads"], head_dim=slots["head_dim"])
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
        self.narrate("分数 q 乘 k 的转置只作用在最后两轴，批次和头两轴原样保留，再除以 d 的平方根，得到 {scores}："
                     "每个批次、每个头各有一张 T 乘 T 的表。mask 从 future 缓冲区截出前 T 行、前 T 列，形状 {mask}。",
                     scores=self.shape("scores"), mask=self.shape("mask"))
        if s.masked:
            self.narrate("masked_fill 把未来位置填成负无穷，每张表里遮住 {} 个；softmax 沿最后一维归一化，"
                         "被遮住的位置得到零概率，剩下的位置自动重新归一化。", self.book.index("masked", s.masked))
        else:
            self.narrate("T = {} 时只有对角线，没有未来位置可遮；softmax 照常沿最后一维归一化。",
                         self.book.index("shape.mask[0]", s.mask[0]))
        self.narrate("分数的最后一维 {keys} 是 k 的长度 T，mask 的两维都取 T = {t}；softmax 只归一化，形状原样留下。",
                     keys=book.index("shape.scores[3]", s.scores[3]),
                     t=book.index("shape.mask[0]", s.mask[0]))
        self.walk(range(9, 13))

    def merge(self) -> None:
        s, book = self.result.shapes, self.book
        shown = {"context": self.shape("context"), "merged": self.shape("merged"), "out": self.shape("out")}
        if self.inputs["heads"] == 1:
            tell(self, "上下文 a @ v 是 {context}；只有一个头，换回与合并只去掉头轴：{merged}，再经输出投影。",
                 "a 乘 v 用权重混合可见位置的值，得到上下文 {context}。只有一个头，换回与合并只是去掉头轴，"
                 "得到 {merged}。最后 self.proj 这个输出投影给出 {out}，与输入同宽。", **shown)
        else:
            tell(self, "a @ v 把每个头的权重作用到 V 上，得到 {context}；transpose 换回、reshape 合并成 {merged}，"
                 "再经输出投影。",
                 "a 乘 v 让每个头用自己的权重混合自己的值，得到上下文 {context}。transpose 先把头轴和位置轴换回来，"
                 "得到 {back}，reshape 再把最后两维合并成 {merged}；合并前必须先换回，才能把同一位置的各头拼在一起。"
                 "最后 self.proj 这个输出投影混合不同头的信息，输出 {out}，与输入同宽。",
                 **shown, back=self.shape("back"))
        self.narrate("上下文的最后一维 {head_dim} 来自 v 的每头宽度；reshape 把 {heads} 乘 {head_dim} 合并回 {width}，"
                     "输出投影的宽度是它权重的行数 {out}。", head_dim=book.index("shape.context[3]", s.context[3]),
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
                 "上游最早的 MultiHeadAttentionWrapper 拼接多个独立的头，d_out 指每个头的宽度；"
                 "后来的 MultiHeadAttention 一次投影再拆头，d_out 指所有头的总宽度。"
                 "只有一个头时两者相同，都是 {d_out}，三种写法的输出都是 {shape}。"
                 "头数一多，这两个同名参数就不再指同一个宽度，照搬前要核对形状。",
                 d_out=book.index("wrapper.d_out", w.head_dim), shape=wrapper_out)
        else:
            tell(self, "同名不同义：早期 Wrapper 的 d_out 指每个头的宽度，MultiHeadAttention 的指总宽度；"
                 "照搬 d_out = {copied_d_out} 输出宽 {factor} 倍。",
                 "上游最早的 MultiHeadAttentionWrapper 实例化多个独立的头再拼接，d_out 指每个头的宽度："
                 "{wrapper_heads} 个头各输出 {wrapper_d_out}，拼接后是 {wrapper_out}。"
                 "后来的 MultiHeadAttention 中 d_out 指所有头的总宽度 {mha_d_out}，"
                 "一次投影后拆成 {mha_heads} 个头。这两个参数虽然同名，指的却不是同一个宽度；"
                 "若把 d_out = {copied_d_out} 直接照搬给 Wrapper，输出就变成 {copied_out}，宽度扩大 {factor} 倍。",
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
        elif chk.agreement == "rounding":
            self.step("手写注意力与 PyTorch SDPA：前向最大差 {forward}，梯度最大差 {grad}，都在 float{bits} 的舍入误差之内。",
                      **gaps)
        else:
            self.step("手写注意力与 PyTorch SDPA 相差 {forward}（梯度 {grad}），超出 float{bits} 的舍入误差。", **gaps)
        self.narrate("主检查脚本直接比较手写注意力和 PyTorch SDPA：Q、K、V 形状 {shape}，"
                     "torch.float{bits}，随机种子 {seed}，两条路线用同一个上游梯度反向传播。",
                     shape=book.coords("sdpa.shape", chk.shape), bits=bits,
                     seed=book.index("seed", self.inputs["seed"]))
        if grad is None:
            self.narrate("前向输出和对 Q、K、V 的梯度，最大差都恰为 {}，两种实现给出完全相同的数。", forward)
        elif chk.agreement == "rounding":
            self.narrate("前向最大差 {forward}，梯度最大差 {grad}；作为参照，float{bits} 的机器精度 eps 是 {eps}。"
                         "这些误差说明，在所测的小张量上，两种实现的前向和梯度一致到数值精度范围内。",
                         **gaps, eps=book.fmt("sdpa.eps", chk.eps))
        else:
            self.narrate("前向最大差 {forward}，梯度最大差 {grad}，超出 float{bits} 的舍入误差；两条路线算出的不是同一个结果，"
                         "要回头核对掩码、缩放和轴的顺序。", **gaps)
        self.narrate("这项检查只在 CPU 上进行，没有测试 GPU 融合内核的结果与性能，也没有测半精度。")
        self.clear_stage()
        in_turn(self, parts.sdpa_board(book, chk, book.index("seed", self.inputs["seed"])), run_time=0.6)
