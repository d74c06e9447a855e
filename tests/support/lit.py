"""What is lit when a number lands (scenes/kit/motion/derive_lit.py): each swept or derived entry
records `lit`, the labels inside the source frames on screen as it landed, read back from the
scene's mobjects at that frame. Checked against the number's provenance (the manifest's `from`,
which each clip's tests check against torch's Jacobian):

    lit_problems(manifest) -> landings lit by what is not their source, sources on screen left
                              dark, a sweep whose screen differs from its record, a landing with
                              no `lit` at all

A lit number must be one of the landing number's sources. A lit text (a row's name, a formula a
constant is copied from) must draw one of them, or only indices (x₀ names the row its components
come from); its other numbers are passed over."""


def _index_labels(manifest):
    """Labels recorded as whole numbers with no decimals (indices, counts)."""
    return {r["label"] for r in manifest["numbers"] if r.get("decimals") is None and isinstance(r.get("value"), int)}


def lit_problems(manifest):
    out, indices = [], _index_labels(manifest)
    for rec in manifest["numbers"]:
        d = rec.get("derivation")
        if not d or "skipped" in d:
            continue
        sweep, derived = d.get("motion") == "sweep", "expression" in d
        if not (sweep or derived):
            continue
        label = rec["label"]
        if "lit" not in d:
            out.append(f"{label}: lands with no record of what is lit")
            continue
        lit, prov = d["lit"], set(rec.get("from") or ())
        wrong = [x for x in lit if x not in prov]
        if wrong:
            out.append(f"{label}: lands while {wrong} are lit, not its sources {sorted(prov)}")
        for text in d.get("lit_texts", ()):
            if not (set(text) & prov or set(text) <= indices):
                out.append(f"{label}: lands while a text drawing {text} is lit, none of them its source")
        if sweep and set(lit) != set(d["from"]):
            out.append(f"{label}: lands while {sorted(lit)} are lit on screen, its record names {sorted(d['from'])}")
        if derived:
            flown = {f["from"] for f in d.get("flights", ()) if f.get("kind") == "number"}
            dark = sorted(flown & prov - set(lit))
            if dark:
                out.append(f"{label}: lands with its sources {dark} on screen but dark")
    return out
