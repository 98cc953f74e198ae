"""A form the browser posts itself, as a full page load (Reflex's own form always cancels that and
sends an event over the websocket instead). The sign-in routes answer such posts with a cookie and
a redirect, which a websocket event could not do."""

from __future__ import annotations

import reflex as rx
from reflex_components_core.el.elements.forms import Form


class PostForm(Form):
    @classmethod
    def create(cls, *children, **props) -> rx.Component:
        props.setdefault("method", "post")
        # Form.create would add an on_submit that prevents the browser's own submission; skip it.
        return super(Form, cls).create(*children, **props)


post_form = PostForm.create


def hidden_field(name: str, value) -> rx.Component:
    return rx.el.input(type="hidden", name=name, value=value)
