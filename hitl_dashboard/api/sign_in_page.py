"""The page a refused single sign-on (or a refused cross-site request) shows: a sentence and a way
back, as text (every value is escaped), never a trace."""

from __future__ import annotations

from html import escape

from fastapi.responses import HTMLResponse

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - HITL Dashboard</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36em;margin:10vh auto;padding:0 1em;line-height:1.5}}
a{{color:#0b57d0}}</style></head>
<body><main><h1>{title}</h1><p id="sign-in-problem" role="alert">{message}</p>
<p><a href="/login" id="back-to-sign-in">Back to the sign-in page</a></p></main></body></html>"""


def problem_page(title: str, message: str, status_code: int) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=escape(title), message=escape(message)), status_code=status_code,
                        headers={"Cache-Control": "no-store"})
