"""4.5 通过修改未来输入来验收: perturb the future, the prefix outputs stay exactly the same;
without the mask they move; the early loss has zero gradient on the future inputs; dropout
must be off or share one mask; the check tests behaviour, not the triangle picture."""
from manim import DOWN, LEFT, UP, Create, FadeIn, VGroup

from scenes.clips.future_check import parts
from scenes.compute import future as compute
from scenes.kit.draw import bars, pictures
from scenes.kit.text import lang, style
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.draw.pictures import SMALL, Board
from scenes.kit.draw.notes import note
from scenes.kit.text.numbers import Shown
from scenes.kit.page.page import named
from scenes.kit.compose.sheets import (board_then_rights, change, exact_decimals, in_turn, one_under_another, panels,
                               slot, table, tell, two_runs, worked_board)
from scenes.kit.scene.inputs import InputError, integer, number, sizes
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.draw.exact import zero_or

LIMITS = {"B": (1, 2), "T": (2, 8), "D": (1, 12)}   # small enough to draw every position
MAX_DELTA = 100.0
# What the lecturer says in each step (the caption is its one-line summary), keyed by the case the
# data chose; its slots ({prefix}, or {} where a sentence has one) are filled by the book.
NARRATION = lang.words("future_check")["narration"]


def rules(raw: dict) -> dict:
    b, t, d = sizes(raw.get("shape", "2,6,12"), "shape", LIMITS)
    heads = raw.get("heads", max(h for h in (3, 2, 1) if d % h == 0))
    heads = integer(heads, "heads", 1, d)
    if d % heads:
        raise InputError("heads", str(raw.get("heads")), f"must divide D = {d} (each head gets D/H features)")
    prefix = integer(raw.get("prefix", max(1, t - 2)), "prefix", 1, t - 1)
    delta = number(raw.get("delta", 100), "delta")
    if delta == 0 or abs(delta) > MAX_DELTA:
        raise InputError("delta", str(raw.get("delta")), "must be non-zero with |delta| <= 100")
    p = number(raw.get("dropout", 0.1), "dropout")
    if not 0 <= p < 1:
        raise InputError("dropout", str(raw.get("dropout")), "must lie in [0, 1)")
    return {"shape": (b, t, d), "heads": heads, "prefix": prefix, "delta": delta,
            "seed": integer(raw.get("seed", 0), "seed", 0, 2**31 - 1), "dropout": p}


class FutureCheck(ClipScene):
    spec = Clip(
        name="future-check", section="4.5", title="通过修改未来输入来验收",
        summary="4.5 改动未来输入：前缀输出与梯度不变，关掉掩码就变；dropout 要关掉或共用掩码",
        rules=rules,
        defaults={"shape": "2,6,12", "delta": 100, "seed": 0, "dropout": 0.1},
        options=(
            Option("shape", "B,T,D (B 1-2, T 2-8, D 1-12), default 2,6,12"),
            Option("heads", "H, must divide D (default 3, else 2 or 1)"),
            Option("prefix", "positions kept fixed, 1..T-1 (default T-2)"),
            Option("delta", "perturbation size: x + delta*u on the later positions "
                            "(non-zero, |delta| <= 100)"),
            Option("seed", "seeds the input, the weights, u and the dropout masks (0..2**31-1)"),
            Option("dropout", "p for the dropout step, 0 <= p < 1"),
        ),
    )

    def compute(self) -> compute.FutureCheck:
        i = self.inputs
        return compute.future_check(i["shape"], i["heads"], i["prefix"], i["delta"], i["seed"], i["dropout"])

    def provenance(self) -> dict:
        return compute.provenance(self.result)

    def kinds(self) -> dict:
        return compute.KINDS

    def construct(self) -> None:
        self.storyboard(
            self.show_inputs,
            lambda: self.runs(on=True),
            lambda: self.runs(on=False),
            self.gradients,
            self.dropout,
            self.behaviour,
        )

    # -- slots
    def prefix(self) -> Shown:
        return self.book.index("prefix", self.result.prefix)

    def future(self) -> Shown:
        return self.book.index("future", self.result.future)

    # -- step 1
    def show_inputs(self) -> None:
        r, book = self.result, self.book
        delta = book.fmt("delta", r.delta, exact_decimals(r.delta))
        b, t, d = [book.index(f"shape[{k}]", n) for k, n in enumerate(r.shape)]
        tell(self, "输入 x 的形状 [B, T, D] = {shape}：\n前 {prefix} 个位置固定，只给后 {future} 个位置加上扰动 δ·u，"
             "δ = {delta}。", NARRATION["inputs"], shape=book.coords("shape", r.shape),
             prefix=self.prefix(), future=self.future(), delta=delta, b=b, t=t, d=d)
        rows = pictures.strip_rows(r.x, r.x2, lambda b, t: book.num(
            f"push[{b}][{t}]", r.push[b, t], zero_or(r.push[b, t]), size=SMALL,
            color=style.TEXT if t < r.prefix else style.MASK), r.x_limit)
        board = Board(book, ("x", "x′", "‖x′ − x‖"), rows, r.prefix)
        panel = VGroup(
            note(book, "δ = {}", delta, color=style.ACCENT, size=style.BODY_SIZE),
            note(book, "u：标准正态抽样，seed = {}", book.index("seed", r.seed), color=style.TEXT),
            note(book, "位置 t < {}：x′ = x", self.prefix(), color=style.TEXT),
            note(book, "位置 t ≥ {}：x′ = x + δ·u", self.prefix(), color=style.MASK),
            note(book, "每个位置一行，每格一个特征的颜色："),
            pictures.legend(book, "color", r.x_limit),
            note(book, "超出范围的值显示为两端的颜色"),
        ).arrange(DOWN, buff=0.32, aligned_edge=LEFT)
        board_then_rights(self, board, panel)

    # -- steps 2 and 3
    def runs(self, on: bool) -> None:
        r, book = self.result, self.book
        run, name = (r.on, "on") if on else (r.off, "off")
        worst = change(book, f"{name}.prefix_max", run.prefix_max, style.BODY_SIZE)
        slots = {"heads": book.index("heads", r.heads), "prefix": self.prefix(),
                 "prefix_max": slot(book, f"{name}.prefix_max", run.prefix_max)}
        if on:
            tell(self, "两次都经过因果多头注意力（H = {heads}）：\n前 {prefix} 个位置的输出逐项相同，最大前缀差恰为 {prefix_max}。"
                 if run.prefix_max == 0 else
                 "两次都经过因果多头注意力（H = {heads}）：\n前 {prefix} 个位置的输出变了，最大前缀差为 {prefix_max}，因果限制有漏洞。",
                 NARRATION["on.same" if run.prefix_max == 0 else "on.leak"], **slots)
        else:
            caption = ("关掉掩码再做一次：前 {prefix} 个位置的输出跟着未来一起变，最大变化为 {prefix_max}。"
                       if run.prefix_max > 0 else
                       "关掉掩码再做一次：这组输入下前 {prefix} 个位置的输出碰巧没变（最大变化 {prefix_max}），看不出掩码的作用。")
            self.step(caption, **named(caption, slots))
            self.narrate(NARRATION["off.moved" if run.prefix_max > 0 else "off.same"], slots["prefix_max"])
        self.clear_stage()
        rows = pictures.strip_rows(run.y, run.y2, lambda b, t: (
            change(book, f"{name}.change[{b}][{t}]", run.change[b, t], SMALL) if t < r.prefix else
            book.num(f"{name}.change[{b}][{t}]", run.change[b, t], zero_or(run.change[b, t]),
                     color=style.MUTED, size=SMALL)), run.limit)
        board = Board(book, ("y", "y′", "max |y′ − y|"), rows, r.prefix)
        b, t, c = run.worked                  # the largest prefix change (nearest the future), its feature
        where = {"batch": book.index(f"batch[{b}]", b), "position": book.index(f"position[{t}]", t)}
        title = note(book, "批 {batch} · 位置 {position}：两次的输出", **where, color=style.TRACK)
        gap = float(run.change[b, t])
        zoom = two_runs(book, title, ("y", "y′"), (f"{name}.y[{b}][{t}]", f"{name}.y2[{b}][{t}]"),
                        run.y[b, t], run.y2[b, t], gap, f"{name}.change[{b}][{t}]")
        self.narrate(NARRATION["made.moved" if gap > 0 else "made.same"], **where,
                     feature=book.index(f"feature[{c}]", c),
                     change=slot(book, f"{name}.change[{b}][{t}]", gap),
                     before=book.fmt(f"{name}.y[{b}][{t}][{c}]", run.y[b, t, c]),
                     after=book.fmt(f"{name}.y2[{b}][{t}][{c}]", run.y2[b, t, c]))
        mode = "因果掩码开 · 前缀最大差" if on else "因果掩码关 · 前缀最大差"
        words = note(book, mode, color=style.TEXT, size=style.BODY_SIZE)
        worked_board(self, board, zoom, words, worst, parts.change_made(book, board, zoom, b, t, c))

    # -- step 4
    def gradients(self) -> None:
        r, book = self.result, self.book
        slots = {"prefix": self.prefix(), "future": self.future(),
                 "future_grad": slot(book, "future_grad", r.future_grad),
                 "future_grad_off": slot(book, "future_grad_off", r.future_grad_off)}
        tell(self, "梯度检查：损失 L 只取前 {prefix} 个位置的输出；它对后 {future} 个位置输入的梯度恰为 {future_grad}。"
             if r.future_grad == 0 else
             "梯度检查：损失 L 只取前 {prefix} 个位置的输出；它对后 {future} 个位置输入的梯度却有 {future_grad}。",
             NARRATION["grad.zero" if r.future_grad == 0 else "grad.leak"], **slots)
        self.clear_stage()
        loss = note(book, "L = 前 {prefix} 个位置输出的平方和 = {loss}（掩码开）", prefix=self.prefix(),
                    loss=book.fmt("loss", r.loss), color=style.TEXT, size=style.BODY_SIZE)
        head = note(book, "L 对每个输入位置的梯度范数 ‖∂L/∂x‖")
        charts = bars.by_position(book, "grad", r.grad, r.prefix, 1.5, r.grad_max)
        off = slots["future_grad_off"]
        off_line = (note(book, "关掉掩码：未来位置的梯度范数最大为 {}", off, color=style.MASK)
                    if r.future_grad_off > 0 else note(book, "关掉掩码：未来位置的梯度这次也是 {}", off))
        self.toward(one_under_another(loss, head, charts, off_line, buff=0.35, most=1.2, left=False))
        self.play(Appear(loss), Appear(head))
        self.play(*[Create(c[0]) for c in charts], *[Appear(c[2]) for c in charts])
        self.play(*[FadeIn(bar, shift=UP * 0.2) for c in charts for bar in c[1]])
        self.play(Appear(off_line))

    # -- step 5
    def dropout(self) -> None:
        r, book = self.result, self.book
        p = book.fmt("p", r.p, exact_decimals(r.p))
        noise, shared = change(book, "drop.noise", r.drop_noise), change(book, "drop.shared", r.drop_shared)
        slots = {"p": p, "noise": slot(book, "drop.noise", r.drop_noise),
                 "shared": slot(book, "drop.shared", r.drop_shared)}
        if r.p == 0:
            self.step("dropout 的 p = {}：不丢弃任何项，两次运行本就相同；\np 大于零时，检查要关掉 dropout 或共用一个掩码。", p)
            self.narrate(NARRATION["dropout.off"], p)
        else:
            tell(self, "打开 dropout（p = {p}）：不扰动时两次输出也相差 {noise}；\n共用一个掩码（同一 seed）时差为 {shared}。"
                 if r.drop_noise > 0 else
                 "打开 dropout（p = {p}）：这两个掩码在前缀上恰好相同，差为 {noise}；\n一般两次的掩码不同，所以检查时要关掉 dropout 或共用掩码。",
                 NARRATION["dropout.on" if r.drop_noise > 0 else "dropout.same"], **slots)
        self.clear_stage()
        rows = [[note(book, "训练模式，两次运行"), note(book, "前缀最大差")],
                [note(book, "两个掩码 · 不扰动", color=style.TEXT), noise],
                [note(book, "两个掩码 · 扰动未来", color=style.TEXT), change(book, "drop.both", r.drop_both)],
                [note(book, "同一掩码（同一 seed）· 扰动未来", color=style.TEXT), shared],
                [note(book, "评估模式（关闭 dropout）· 扰动未来", color=style.TEXT),
                 change(book, "on.prefix_max", r.eval_check)]]
        head = note(book, "dropout p = {}，作用在 softmax 之后的权重上", p, color=style.ACCENT, size=style.BODY_SIZE)
        left = parts.mask_pictures(book, r)
        right = VGroup(head, table(rows)).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        in_turn(self, panels(left, right, split=0.42, top=False))

    # -- step 6
    def behaviour(self) -> None:
        r, book = self.result, self.book
        bug = change(book, "bug.prefix_max", r.bug.prefix_max)
        worst = slot(book, "bug.prefix_max", r.bug.prefix_max)
        case = "leak" if r.bug.prefix_max > 0 else "one" if r.heads == 1 else "same"
        self.step({"leak": "只看权重是否呈三角形不够：错误合并的权重同样是三角形，改未来后前缀输出却变了 {}。检查的是行为，不是图。",
                   "one": "只有一个头时，错误合并与正确合并相同，前缀差也是 {}；\n但权重图挡不住别处的泄漏：检查的是行为，不是图。",
                   "same": "错误合并这一次没有改变前缀输出（差 {}）；权重图本身说明不了行为：检查的是行为，不是图。"}[case], worst)
        self.narrate(NARRATION["behaviour." + case], worst)
        self.clear_stage()
        pic = pictures.picture(pictures.weight_colors(r.weights), room=2.8, most=0.9)
        left = VGroup(note(book, "批 {batch} · 头 {head} 的注意力权重", batch=book.index("batch[0]", 0),
                           head=book.index("head[0]", 0), color=style.TEXT),
                      pic, note(book, "空格：未来位置，权重最大为 {}", slot(book, "future_weight", r.future_weight)),
                      note(book, "错误合并的权重与它的最大差 {}", slot(book, "bug.weights_gap", r.bug_weights_gap))
                      ).arrange(DOWN, buff=0.25)
        rows = [[note(book, "实现"), note(book, "改未来后的前缀最大差")],
                [note(book, "正确合并：先转置回来再 reshape", color=style.TEXT),
                 change(book, "on.prefix_max", r.on.prefix_max)],
                [note(book, "错误合并：直接 reshape", color=style.TEXT), bug]]
        verdict = {"leak": "权重图相同，行为不同：改未来输入直接检验因果性", "one": "只有一个头：两种合并本就相同，都通过",
                   "same": "两种实现这一次都通过了：检验的是行为本身"}[case]
        right = VGroup(table(rows), note(book, verdict, color=style.ACCENT, size=style.BODY_SIZE))
        in_turn(self, panels(left, right.arrange(DOWN, buff=0.5, aligned_edge=LEFT), split=0.4, top=False))
