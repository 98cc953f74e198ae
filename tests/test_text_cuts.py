"""Text is never cut silently (issue 28): a cut says how much is missing and still fits its cap."""

from __future__ import annotations

from hitl_dashboard.domain.markdown_text import inline
from hitl_dashboard.domain.text_cuts import cut_visibly


def test_a_text_that_fits_is_kept_whole() -> None:
    assert cut_visibly("Deployed billing-api 2.4.1", 26) == "Deployed billing-api 2.4.1"


def test_a_cut_says_how_much_is_missing_and_fits_the_cap() -> None:
    text = "word " * 1_000  # 5,000 characters
    cut = cut_visibly(text, 300)
    assert len(cut) <= 300
    shown, _, marker = cut.partition(" ... [")
    assert marker == f"{len(text) - len(shown):,} more characters]" and "," in marker
    assert text.startswith(shown) and shown.endswith("word")  # at a word's end, not inside one


def test_a_long_word_is_cut_where_the_cap_falls() -> None:
    cut = cut_visibly("x" * 1_000, 100)
    shown = cut.index(" ")
    assert len(cut) <= 100 and shown > 60 and cut.endswith(f" ... [{1_000 - shown:,} more characters]")


def test_a_one_line_value_in_the_markdown_export_is_cut_visibly() -> None:
    flat = " ".join(["reason"] * 100)  # 699 characters; 34 fit beside the marker
    assert inline(flat, limit=60) == r"reason reason reason reason reason ... \[665 more characters]"
