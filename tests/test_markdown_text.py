"""One-line values in the Markdown export (domain/markdown_text.inline): ordinary titles, names and
dates read as written (no stray backslashes), and hostile ones render as their own text, with no
markup, link, image or new block, under CommonMark with raw HTML on (markdown-it-py) and under
GitHub's renderer with its bare-URL autolinks (cmark-gfm), in a heading, a list item and a line start."""

from __future__ import annotations

import html

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from hitl_dashboard.domain.markdown_text import inline

ORDINARY = [
    "plan_v2", "a.b", "security_reviewer", "app/retry.py", "2026-12-04T10:00:00.123456+00:00",
    "Add retry (with backoff) to the client: 3 tries, 50% jitter!", "Fix C# and F# builds", "AT&T's {config}",
    "C:\\Users\\ops\\plan.md", "snake_case_name -> camelCase", "gpt-4o-mini", "v1.2.3+build.7", "a | b", "x > y = z",
    "Ship it? Yes: now.", "#42 follow-up", "-1 point", "+1", "3.14 is pi", "== not a heading", "naïve_café_x",
]
HOSTILE = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<!-- hidden --> after",
    "[click](javascript:alert(1))", "![img](http://evil.example/x.png)", "[ref][1]", "[^note]",
    "<https://evil.example>", "see https://evil.example/a and HTTP://evil.example", "ftp://evil.example/f",
    "www.evil.example", "go to WWW.evil.example now", "*emphasis* and **strong**", "_under_ and __dunder__",
    "~strike~ ~~struck~~", "`code` and ``more``", "&lt;b&gt; &#60; &#x3C; &amp;", "a\\*b\\_c\\[d",
    "title ##", "##", "# heading", "> quote", "- item", "+ item", "* item", "1. item", "2) item", "3) x",
    "=== ", "---", "-- -", "-",
    "| a | b |", "```python", "~~~", "line one\n# injected heading\n- injected item\n\n<div>block</div>",
]


def _text(value: str) -> str:
    """How both renderers write text: markup characters as entities."""
    return html.escape(" ".join(value.split()), quote=False).replace('"', "&quot;")


def _commonmark(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).render(markdown)


def _github(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


@pytest.mark.parametrize("value", ORDINARY)
def test_an_ordinary_value_is_written_as_it_reads(value: str) -> None:
    assert inline(value) == value


@pytest.mark.parametrize("render", [_commonmark, _github], ids=["commonmark", "github"])
@pytest.mark.parametrize("value", ORDINARY + HOSTILE)
def test_a_value_renders_as_its_own_text_wherever_it_stands(render, value: str) -> None:
    escaped, text = inline(value), _text(value)
    assert render(f"# Conversation 7: {escaped}\n").strip() == f"<h1>Conversation 7: {text}</h1>"
    assert render(f"- Started by: {escaped}\n").strip() == f"<ul>\n<li>Started by: {text}</li>\n</ul>"
    assert render(f"{escaped}\n").strip() == f"<p>{text}</p>"


def test_an_email_address_is_the_one_link_github_makes_and_it_opens_no_page() -> None:
    rendered = _github(f"- Started by: {inline('ops@example.com')}\n")
    assert rendered.strip() == '<ul>\n<li>Started by: <a href="mailto:ops@example.com">ops@example.com</a></li>\n</ul>'
