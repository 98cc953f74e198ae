"""The transcript: messages grouped by agent, markdown rendered safely, live typing."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex.utils.imports import ImportVar
from reflex.vars import NumberVar, StringVar
from reflex.vars.base import Var, VarData

from hitl_dashboard.ui.components.forks import time_travel_buttons
from hitl_dashboard.ui.components.markdown_images import image_as_link
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.components.transcript_export import message_anchor_id, message_link
from hitl_dashboard.ui.states.feeds import ConversationFeed
from hitl_dashboard.ui.states.stream_feed import StreamFeed
from hitl_dashboard.ui.states.transcript_history import TranscriptHistory as History
from hitl_dashboard.ui.views.conversation_view import MessageRow

# Coldark: every token colour keeps WCAG AA contrast (4.5:1) on its background; Reflex's default
# one-light draws comments at 2.5:1.
CODE_THEME = rx.color_mode_cond(light=rx.code_block.themes.coldark_cold, dark=rx.code_block.themes.coldark_dark)


def code_block(code, **props) -> rx.Component:
    """Long lines scroll sideways instead of wrapping: a wrapped line would start at column 0 and
    misrepresent the indentation (Python structure) the reviewer is judging. Focusable, so the
    keyboard can scroll it too."""
    return rx.code_block(code, wrap_long_lines=False, theme=CODE_THEME, class_name="transcript-code",
                         custom_attrs={"tabIndex": 0}, **props)


def _markdown_code_block(code, **props) -> rx.Component:
    # Reflex's default for fenced code in markdown wraps long lines (pre-wrap).
    return code_block(code, margin_y="1em", **props)


# A line break the agent wrote stays a line break (CommonMark joins such lines into one paragraph
# line; agents mean "Ready for review" on a line of its own, as chat and GitHub comments show it).
LINE_BREAKS = rx.markdown.plugin.create("remark-breaks@4.0.0", "remarkBreaks")


def safe_markdown(text: rx.Var[str]) -> rx.Component:
    # use_raw=False: raw HTML in agent output stays text (Reflex enables rehype-raw by default).
    # img: an image is a link, never fetched (markdown_images.py).
    return rx.markdown(text, use_raw=False, remark_plugins=[LINE_BREAKS], class_name="message-body",
                       component_map={"pre": _markdown_code_block, "img": image_as_link})


def tool_text(text: rx.Var[str]) -> rx.Component:
    """A tool call (name and JSON arguments on one line) or what the tool returned: plain text, not
    highlighted (it is no program), in its own lines, with long lines wrapped so their last characters
    are on screen at any width (app.css, .tool-text). Never markdown: a tool's output is data."""
    return rx.el.pre(text, class_name="tool-text")


def message_body(message: RowVar[MessageRow]) -> rx.Component:
    return rx.match(
        message.kind,
        ("tool_call", tool_text(message.content)),
        ("tool_result", tool_text(message.content)),
        ("decision", rx.text(message.content, white_space="pre-wrap", size="2")),
        safe_markdown(message.content),
    )


def message_card(message: RowVar[MessageRow]) -> rx.Component:
    return rx.hstack(
        # Not below 768 px: the name is in the card, and the text needs the width more.
        rx.avatar(fallback=message.initials, color_scheme=message.color, size="2", radius="full",
                  display=rx.breakpoints(initial="none", sm="inline-flex")),
        rx.box(
            rx.hstack(
                rx.text(message.source, weight="bold", size="2", class_name="message-source"),
                rx.cond(message.kind != "text", rx.badge(message.kind.replace("_", " "), size="1", variant="soft")),
                rx.text(message.at, size="1", color_scheme="gray"),
                message_link(message),
                rx.spacer(),
                # Which model wrote it: teams may give each agent its own model.
                rx.cond(message.model != "", rx.code(message.model, size="1", variant="ghost", color_scheme="gray",
                                                     class_name="message-model", title="model")),
                rx.text(message.tokens, size="1", color_scheme="gray"),
                time_travel_buttons(message),
                align="center", spacing="2", width="100%", wrap="wrap",
            ),
            message_body(message),
            width="100%",
            min_width="0",
            padding="0.6em 0.9em",
            border=f"1px solid {rx.color('gray', 5)}",
            border_left=rx.cond(message.kind == "decision", f"3px solid {rx.color('green', 9)}",
                                f"1px solid {rx.color('gray', 5)}"),
            border_radius="6px",
            background_color=rx.cond(message.is_agent, rx.color("gray", 1), rx.color("gray", 2)),
        ),
        align="start", spacing="3", width="100%",
        class_name="message", data_seq=message.seq, id=message_anchor_id(message), data_source=message.source,
    )


def _streaming(source: StringVar, text: StringVar, started: NumberVar, **props) -> rx.Component:
    """A message being streamed, until it is stored: a stream that began before the newest stored
    message is that message, so the stored one replaces it in the same render (no gap, no
    duplicate), whichever of the two updates reaches the browser first."""
    return rx.cond(
        (text != "") & (StreamFeed.conversation_id == ConversationFeed.id)
        & (started > ConversationFeed.last_message_ms)
        & ((ConversationFeed.status == "running") | (ConversationFeed.status == "awaiting_review")),
        rx.hstack(
            rx.avatar(fallback=source[:2].upper(), size="2", radius="full", color_scheme="gray"),
            rx.box(
                rx.hstack(rx.text(source, weight="bold", size="2"),
                          # A still icon, not rx.spinner: an endless CSS animation on every watching
                          # page cost about a sixth of Chromium's CPU while a message streamed.
                          rx.icon("pencil", size=12, color=rx.color("gray", 9)),
                          rx.text("is typing", size="1", color_scheme="gray"),
                          align="center", spacing="2"),
                # A window of at most a few lines that keeps the newest text in view (app.css,
                # .streaming-text): a card that grew with every chunk moved the page under the
                # reader and made Chromium redraw the whole window each time.
                rx.text(text, white_space="pre-wrap", size="2", color_scheme="gray", class_name="streaming-text",
                        custom_attrs={"tabIndex": 0, "aria-label": "Text written so far"}),
                width="100%", padding="0.6em 0.9em", border=f"1px dashed {rx.color('gray', 6)}",
                border_radius="6px",
            ),
            align="start", spacing="3", width="100%", class_name="typing-card", **props,
        ),
    )


def typing_cards() -> rx.Component:
    """On StreamFeed alone (plus two fields of ConversationFeed): a streamed update re-renders these
    and nothing else of the page."""
    return rx.fragment(
        _streaming(StreamFeed.previous_source, StreamFeed.previous_text, StreamFeed.previous_started,
                   id="typing-previous"),
        _streaming(StreamFeed.source, StreamFeed.text, StreamFeed.started, id="typing-indicator"),
    )


@rx.memo
def stored_message(message: rx.Var[MessageRow]) -> rx.Component:
    """A React.memo component: when a message is added, the browser keeps the others' objects (Reflex
    applies deltas with structural sharing), so the finished messages are not rendered again."""
    # rx.memo reads this function's annotation (rx.Var) to build the component; the value is a row.
    return message_card(cast("RowVar[MessageRow]", message))


# This tab's history belongs to the conversation on screen (it is dropped when another one opens).
# The history's pages as this page holds them: each page the server reads (History.page, with a new
# History.pages number) is added, in seq order, once; a restart (conversation 0) empties them. Pages
# in the state before the transcript's restart (a reload's old history) are not taken. One store for
# the window: Reflex gives each component that reads these vars a hook of its own, and a component
# that mounts later must see the pages that came before it.
_CID, _PAGES, _PAGE = History.conversation_id._js_expr, History.pages._js_expr, History.page._js_expr
_HELD_STORE = """(window.__hitlHeld ??= {value: {ready: false, pages: -1, cid: 0, rows: []}, listeners: new Set(),
  feed(cid, n, page) {
    const held = this.value;
    let next = held;
    if (cid === 0) {
      if (!(held.ready && held.cid === 0 && held.rows.length === 0)) next = {ready: true, pages: n, cid: 0, rows: []};
    } else if (held.ready && n !== held.pages) {
      const bySeq = new Map((cid === held.cid ? held.rows : []).map((m) => [m.seq, m]));
      page.forEach((m) => bySeq.set(m.seq, m));
      next = {ready: true, pages: n, cid: cid, rows: [...bySeq.values()].sort((a, b) => a.seq - b.seq)};
    }
    if (next !== held) { this.value = next; this.listeners.forEach((changed) => changed()); }
  }})"""
_HELD_HOOK = (
    f"const hitlHeldStore = {_HELD_STORE};"
    f" useEffect(() => {{ hitlHeldStore.feed({_CID}, {_PAGES}, {_PAGE} ?? []); }}, [{_PAGES}, {_CID}]);"
    " const hitlHeld = useSyncExternalStore(useCallback((changed) => { hitlHeldStore.listeners.add(changed);"
    " return () => hitlHeldStore.listeners.delete(changed); }, []), () => hitlHeldStore.value,"
    " () => hitlHeldStore.value);"
)
_HELD_DATA = VarData.merge(
    Var.create([History.conversation_id, History.pages, History.page])._get_all_var_data(),
    VarData(imports={"react": [ImportVar(tag="useEffect"), ImportVar(tag="useSyncExternalStore"),
                               ImportVar(tag="useCallback")]}, hooks={_HELD_HOOK: None}),
)
held_rows: Var[list[MessageRow]] = Var(_js_expr="hitlHeld.rows", _var_type=list[MessageRow], _var_data=_HELD_DATA)
held_conversation = Var(_js_expr="hitlHeld.cid", _var_type=int, _var_data=_HELD_DATA).to(int)
held_count = Var(_js_expr="hitlHeld.rows.length", _var_type=int, _var_data=_HELD_DATA).to(int)
OWN_HISTORY = (held_conversation == ConversationFeed.id) & (held_count > 0)


def _page_button(label, on_click, *, key, id_: str) -> rx.Component:
    """Clicked by assets/transcript_pages.js as it comes near the screen; a button for the keyboard
    too. Its key changes with every page, so each page's button is a new element the script sees."""
    return rx.button(label, on_click=on_click, key=key, id=id_, class_name="transcript-load", variant="soft",
                     size="1", color_scheme="gray", width="100%")


def older_button() -> rx.Component:
    more = rx.cond(OWN_HISTORY, ~History.reached_start, ConversationFeed.older_messages > 0)
    return rx.cond(more, _page_button(
        "Show older messages", History.load_older(ConversationFeed.first_seq),
        key=rx.cond(OWN_HISTORY, History.first_seq, ConversationFeed.first_seq).to_string(), id_="transcript-older"))


def gap_button() -> rx.Component:
    """The window moved on since this tab read its history: the messages in between."""
    gap = (OWN_HISTORY & (History.last_seq + 1 < ConversationFeed.first_seq)
           & (ConversationFeed.first_seq > History.filled_to))
    return rx.cond(gap, _page_button("Show the messages in between", History.fill_gap(ConversationFeed.first_seq),
                                     key=History.last_seq.to_string(), id_="transcript-gap"))


def transcript() -> rx.Component:
    """Newest messages first (the feed's window), older ones a page at a time as the reader scrolls
    up (ui/states/transcript_history.py). Its own scroller, which starts at its end (app.css,
    .transcript-scroll): the newest message is on the first screen beside the decision panel."""
    return rx.box(rx.vstack(
        older_button(),
        rx.cond(OWN_HISTORY, rx.foreach(held_rows, lambda message: stored_message(message=message))),
        gap_button(),
        rx.foreach(ConversationFeed.settled_messages, lambda message: stored_message(message=message)),
        rx.foreach(ConversationFeed.messages, lambda message: stored_message(message=message)),
        typing_cards(),
        spacing="3", width="100%", id="transcript", on_mount=History.restart,
    ), class_name="transcript-scroll", width="100%", custom_attrs={"tabIndex": 0, "aria-label": "Transcript"})
