"""The language of the words on screen, in the script and on the presenter page.

Chinese, the book's language, is the source: its templates are the message ids (as gettext's
msgids are). A clip's one-line captions stand in its storyboard; what the lecturer says in
each step, and the caption parts the data chooses, are its words, assets/lang/zh/<clip>.json,
keyed by step and case (`words("dropout")["narration"]["row.train"]`), so that a lecturer
can edit the script without the code. Each other language has one catalogue, the folder
assets/lang/<lang>/, one JSON file per source module ({"中文模板": "English template"}).
A template with CJK characters and no entry is an error in that language, never shown
untranslated. Numbers are formatted the same in every language; only the words around
them change.

    .venv/bin/python -m scenes.kit.text.lang en          # what the English catalogue still lacks
"""
from __future__ import annotations

import ast
import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
CATALOGUES = ROOT / "assets" / "lang"
LANGS = ("zh", "en")
SOURCE = "zh"
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
FONTS = {"en": "Noto Sans"}          # the Latin face of the Noto family the CJK font belongs to
ENGLISH_COUNTS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                  "fourteen fifteen sixteen seventeen eighteen nineteen twenty").split()

current = SOURCE


class MissingTranslation(KeyError):
    """A template that reaches the screen has no entry in the current language's catalogue."""

    def __str__(self) -> str:
        return str(self.args[0])


def use(lang: str) -> None:
    """Set the language of everything built from now on."""
    global current
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}: one of {', '.join(LANGS)}")
    current = lang


def has_cjk(text: str) -> bool:
    return bool(CJK.search(text))


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """Every entry of a language's catalogue (all files of its folder merged)."""
    merged: dict[str, str] = {}
    for path in sorted((CATALOGUES / lang).glob("*.json")):
        merged.update(json.loads(path.read_text("utf-8")))
    return merged


@lru_cache(maxsize=None)
def words(name: str) -> dict[str, Any]:
    """A clip's words in the book's language: assets/lang/zh/NAME.json, tables of templates
    keyed by step and case (a value may be a list of templates)."""
    return json.loads((CATALOGUES / SOURCE / f"{name}.json").read_text("utf-8"))


def templates(node: Any) -> list[str]:
    """Every template in a table of words, in file order."""
    if isinstance(node, str):
        return [node]
    values = node.values() if isinstance(node, dict) else node
    return [t for value in values for t in templates(value)]


def tr(template: str, lang: str | None = None) -> str:
    """The template in the current language. Templates without CJK (symbols, formulas,
    user labels) are the same in every language."""
    lang = lang or current
    if lang == SOURCE or not has_cjk(template):
        return template
    try:
        return catalogue(lang)[template]
    except KeyError:
        raise MissingTranslation(f"no {lang} translation for {template!r} "
                                 f"(add it to {CATALOGUES.relative_to(ROOT)}/{lang}/)") from None


def font(face: str) -> str:
    """The face for words: the CJK font in Chinese, its Latin sibling in other languages."""
    from scenes.kit.text import style
    return FONTS.get(current, face) if face == style.FONT else face


def count_word(n: int) -> str | None:
    """A small count as a word in the current language ("三", "three"), or None (use digits)."""
    if current == "en":
        return ENGLISH_COUNTS[n] if 0 <= n < len(ENGLISH_COUNTS) else None
    return None


# -- the message ids: every CJK string literal of scenes/ (docstrings aside)
def source_messages(root: Path = ROOT) -> dict[str, list[str]]:
    """module stem -> the CJK string literals it holds (what a catalogue must translate);
    a clip's words (assets/lang/zh/) belong to their file's stem, presets' titles to "presets"."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "scenes").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        skip = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and node.body and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                    and has_cjk(node.value) and node.value not in NOT_WORDS):
                found.setdefault(path.stem, [])
                if node.value not in found[path.stem]:
                    found[path.stem].append(node.value)
    for path in sorted((root / "assets" / "lang" / SOURCE).glob("*.json")):
        for text in templates(json.loads(path.read_text("utf-8"))):
            if has_cjk(text) and text not in found.setdefault(path.stem, []):
                found[path.stem].append(text)
    for path in sorted((root / "assets" / "presets").glob("*.json")):
        title = json.loads(path.read_text("utf-8")).get("title", "")
        if has_cjk(title):
            found.setdefault("presets", []).append(title)
    return found


# Literals with CJK characters that are data, not words: kit/text/numbers.py's count digits,
# kit/text/style.py's CJK ranges (reading time), kit/text/layout.py's break points for wrapping captions,
# pipeline/present/pdf.py's CJK ranges and the punctuation that never opens a line.
NOT_WORDS = frozenset({"零一二三四五六七八九十", "十", "\u3000", "\u9fff", "\uff00", "\uffef", "，；：。、,;:",
                       "\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef", "，。、；：！？）」』》〉】”’"})


def missing(lang: str) -> dict[str, list[str]]:
    have = catalogue(lang)
    return {stem: [m for m in msgs if m not in have] for stem, msgs in source_messages().items()
            if any(m not in have for m in msgs)}


if __name__ == "__main__":
    want = sys.argv[1] if len(sys.argv) > 1 else "en"
    only = sys.argv[2] if len(sys.argv) > 2 else None
    gaps = {k: v for k, v in missing(want).items() if only in (None, k)}
    print(json.dumps(gaps, ensure_ascii=False, indent=1))
    sys.exit(1 if gaps else 0)
