"""Builders for the causal-mask clip: grids whose −∞, exact-zero and NaN cells cannot be
mistaken for ordinary numbers, rows of grids that line up, and the choice of a layout
that keeps every number legible (or the signal to show one block at a time).

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Mobject, Rectangle, VGroup

from scenes.compute import masking as compute
from scenes.kit import style
from scenes.kit.glyphs import NumberText
from scenes.kit.grids import MatrixGrid
from scenes.kit.layout import content_center, fit
from scenes.kit.numbers import NumberBook, Shown

AREA = (13.0, 5.6)     # width, height a step fills (inside the content area)
GROW = 1.35            # small layouts grow at most this much
MIN_NUMBER_H = 0.17    # every number at least this tall (the contract asks 0.15): else one block a step
PREFER = 1.1           # another arrangement is taken when it is this much roomier
SHORT = 8              # token labels on grids: at most this many half-width characters, then "…"


def grid(book: NumberBook, name, values, decimals: int = 4, **kw) -> MatrixGrid:
    """A MatrixGrid whose −∞, NaN and masked zeros cannot pass for numbers, with room for its labels."""
    return MatrixGrid(book, name, values, decimals, marks=True, fit_col_labels=True, **kw)


def column(book: NumberBook, name: str, values, **kw) -> MatrixGrid:
    """One value per row, recorded as name[i] (row sums, one query's scores)."""
    values = np.asarray(values, float)
    if kw.get("hidden") is not None:
        kw["hidden"] = np.asarray(kw["hidden"], bool)[:, None]
    return grid(book, [[f"{name}[{i}]"] for i in range(len(values))], values[:, None], **kw)


def line(book: NumberBook, name: str, values, **kw) -> MatrixGrid:
    """One row of values, recorded as name[c] (a query, an output)."""
    values = np.asarray(values, float)
    return grid(book, [[f"{name}[{c}]" for c in range(len(values))]], values[None, :], **kw)


def side_by_side(grids: list[MatrixGrid], buff: float = 0.3) -> VGroup:
    """Grids placed left to right with their first rows on one line."""
    group = VGroup(*grids)
    for left, right in zip(grids, grids[1:]):
        right.shift(left.boxes[0][-1].get_right() + RIGHT * buff - right.boxes[0][0].get_left())
        right.shift(UP * (left.boxes[0][0].get_center()[1] - right.boxes[0][0].get_center()[1]))
    return group


def vector_text(book: NumberBook, name: str, values, decimals: int = 4) -> Shown:
    """'(a, b)' with each component recorded as name[c]."""
    parts = [book.fmt(f"{name}[{c}]", v, decimals) for c, v in enumerate(values)]
    return book.compose("(" + ", ".join("{}" for _ in parts) + ")", *parts)


def short(text: str) -> str:
    """A long token cut to fit above a narrow column ("Transformers" -> "Transfo…"); CJK counts twice."""
    weight = [2 if ord(ch) > 0x2E80 else 1 for ch in text]
    if sum(weight) <= SHORT:
        return text
    keep, used = 0, 0
    while used + weight[keep] <= SHORT - 1:
        used += weight[keep]
        keep += 1
    return text[:keep] + "…"


def proxy(values, decimals: int, label_w: float = 0.0, head: bool = True) -> Mobject:
    """An empty box the size a grid of these values will take: for choosing a layout before
    drawing the grid (a grid's numbers are recorded as soon as it is made)."""
    values = np.atleast_2d(np.asarray(values, float))
    longest = max(len(style.format_number(x, decimals)) for x in values.flat)
    cell = max(longest * char_width() + style.CELL_PAD, style.MIN_CELL_W)
    height = len(values) * style.MIN_CELL_H + (0.5 if head else 0.0)
    return Rectangle(width=values.shape[1] * cell + label_w, height=height, stroke_opacity=0, fill_opacity=0)


_CHAR = []


def char_width() -> float:
    """The advance of one character of the number font (monospaced)."""
    if not _CHAR:
        _CHAR.append(NumberText("0" * 10).width / 10)
    return _CHAR[0]


# ---------------------------------------------------------------- layout
def legible(book: NumberBook, mob: Mobject) -> float:
    """The least scale at which every number in `mob` stays MIN_NUMBER_H tall."""
    heights = [m.height for m in mob.get_family() if book.meta.get(id(m), {}).get("kind") == "number"]
    return MIN_NUMBER_H / min(heights) if heights else 0.0


def room(mob: Mobject, most: float = GROW) -> float:
    """The scale at which `mob` fills the step's area."""
    return min(AREA[0] / mob.width, AREA[1] / mob.height, most)


def fits(book: NumberBook, mob: Mobject) -> bool:
    return room(mob) >= legible(book, mob)


def best(group: Mobject, arrangements: list[Callable[[], object]], floor: float = 0.0) -> float:
    """Place the parts of `group` by each arrangement in turn and keep the roomiest, or an
    earlier one (the book's) that is nearly as roomy and still at least `floor`; its scale."""
    scales = []
    for arrange in arrangements:
        arrange()
        scales.append(room(group))
    pick = int(np.argmax(scales))
    for n in range(pick):
        if scales[n] * PREFER >= scales[pick] and scales[n] >= floor:
            pick = n
            break
    arrangements[pick]()
    return scales[pick]


def place(mob: Mobject) -> Mobject:
    """Scale into the step's area and centre in the content area."""
    return fit(mob, *AREA, most=GROW).move_to(content_center())


def stack(*parts: Mobject, buff: float = 0.4) -> VGroup:
    """Parts one under another, centred; empty parts take no room."""
    return VGroup(*[p for p in parts if p.family_members_with_points()]).arrange(DOWN, buff=buff)


def arrow(book: NumberBook) -> Mobject:
    return book.label("→", size=style.TITLE_SIZE, color=style.MUTED)


def linked(first: Mobject, link: Mobject, second: Mobject, names: RowNames | None = None,
           gap: float = 1.2) -> tuple[VGroup, list[Callable[[], object]]]:
    """(group, [beside, above]): `second` right of `first` with the arrow between, or below it
    (then with its own row names, when given)."""
    group = VGroup(first, link, second)
    link.turned = False

    def turn(down: bool) -> None:
        if link.turned != down:
            link.rotate(-PI / 2 if down else PI / 2)
            link.turned = down
        if names is not None:
            (names.attach if down else names.detach)(second)

    def beside() -> None:
        turn(False)
        VGroup(first, second).arrange(RIGHT, buff=gap)
        link.move_to((first.box_group.get_right() + second.get_left()) / 2).match_y(first.box_group)

    def above() -> None:
        turn(True)
        VGroup(first, second).arrange(DOWN, buff=gap * 0.75)
        link.move_to((first.get_bottom() + second.get_top()) / 2).match_x(first.box_group)
    return group, [beside, above]


def pair(first: Mobject, second: Mobject, gap: float = 0.8,
         edge=UP) -> tuple[VGroup, list[Callable[[], object]]]:
    """(group, [beside, above]) for two blocks, beside with their `edge` (tops) aligned, or stacked."""
    group = VGroup(first, second)
    return group, [lambda: group.arrange(RIGHT, buff=gap, aligned_edge=edge),
                   lambda: group.arrange(DOWN, buff=gap * 0.6)]


def left_edge(*mobs: Mobject) -> None:
    """Line up the left edges of stacked blocks."""
    for m in mobs[1:]:
        m.align_to(mobs[0], LEFT)


class RowNames(VGroup):
    """Row labels for a grid that needs them only when it stands alone or below another."""

    def __init__(self, book: NumberBook, target: MatrixGrid, names, color: str) -> None:
        super().__init__(*[book.label(n, color=color, size=style.LABEL_SIZE) for n in names])
        self.target = target

    def attach(self, owner: Mobject) -> None:
        for i, mob in enumerate(self):
            mob.next_to(self.target.boxes[i][0], LEFT, buff=0.15)
        owner.add(self)

    def detach(self, owner: Mobject) -> None:
        owner.remove(self)


def changed_proxy(book: NumberBook, check, names, delta: Mobject) -> VGroup:
    """Boxes the size of K′ and V′ (with the key names), above the note on delta."""
    label_w = max(book.label(n, size=style.LABEL_SIZE).width for n in names) + 0.15
    boxes = [proxy(check.k_changed, style.decimals_for(check.k_changed), label_w),
             proxy(check.v_changed, style.decimals_for(check.v_changed))]
    return stack(VGroup(*boxes).arrange(RIGHT, buff=0.4), delta, buff=0.35)


def cache_grids(book: NumberBook, c, diagonal: int, n_c: Shown, first: Shown) -> tuple:
    """The book's figure: 1 where a query may attend, a fresh triangle and the block after a cache."""
    fresh = grid(book, "fresh", c.fresh, 0, hidden=c.fresh == 0, heat="weights",
                 row_labels=[book.index(f"fresh_row[{i}]", i) for i in range(len(c.fresh))],
                 col_labels=[book.index(f"fresh_key[{j}]", j) for j in range(len(c.fresh))],
                 row_color=style.QUERY, col_color=style.KEY,
                 header="无缓存：每行看见对角线及其左边" if diagonal else "无缓存：每行只看见对角线左边")
    cached = grid(book, "cache_allowed", c.allowed, 0, hidden=c.allowed == 0, heat="weights",
                  row_labels=[book.index(f"cache_row[{n}]", p) for n, p in enumerate(c.positions)],
                  col_labels=[book.index(f"cache_key[{j}]", j) for j in range(c.allowed.shape[1])],
                  row_color=style.QUERY, col_color=style.KEY,
                  header=book.compose("已缓存 {} 个位置：新块第一行看见 {} 个", n_c, first))
    for j in range(c.cached):
        cached.col_labels[j].set_color(style.MUTED)
    cached.frame_row(0, style.TRACK)
    legend = book.text("{} 表示允许参与注意力" + ("；红框为遮住的位置。" if (c.allowed == 0).any() or (c.fresh == 0).any()
                                                  else "；这里没有遮住的位置。"),
                       book.index("allowed_legend", 1), size=style.LABEL_SIZE, color=style.MUTED)
    return fresh, cached, legend


# ---------------------------------------------------------------- words chosen by the data
def shrink_words(post, hidden) -> str:
    """What zeroing the future does to the row sums, as this input has it."""
    rows = np.flatnonzero(hidden.any(-1))
    if not len(rows):
        return "这里没有未来位置可置零"
    if len(post.shrunk_rows) == len(rows):
        return "行和小于一"
    if not len(post.shrunk_rows):
        return "被置零的概率都已下溢为零，行和仍为一"
    return "部分行的和小于一"


def rows_words(book: NumberBook, rows) -> Shown:
    """"第 3 行", or "七行" when several rows underflowed."""
    if len(rows) == 1:
        return book.compose("第 {} 行", book.index("underflow_row", rows[0]))
    return book.compose("{}行", book.word("underflow_row_count", len(rows)))


def route_words(book: NumberBook, r) -> tuple:
    """(template, *slots): how the renormalised rows compare with the −∞ route."""
    if len(r.post.underflow_rows):
        return "{}的可见概率全部下溢，除以剩余和得到 NaN，−∞ 路线不会", rows_words(book, r.post.underflow_rows)
    agreement = compute.route_agreement(r.route_gap)
    if agreement == "lost":
        return "每行除以剩余和后与 −∞ 路线相差 {}：下溢损失了精度", book.fmt("route_gap", r.route_gap)
    return ("每行除以剩余和后与 −∞ 路线" + ("相同" if agreement == "equal" else "只差舍入误差"),)


def route_note(book: NumberBook, r) -> VGroup:
    """Beside the renormalised grid: underflowed rows, the largest gap, rows NaN on both routes."""
    post, lines = r.post, []
    if len(post.underflow_rows):
        u = post.underflow_rows[0]
        lines += [book.text("{}：可见的概率全部下溢，", rows_words(book, post.underflow_rows), color=style.MASK),
                  book.text("剩余和为 {}，相除得到 NaN", book.fmt(f"post_row_sums[{u}]", post.row_sums[u], 0),
                            color=style.MASK),
                  book.label("−∞ 路线先遮住再 softmax，不会下溢", color=style.VALUE)]
    if (~np.isnan(post.renormalised).all(-1) & ~np.isnan(r.steps.weights).all(-1)).any():
        says = {"equal": "与 −∞ 路线的 A 相同", "rounding": "与 −∞ 路线的 A 只差舍入误差",
                "lost": "与 −∞ 路线的 A 不同：下溢损失了精度"}[compute.route_agreement(r.route_gap)]
        lines += [book.label(("其余各行" if len(post.underflow_rows) else "") + says, color=style.VALUE),
                  book.text("最大差：{}", book.fmt("route_gap", r.route_gap), color=style.ACCENT)]
    if len(r.nan_rows):
        lines.append(book.text("第 {} 行没有可见的键：两条路线都得到 NaN", book.index("nan_row", r.nan_rows[0]),
                               color=style.MUTED))
    return VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.2)


def diagonal_words(book: NumberBook, r, causal: bool) -> tuple:
    """(template, *slots) for the step that shows the other choice of diagonal."""
    d = r.variant_diagonal
    says = ("若打开因果掩码并把对角线也遮住（diagonal={}）：" if not causal else
            "把对角线也遮住（diagonal={}）：" if d == 0 else "保留对角线（diagonal={}）：")
    slots = [book.index("variant_diagonal", d)]
    if d == 1 and len(r.nan_rows):
        return says + "每个位置至少看见自己，第 {} 行的 NaN 消失。", *slots, book.index("nan_row", r.nan_rows[0])
    if d == 1:
        return says + "每行多看见一个位置：它自己。", *slots
    if len(r.variant_nan_rows):
        return (says + "第 {} 行没有可见的键，softmax 得到 NaN。", *slots,
                book.index("variant_nan_row", r.variant_nan_rows[0]))
    return says + "有缓存时每行仍有可见的键，不出现 NaN。", *slots


def check_fits(book: NumberBook, left: Mobject, right: VGroup, shifts: Mobject, z: Mobject, note: Mobject) -> bool:
    """The causality check: inputs beside the outputs, or above them, the roomiest way; does it read?"""
    page, low = VGroup(left, right), VGroup(*[m for m in (z, note) if m.family_members_with_points()])
    best(page, [lambda: (right.arrange(DOWN, buff=0.45), page.arrange(RIGHT, buff=0.8)),
                lambda: VGroup(VGroup(left, shifts).arrange(RIGHT, buff=0.8, aligned_edge=UP),
                               low.arrange(DOWN, buff=0.45)).arrange(DOWN, buff=0.4),
                lambda: (right.arrange(DOWN, buff=0.45), page.arrange(DOWN, buff=0.4))], legible(book, page))
    return fits(book, page)


# ---------------------------------------------------------------- narration
# What the lecturer says in each step (the caption is its one-line summary), from 4.4–4.5 and
# the lab. Keys name the case the data chose; a step's narration joins a few of them (said()).
NARRATION = {
    # step 1: the five steps of the tracked query
    "five.scale": "先算 {} 与每把键的点积，再除以 √dₖ = {}：向量越宽，点积的波动越大。",
    "five.raw": "先算 {} 与每把键的点积，得到匹配分数；这里不除以 √dₖ，分数原样进入下一步。",
    "five.some": "掩码在 softmax 前把不许访问的位置设为 −∞，{} 把键里它只能看见 {} 把。",
    "five.none": "因果掩码只遮住查询之后的位置，而这 {} 把键都不在它之后，掩码不改变任何分数。",
    "five.open": "这里关闭了因果掩码，{} 把键全部可见，掩码后的分数与上一列相同。",
    "five.nan": "掩码在 softmax 前把不许访问的位置设为 −∞，而这一行的 {} 把键全被遮住。"
                "整行都是负无穷，softmax 得到 NaN，输出也是 NaN；检查时要确认每一行还留有可见的键。",
    "out.hidden": "softmax 后被遮住的键权重为零，输出 z{} 是可见值向量的加权平均。",
    "out.all": "softmax 把分数变成和为一的权重，输出 z{} 是值向量的加权平均。",
    # step 2: M (first sentences) and A (last sentences); one page says both
    "mask.some.m": "未来内容正是模型要预测的答案，不能提前参与计算。M 用 triu(diagonal={}) 标出未来位置，"
                   "填入 −∞，在 softmax 前加到分数上。",
    "mask.diag.m": "未来内容正是模型要预测的答案，不能提前参与计算。M 用 triu(diagonal={}) 标出未来位置，"
                   "这里连对角线也标上，填入 −∞，在 softmax 前加到分数上。",
    "mask.some.a": "由于 e 的负无穷次方为零，被遮住的位置得到零概率。剩余位置自动重新归一化，每行和仍为一。",
    "mask.nan.m": "M 用 triu(diagonal={}) 标出要遮的位置，填入 −∞，这里连对角线也遮住了。"
                  "于是第 {} 行的每个位置都是 −∞，没有可见的键。",
    "mask.nan.a": "e 的负无穷次方全为零，这一行 softmax 的分母为零，得到 NaN。"
                  "所以检查时既要核对掩码形状，也要确认每一行是否还留有允许访问的位置。",
    "mask.none.m": "加性掩码只在查询之后的位置放 −∞。这里没有哪把键位于查询之后，triu(diagonal={}) 什么也没标出，M 全为零。",
    "mask.none.a": "softmax 照常进行，没有权重被遮住。每行和为一，与不加掩码时完全相同。",
    "mask.open.m": "这里关闭了因果掩码，M 全为零，每个查询都能看见全部的键，包括它之后的位置。"
                   "做下一 token 预测时不能这样：未来内容正是要预测的答案。",
    "mask.open.a": "softmax 对全部的键归一化，每行和为一，没有哪个权重被强制为零。"
                   "打开因果掩码后，未来位置会先加上 −∞，得到零概率。",
    # step 3: softmax first, then zero the future
    "route.none": "另一条路是先 softmax，再把未来位置的概率置零并重新归一化。这里没有未来位置，置零什么也不改变，P 就是 A。",
    "route.none.open": "另一条路是先 softmax，再把未来位置的概率置零并重新归一化。掩码关闭时没有要置零的位置，"
                       "两条路完全相同，P 就是 A。",
    "route.intro": "另一条路先对全部的键做 softmax，再把被遮住位置的概率置零。",
    "route.p": "先对全部的键做 softmax，得到 P：每行在全部的键上和为一，未来位置也参与了归一化。"
               "这些未来概率随后就要丢弃，却先被算了出来。",
    "route.zero": "再把被遮住位置的概率置零。",
    "shrink.all": "丢掉的概率大于零，剩下的权重不再和为一，右列是每行的剩余和。",
    "shrink.some": "部分行丢掉了概率，剩余和小于一；其余行被置零的概率已下溢为零。",
    "shrink.none": "被置零的概率都已下溢为零，每行剩余和仍为一。",
    "route.equal": "每行再除以剩余和，就与 −∞ 路线的 A 完全相同",
    "route.rounding": "每行再除以剩余和，与 −∞ 路线的 A 只差舍入误差：精确算术下两者相同",
    "route.lost": "每行再除以剩余和：精确算术下应与 A 相同，这里却差了 {}，下溢损失了精度",
    "route.underflow": "每行再除以剩余和时，{}的可见概率已全部下溢，零除以零得到 NaN，−∞ 路线不会",
    "route.nan": "；第 {} 行没有可见的键，两条路线都得到 NaN",
    "route.end": "。",
    "route.why": "实际程序还要顾及数值稳定性，也不必先算随后就要丢弃的未来概率。",
    # step 4: the other diagonal
    "diag0.nan.m": "书中的练习：把对角线也遮住（diagonal={}），开头的行会怎样？M 的对角线也成了 −∞，第 {} 行的每个位置都被遮住。",
    "diag0.nan.a": "e 的负无穷次方全为零，普通 softmax 得到 NaN。检查时既要核对掩码形状，也要确认每一行还留有可访问的位置。",
    "diag0.cached.m": "用因果掩码并把对角线也遮住（diagonal={}）：M 的对角线也成了 −∞。这里前面还有已缓存的位置，每行仍留有可见的键。",
    "diag0.cached.a": "所以 softmax 不会出现 NaN，每行和为一。没有缓存时，同样的掩码会让开头的行整行都是 −∞。",
    "diag1.nan.m": "回到书中的做法：保留对角线（diagonal={}），让当前位置能看见自己。第 {} 行尤其依赖这个条件，它前面没有别的位置。",
    "diag1.nan.a": "每个位置至少看见自己，NaN 消失，每行和为一。padding mask 与因果 mask 叠加后也可能产生空行，"
                   "检查时仍要确认每一行还有可见的键。",
    "diag1.cached.m": "回到书中的做法：保留对角线（diagonal={}），让当前位置能看见自己。和遮住对角线相比，每行都多了它自己这把可见的键。",
    "diag1.cached.a": "softmax 后每行和仍为一，没有空行。书中的因果掩码都保留对角线；没有缓存时，开头的行只靠它才有可见的键。",
    # step 5: the causality check
    "check.ask": "掩码写好后，怎样确认模型没有偷看未来？",
    "check.change": "只改 K、V 的最后一行（第 {} 行），各加上 {}。",
    "check.rule": "如果因果限制正确，看不见这一行的查询，输出就不应改变。",
    "on.hidden": "有掩码时，{} 看不见第 {} 行，这一行的权重恰为零，输出一点也没变。",
    "on.flat": "有掩码时 {} 也看得见第 {} 行，但这一行分到的权重太小，改动在双精度里没有留下痕迹。",
    "on.moved": "{} 本就看得见第 {} 行：它不是这个查询的未来，所以有掩码时输出也变了 {}。",
    "on.nan": "有掩码时 {} 没有可见的键，输出本就是 NaN，无从比较。",
    "off.leak": "关掉掩码，它就能看见这一行，输出随之变了 {}：未来的改动影响了过去。",
    "off.also": "关掉掩码后它同样会变，最大变化为 {}。",
    "off.moved": "关掉掩码后它看得见全部的键，输出变了 {}。",
    "off.same": "关掉掩码后它看得见这一行，输出却没有变化：这一行分到的权重太小，改动在双精度里没有留下痕迹。",
    "off.flat": "关掉掩码后也是如此，输出同样没变。",
    "off.nan": "关掉掩码后输出是 NaN，同样无从比较。",
    "check.why": "这样的测试直接检查未来输入会不会影响过去的输出，比只看注意力矩阵是不是三角形更可靠。",
    # step 6: the cache view
    "cache.open": "本例关闭了因果掩码，这里看打开它时的情形。",
    "cache.diag1": "图中 {} 表示允许参与注意力，左图没有缓存，每行只看见对角线及其左边。"
                   "右图是生成时的缓存：已有 {} 个位置时，新块第一行可看见 {} 个位置，即缓存加上它自己。"
                   "三角形整体右移，而不是从第一列重新开始画。",
    "cache.diag0": "图中 {} 表示允许参与注意力；左图连对角线也遮住，开头的行什么也看不见。"
                   "右图已有 {} 个位置时，新块第一行可看见 {} 个位置，正好是全部缓存。三角形整体右移，而不是从第一列重新开始画。",
    "cache.full": "图中 {} 表示允许参与注意力。新块只有当前位置，排在已缓存的 {} 个位置之后，能看见全部 {} 个位置，"
                  "包括它自己，所以没有遮住的格子。",
}


def said(*parts: tuple) -> tuple:
    """(template, *slots) of several NARRATION entries said one after another; each part is
    (key, *slots)."""
    return ("".join(NARRATION[key] for key, *_ in parts), *[s for _, *slots in parts for s in slots])


def route_say(book: NumberBook, r) -> list[tuple]:
    """Step 3's last sentences as (key, *slots): the renormalised rows against the −∞ route,
    the rows NaN on both, why the book masks first."""
    if len(r.post.underflow_rows):
        parts = [("route.underflow", rows_words(book, r.post.underflow_rows))]
    elif compute.route_agreement(r.route_gap) == "lost":
        parts = [("route.lost", book.fmt("route_gap", r.route_gap))]
    else:
        parts = [("route." + compute.route_agreement(r.route_gap),)]
    if len(r.nan_rows):
        parts.append(("route.nan", book.index("nan_row", r.nan_rows[0])))
    return parts + [("route.end",), ("route.why",)]


def shrink_key(post, hidden) -> str:
    """Which shrink sentence fits (the same cases as shrink_words)."""
    rows = np.flatnonzero(hidden.any(-1))
    return ("shrink.all" if len(post.shrunk_rows) == len(rows) else
            "shrink.none" if not len(post.shrunk_rows) else "shrink.some")
