"""Sentences mean what their source means (tests/kit/test_lang_meaning.py): in every catalogue
entry with two or more slots, each slot keeps its role in English.

The source names each slot by what it is ({cached}, {seen}, {merged}, {wrong}); WORDS says, once
for each slot name, the English words that say that role ("cache", "sees", "correct", "lands").
Each entry is filled with a mark per slot (⟦0⟧, ⟦1⟧: no letters), and a slot is tied where one of
its words stands beside its own mark (within NEAR characters, nearer than any other mark; a word
binds to the mark after it first, as English names a value before it: "row {row}", "p = {p}"), or
where "SYMBOL = {slot}" names it as the source's one slot of that symbol (a symbol naming another
slot than the source's is a problem itself). Every slot must be tied: a translation that swaps two
slots ("moves from its correct {wrong} to {merged}") leaves each beside the other's word, untied.
Where the order of the slots is the meaning (a formula, a chain of places, a list), ORDERED keeps
the source's order instead. UNTIED: a heading said wherever the sentence puts it."""
import re

NAMED = re.compile(r"\{([a-z][a-z0-9_]*)\}")
NEAR = 16           # characters between a role word and the mark it stands beside
AHEAD = 3           # a word after a mark binds to it as if this much farther

# What each slot is, in English words (lowercase: any word starting so, any case; otherwise the
# exact token). Written from the slots' names and the chapter, not from the catalogue.
WORDS = {
    "counts": ("per row",), "side": ("padding",), "last": ("to",),
    "after": ("after",), "before": ("before", "from"), "change": ("change",),
    "allowed": ("means", "allowed", "attend"), "b": ("batch", "B"),
    "t": ("T", "positions", "rows", "position", "long"), "d": ("embedding", "dimension", "d"),
    "batch": ("batch",), "position": ("position",), "head": ("head",), "feature": ("feature",),
    "bit": ("bit",), "entry": ("entry", "becomes", "gives"),
    "book_d_out": ("d_out", "per head", "originally"), "book_width": ("result",), "cached": ("cache",),
    "seen": ("sees", "see"), "visible": ("visible", "see"), "keys": ("keys", "length"),
    "count": ("masks", "elements", "unique", "all"), "listed": ("listed", "lists", "most probable"),
    "delta": ("added", "adding", "δ", "plus"), "row": ("row", "cell of"),
    "rows": ("rows", "row", "vectors", "input", "is a", "K is", "V is", "Q is", "are", "grid is"),
    "cols": ("column", "columns", "by"), "d_in": ("D_in", "row count", "by"),
    "d_k": ("dₖ", "width", "column count"), "d_v": ("d_v", "value", "values"),
    "d_model": ("D", "D_o", "width", "here"),
    "heads": ("H", "heads", "head", "merges", "creates", "divided by"),
    "head_dim": ("d", "width", "per head", "that is", "last size"), "diagonal": ("diagonal",),
    "triu": ("triu", "diagonal"), "old": ("change", "with", "ones"), "new": ("to", "masks the diagonal"),
    "exercise": (),
    "one": ("one", "keeps", "sums to", "sum to", "add up to", "above", "below", "equal", "(", "back to", "probability"),
    "zero": ("zero", "drops", "dropped", "stays", "stay", "still", "probability", "become", "were", "weight", "are"),
    "p": ("p is", "p =", "with p", "p of"), "p_eff": ("effective",), "prob": ("probability",),
    "prob_total": ("add up", "together"), "expected_sum": ("expected", "need not be", "expectation"),
    "weight_sum": ("sums to",), "train_sum": ("sums to", "training"), "eval_sum": ("sums to", "still"),
    "draws": ("draws", "draw"), "gap": ("up to", "gap", "differ", "off", "down to"),
    "first_gap": ("first draw", "after the first"),
    "scale": ("√dₖ", "divided", "dividing", "multiplied", "times", "×", "scaled", "which is", "divided by", "by", "divisor is"),
    "score": ("score", "scoring", "exp", "stay", "power", "are", "summed"),
    "scaled": ("becomes", "scaled", "gives", "still", "it is"), "name": ("take", "weight of", "only visible"),
    "weight": ("weight", "times", "count is", "gives", "is"), "mean": ("expectation",),
    "query": ("query", "queries", "product of", "products of", "with the mask"), "key": ("key", "take"),
    "q": ("q", "query", "=", "shape", "to get"),
    "track": (":", "moves", "happens", "lands", "returns", "goes", "has", "but", "starts", "stays", "would"),
    "merged": ("correct", "belongs", "returns to", "merge", "merged", "merging", "merges", "axis:", "axis, giving", "into"),
    "wrong": ("wrong", "land", "lands", "stay at", "stays at", "to", "at", "dim="),
    "split": ("split", "viewed", "from"), "transposed": ("to", "still", "transposed"), "back": ("back",),
    "misplaced": ("misplaced", "out of place", "red", "but"), "start": ("from batch", "[b, t, c]"),
    "c": ("c", "feature"), "h": ("h",), "r": ("r",), "quotient": ("÷", "gives", "divided", "is"),
    "remainder": ("remainder",), "prefix": ("t <", "before position", "fixed", "identical"),
    "future": ("remaining", "last", "future"),
    "prefix_max": ("largest", "max", "up to", "change is", "is exactly"),
    "future_grad": ("gradient", "exactly", "reaches", "is"),
    "future_grad_off": ("mask off", "value is", "reaches"), "noise": ("differ", "change"),
    "shared": ("shared", "share", "gives", "exactly"), "forward": ("forward", "differ"),
    "grad": ("gradient",), "bits": ("float",), "eps": ("eps", "epsilon", "is"), "seed": ("seed",),
    "shape": ("shape", "output", "giving", "="), "factor": ("Linear", "times"),
    "chunks": ("chunk", "into", "pieces", "by"), "qkv": ("qkv", "three", "projections", "which is"),
    "per_head": ("heads", "split", "giving"), "scores": ("scores", "shape", "gives", "="),
    "context": ("context", "V, giving"),
    "out": ("proj", "output", "outputs", "component", "projection", "rows", "is each"),
    "mask": ("mask", "shape"), "positions": ("at",), "masked": ("hides", "future"),
    "width": ("width", "wide", "into", "heads ×", "by"),
    "d_out": ("d_out", "each head", "should be", "needs", "both"), "first": ("first", "into", "stores"),
    "second": ("second", "weights of", "matrices of", "and"), "third": ("third",), "fourth": ("fourth",),
    "fifth": ("fifth",), "raw": ("unscaled", "largest weight is"),
    "peak": ("weight", "before and after", "shown"), "pick": ("goes to", "exactly"),
    "z": ("Σ", "component of", "so", "is almost"), "output": ("blend",), "self_score": ("length",),
    "dim_last": ("makes", "along"), "dim_rows": ("raises", "gives row sums"), "right": ("dim",),
    "samples": ("unit", "pairs"), "var": ("variance", "it is", "back at", "still"), "low": ("from",),
    "high": ("to",), "exp": ("is",), "total": ("sum", "parameters"), "alpha": ("weight",), "own": ("exp",),
    "out_weight": ("weight", "plus"), "out_bias": ("bias", "plus"), "coefficient": ("times",),
    "power": ("power",), "projections": ("projections", "bias", "make"), "square": ("shape",),
    "model": ("size", "at"), "copied_d_out": ("d_out", "copy", "copying"), "copied_out": ("times", "becomes"),
    "wrapper_heads": ("heads", "head"), "wrapper_d_out": ("width", "each"), "wrapper_out": ("concatenation",),
    "mha_d_out": ("total", "all heads"), "mha_heads": ("heads", "split"), "chapter": ("chapter",),
    "t_axis": ("transpose(",), "h_axis": (",",), "concat_shape": ("gives", "concatenat"),
    "head_shape": ("each head", "outputs"), "keep_visible": ("sees",), "keep_weight": ("weight",),
    "i": ("row", "query", "mask", "draw", "entry"), "j": ("column", "key", "bit"), "option": ("--",),
    "text": ("=", "element e"), "sources": ("from",), "op": ("by",), "step": ("step",), "n": ("more",),
    "loss": ("=",), "shift": ("changes by",), "x": ("x",), "rule": (":",), "labels": ("drawn",),
    "why": ("(",), "chain": (":",), "axes": ("here", "with"),
}
UNTIED = {"exercise"}     # a heading (Exercise 3.1) said wherever the sentence puts it
ORDERED = {   # the source's slot order is the meaning: clauses or a chain of places, each in its turn
    "叠加因果掩码后第 {first} 到 {last} 行没有可见的键，softmax 得到 NaN",
    "因果掩码关闭，第 {first} 到 {last} 行仍没有可见的键，softmax 得到 NaN",
    "对照：pad 放在右边，每行可见的键 {counts}，第 {first} 到 {last} 行为空",
    "对照：pad 放在左边，每行可见的键 {counts}，第 {first} 到 {last} 行为空",
    "数一数每行还剩几把可见的键：第 {first} 到 {last} 行是零，整行全是负无穷，普通 softmax 会出现 NaN。",
    "数一数每行还剩几把可见的键：第 {first} 到 {last} 行是零，整行全是负无穷，普通 softmax 会出现 NaN；保留对角线也救不了它们，它们自己的位置就是 pad。",
    "{side}；{result}。",
    "{label} = {text}（{side} padding，共 {pads} 个 pad：键 {j} 是 pad，每个查询都看不见它）",
    "{label} = {text}（{side} padding，共 {pads} 个 pad：键 {j} 不是 pad，加 0）",
    "{h}、{t}",
    "{rows}、{row}",
    "：{x} · {w} → {q}",
    "位置 {first}、{second}",
    "{track}：{transposed}",
    "直接给定的 {first}；{second}。",
    "位置 {first}、{second}、{third}",
    "{track}：{transposed} → {back}",
    "丢弃 {dropped} / {visible} 个可见权重",
    "位置 {first}、{second}、{third}、{fourth}",
    "另一条路：先 softmax 再把未来置零，{cut}；{route}。",
    "保留项乘以 {one}/({one}−p)，丢弃项为 {zero}：{sums}",
    "位置 {first}、{second}、{third}、{fourth}、{fifth}",
    "可见的键 {visible} / {keys}    {total}",
    "每行再除以剩余和：精确算术下应与 A 相同，这里却差了 {gap}，下溢损失了精度{nan}。",
    "训练模式 · p = {p} · 保留项 × {one}/({one}−p) = {scale}",
    "每头 d = D_o / H = {d_model} / {heads} = {head_dim}",
    "三项相加：{qkv} 加 {out_weight} 再加 {out_bias}，得 {total}。",
    "每行再除以剩余和时，{rows}的可见概率已全部下溢，零除以零得到 NaN，−∞ 路线不会{nan}。",
    "Q、K、V：三个 D×D 投影，无偏置：{projections} × {weight} = {qkv}。",
    "拼接宽度 = num_heads × d_out = {heads} × {d_out} = {width}",
    "[B, T, D] = {shape}，H = {heads}：D ÷ H = {quotient} 余 {remainder}",
    "两种 softmax 并排画在这一页：左边沿 dim={dim_last} 归一化，右边沿 dim={dim_rows} 归一化。",
    "{exercise} {intro}Q、K、V 三个投影不带偏置，输出投影 out_proj 带偏置。这个模块一共有多少个可训练参数？",
    "{track}：{split} → {transposed}，t 与 h 互换；每组 [b, h, :, :] 是一个头的 [T, d]",
    "原来每头 d_out = {book_d_out}：拼接宽度 {heads} × {book_d_out} = {book_width}",
    "答案：拼接宽度 = 头数 × 每头 d_out，{width} = {heads} × {d_out}，所以每头 d_out = {d_out}。",
    "{track}：{split} → {transposed}，t 与 h 相等，互换后坐标不变；每组 [b, h, :, :] 是一个头的 [T, d]",
    "{track}：c = {c}，d = {head_dim} → h = floor(c/d) = {h}，r = c mod d = {r} → {split}",
    "以批 {batch} 的位置 {position} 为例：两次的输出在每个特征上都相同，比如特征 {feature}：|{after} − {before}| = {change}。",
    "以批 {batch} 的位置 {position} 为例：两次的输出在特征 {feature} 上相差最大，|{after} − {before}| = {change}，这也是前缀上最大的差。",
    "第二种检查看梯度。损失 L 只取前 {prefix} 个位置输出的平方和；它对后 {future"
    "} 个位置输入的梯度最大为 {future_grad}，不为零，说明早期的损失依赖未来输入。关掉"
    "掩码时，这个值为 {future_grad_off}。",
    "第二种检查看梯度。损失 L 只取前 {prefix} 个位置输出的平方和，对每个输入位置求梯度，"
    "柱子是梯度的范数。后 {future} 个位置的梯度恰为 {future_grad}：早期位置的"
    "损失不依赖未来输入。关掉掩码时，未来位置的梯度最大为 {future_grad_off}。",
    "diagonal={new} 连对角线也遮住了。第{row}行原本只能看见它自己，现在它的可见键"
    "数是 {visible}，整行都是负无穷，普通 softmax 得到 NaN。对照 diagon"
    "al={old}：第一行可见 {keep_visible} 个键，权重为 {keep_weigh"
    "t}。所以检查掩码时，既要核对形状，也要确认每一行是否还留有允许访问的位置。",
    "nn.Linear 把权重存成 d_out 乘 d_in，计算时用 x 乘权重的转置。左边是 {"
    "second} 的 W_query.weight，形状 {out_shape}；转置之后就是右边"
    " {first} 的 W_query，形状 {in_shape}，高亮的第一行变成了第一列。W_"
    "key 和 W_value 也同样转置后交给 {first}，两版从此用同一组权重。",
    "上游最早的 MultiHeadAttentionWrapper 实例化多个独立的头再拼接，d_o"
    "ut 指每个头的宽度：{wrapper_heads} 个头各输出 {wrapper_d_out}"
    "，拼接后是 {wrapper_out}。后来的 MultiHeadAttention 中 d_o"
    "ut 指所有头的总宽度 {mha_d_out}，一次投影后拆成 {mha_heads} 个头。这"
    "两个参数虽然同名，指的却不是同一个宽度；若把 d_out = {copied_d_out} 直接"
    "照搬给 Wrapper，输出就变成 {copied_out}，宽度扩大 {factor} 倍。",
}


FORMULA = re.compile(r"(\S+)\s*=\s*\{([a-z][a-z0-9_]*)\}")


def formulas(template):
    """SYMBOL = {slot}: the symbol (the token before "=": dₖ, D/H, √dₖ, p) -> the slots it names."""
    out = {}
    for m in FORMULA.finditer(template):
        symbol = re.split(r"[(（,，:：;；]", m.group(1))[-1]
        out.setdefault(symbol, set()).add(m.group(2))
    return out


def marked(template, slots):
    """The template with each slot a mark ⟦n⟧ (n: the slot's place in `slots`): no letters, so no
    role word is found inside a mark."""
    return NAMED.sub(lambda m: f"⟦{slots.index(m.group(1))}⟧", template)


def occurrences(text, word):
    if re.fullmatch(r"[a-z][a-z ]*", word):
        pattern = r"(?<![A-Za-z])" + re.escape(word)
        return [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]
    pattern = (r"(?<![A-Za-z_])" if word[0].isalnum() else "") + re.escape(word) + \
        (r"(?![A-Za-z_])" if word[-1].isalnum() else "")
    return [m.span() for m in re.finditer(pattern, text)]


def beside(text, span, marks):
    """The slot of the mark nearest the word at span, within NEAR characters, or None. English
    names a value before it ("row {row}", "p = {p}"): a word binds to the mark after it before
    the mark just ahead of it ("{t}, B = {b}": B is b's), by AHEAD characters."""
    best = None
    for start, end, slot in marks:
        gap = span[0] - end + AHEAD if end <= span[0] else start - span[1] if span[1] <= start else 0
        if gap <= NEAR and (best is None or gap < best[0]):
            best = (gap, slot)
    return best and best[1]


def meaning_problems(source, said, words=WORDS):
    """What the English `said` makes of the source's slots: a slot's word beside another slot, and
    an entry whose slots are too few tied to their words to tell a swap."""
    slots = sorted(set(NAMED.findall(source)) | set(NAMED.findall(said)))
    text = marked(said, slots)
    marks = [(m.start(), m.end(), slots[int(m.group(1))]) for m in re.finditer(r"⟦(\d+)⟧", text)]
    out, tied = [], set()
    if marks and marks[0][0] == 0 and source.startswith("{" + marks[0][2] + "}"):
        tied.add(marks[0][2])          # the slot both open with: the head ({exercise}: …, {label} = …)
    source_formulas = formulas(source)
    for symbol, named in formulas(said).items():
        if symbol in source_formulas:
            if named <= source_formulas[symbol]:
                tied.update(named if len(source_formulas[symbol]) == 1 else ())     # one slot: unambiguous
            else:
                out.append(f"{symbol} = {sorted(named)} in {said!r}, the source says {symbol} = "
                           f"{sorted(source_formulas[symbol])}")
    for slot in sorted(set(NAMED.findall(source))):
        for word in words.get(slot, ()):
            for span in occurrences(text, word):
                at = beside(text, span, marks)
                if at == slot:
                    tied.add(slot)
    if source in ORDERED:
        order = [slot for _, _, slot in marks]
        if order != NAMED.findall(source):
            out.append(f"the slots of {said!r} are not in the source's order {NAMED.findall(source)}")
    elif set(NAMED.findall(source)) - tied - UNTIED:
        out.append(f"{sorted(set(NAMED.findall(source)) - tied - UNTIED)} are tied to no word of theirs in {said!r} (WORDS)")
    return out


def swapped(said, a, b):
    """`said` with slots {a} and {b} in each other's places (every occurrence)."""
    return re.sub(r"\{(%s|%s)\}" % (a, b), lambda m: "{" + (b if m.group(1) == a else a) + "}", said)
