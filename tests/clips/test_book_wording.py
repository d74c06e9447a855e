"""The book verbatim: each clip's Chinese section title is the chapter's own heading (read from
the chapter text, assets/book/chapter04.txt, a copy of the seed), digits the book prints in it
drawn as digits through the book's constant slot."""
from conftest import ROOT, build
from scenes.pipeline.jobs.registry import specs

BOOK = ROOT / "assets" / "book" / "chapter04.txt"
SEED = ROOT.parent / "shared" / "seed" / "000_3bca01d1a9d18267.txt"


def headings():
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1].strip()
            for line in BOOK.read_text("utf-8").splitlines() if line[:2] == "4." and " " in line}


def test_the_copy_of_the_chapter_is_the_seed():
    if SEED.exists():
        assert BOOK.read_text("utf-8") == SEED.read_text("utf-8")


def test_each_section_title_is_the_books_heading():
    book = headings()
    wrong = {s.section: s.heading("zh") for s in specs().values() if book.get(s.section) != s.heading("zh")}
    assert wrong == {}, {k: (v, book.get(k)) for k, v in wrong.items()}


def test_the_dropout_title_on_screen_prints_the_books_digit():
    built = build("dropout")
    title = next(it for it in built.scene.layout[0]["items"] if it["kind"] == "title")
    assert title["text"] == "4.6  " + headings()["4.6"] == "4.6  dropout 并不保持每行权重和恰好为 1"
    assert built.value("const")["value"] == 1
