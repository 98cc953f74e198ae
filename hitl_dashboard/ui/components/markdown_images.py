"""Images in agent or caller markdown are shown as links, never loaded (issue 45).

An <img> would make every reviewer's browser ask the image's host for it, which tells that host who
opened the review and when (a tracking pixel in an external request's context). A link names the
address and loads nothing until someone chooses to open it. The CSP's img-src is the second wall."""

from __future__ import annotations

import reflex as rx
from reflex.vars.base import Var

# react-markdown calls the component map's function with the image's attributes; Reflex destructures
# them as `props` (reflex_components_core markdown_component_map). src has passed react-markdown's
# URL filter already (no javascript: URLs).
_SRC: Var[str] = Var(_js_expr="props.src", _var_type=str)
_ALT: Var[str] = Var(_js_expr="props.alt", _var_type=str)


def image_as_link(*_children, **_props) -> rx.Component:
    """`![alt](url)` as a link reading "Image alt: url" (the alt may be empty), opened in a new tab
    with no referrer and no access back to this page."""
    # A plain <a>: rx.link(href=<a Var>) is a router link, made for the app's own pages.
    return rx.el.a(
        rx.icon("image", size=14, aria_hidden="true", vertical_align="text-bottom"), " Image ",
        rx.cond(_ALT, _ALT, ""), ": ", _SRC,
        href=_SRC, target="_blank", rel="noopener noreferrer nofollow", class_name="markdown-image-link",
        color="var(--accent-11)", text_decoration="underline", overflow_wrap="anywhere",
    )
