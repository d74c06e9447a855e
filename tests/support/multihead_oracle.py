"""4.7's oracle, from torch's own reshape/transpose on an arange tensor (never scenes.compute):
`oracle(inputs)` gives every label the clip can draw, `marks(inputs)` the tracked element's frames,
`legal_inputs(rng)` draws inputs at the limits of the rules (tests/clips/test_contract.py runs them over
the default, the presets and generated inputs); shared by tests/clips/test_multihead*.py."""
from itertools import product

import numpy as np
import torch

STEPS = ("start", "split", "transposed", "back", "merged", "wrong")
SWAP = (1, 2)        # the axes T and H of [B, T, H, d], as the test's own transpose calls name them
LEGAL = [(b, t, d, h) for b, t, d, h in product((1, 2), range(1, 5), range(1, 13), range(1, 5))
         if d % h == 0]


def tensors(b, t, d, h):
    """Each step's id tensor, made by torch's own reshape/transpose calls."""
    start = torch.arange(b * t * d).reshape(b, t, d)
    split = start.reshape(b, t, h, d // h)
    transposed = split.transpose(*SWAP)
    back = transposed.transpose(*SWAP)
    return {"start": start, "split": split, "transposed": transposed, "back": back,
            "merged": back.reshape(b, t, d), "wrong": transposed.reshape(b, t, d)}


def where(tensor, e):
    """The coordinate of id e in `tensor`."""
    return tuple(int(i) for i in (tensor == e).nonzero()[0])


def oracle(inputs):
    """Every label the clip can draw: ids at every index of every layout, their group headers,
    shapes, the tracked element's coordinates, d, counts, the error example's numbers."""
    (b, t, d), h, e = inputs["shape"], inputs["heads"], inputs["track"]
    steps = tensors(b, t, d, h)
    out = {"section": "4.7", "track": e, "heads": h, "head_dim": d // h, "count": b * t * d}
    for name, x in steps.items():
        out.update({f"{name}.shape[{k}]": n for k, n in enumerate(x.shape)})
        for idx in np.ndindex(tuple(x.shape)):
            out[name + "".join(f"[{i}]" for i in idx)] = int(x[idx])
        for i0, i1 in np.ndindex(tuple(x.shape[:2])):
            out[f"{name}.group[{i0}][{i1}][0]"], out[f"{name}.group[{i0}][{i1}][1]"] = i0, i1
        out.update({f"track.{name}[{k}]": v for k, v in enumerate(where(x, e))})
    q = steps["transposed"].float()                       # per-head scores: Q Kᵀ over [B, H, T, d]
    out.update({f"score_shape[{k}]": n for k, n in enumerate((q @ q.transpose(-2, -1)).shape)})
    out.update({f"transpose.dims[{k}]": v for k, v in enumerate(SWAP)})
    out["misplaced"] = int((steps["wrong"] != steps["merged"]).sum())
    ed, eh = inputs["error_d"], inputs["error_heads"]
    out.update({f"error.shape[{k}]": v for k, v in enumerate((b, t, ed))})
    out.update({"error.heads": eh, "error.split[0]": ed // eh, "error.split[1]": ed - eh * (ed // eh)})
    return out


def legal_inputs(rng):
    """Raw options at the limits: the largest shapes most often, every H that divides D,
    the first, last or any element (written eN, EN or N), the flag, any error example."""
    b = rng.choice((1, 2, 2))
    t = rng.choice((1, 4, 4, rng.randint(1, 4)))
    d = rng.choice((12, 12, rng.randint(1, 12)))
    h = rng.choice([k for k in range(1, 5) if d % k == 0])
    n = b * t * d
    e = rng.choice((0, n - 1, rng.randrange(n)))
    eh = rng.randint(2, 4)
    ed = rng.choice([x for x in range(1, 13) if x % eh])
    return {"shape": f"{b},{t},{d}", "heads": h, "track": rng.choice((f"e{e}", f"E{e}", str(e))),
            "wrong_merge": rng.random() < 0.5, "error_d": ed, "error_heads": eh}


def marks(inputs):
    """The tracked element's frame sits on the id of the element followed, at every layout:
    its coordinates there are where torch's view/transpose put that id."""
    (b, t, d), h, e = inputs["shape"], inputs["heads"], inputs["track"]
    labels = set()
    for name, x in tensors(b, t, d, h).items():
        labels.update(name + "".join(f"[{i}]" for i in idx) for idx in zip(*np.nonzero(x.numpy() == e)))
    return {"track": labels}


STEP_OF = {"start": 1, "split": 2, "transposed": 3, "merged": 4, "wrong": 5}   # the storyboard (SPEC.md)


def roles(inputs):
    """The colours the oracle gives (tests/support/contract.py colour_problems): the tracked id in
    the tracked colour at every layout, and the header of its group ([b, t, :] and so on, its
    coordinates in torch's tensors) too; with --wrong-merge, every other id the wrong merge puts
    where the right merge does not in the mask colour."""
    (b, t, d), h, e = inputs["shape"], inputs["heads"], inputs["track"]
    steps = tensors(b, t, d, h)
    entries, texts = {}, {}
    for name, x in steps.items():
        at = where(x, e)
        entries[name + "".join(f"[{i}]" for i in at)] = "track"
        head = at[:-1] if x.dim() == 3 else at[:-2]
        if name in STEP_OF:      # the header of the tracked group, at the step that shows this layout
            text = "[" + ", ".join(map(str, head)) + ", :" * (x.dim() - len(head)) + "]"
            texts.setdefault(STEP_OF[name], {})[text] = "track"
    if inputs.get("wrong_merge"):
        right, wrong = steps["merged"], steps["wrong"]
        for idx in np.ndindex(tuple(wrong.shape)):
            label = "wrong" + "".join(f"[{i}]" for i in idx)
            if int(wrong[idx]) != int(right[idx]) and label not in entries:
                entries[label] = "mask"
    return {"entries": entries, "step_texts": texts}
