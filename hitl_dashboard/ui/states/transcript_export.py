"""The conversation page's downloads (Markdown, JSON) and the jump to a linked message."""

from __future__ import annotations

import logging

import reflex as rx

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState, path_id
from hitl_dashboard.ui.states.audit import download_script

log = logging.getLogger(__name__)
FORMATS = {"markdown": "md", "json": "json"}

# The transcript arrives over the websocket after the page loads, so the browser's own jump to
# #message-N finds nothing: wait (for at most 60 s) until the message is there, then scroll to it.
# A message older than the loaded ones is a page or more up: each new "Show older messages" button
# (ui/components/transcript.py; a new element per page) is clicked once, until the message is in.
SCROLL_TO_LINKED_MESSAGE = """(() => {
  const id = decodeURIComponent(window.location.hash.slice(1));
  if (!/^message-[0-9]+$/.test(id)) return;
  const seq = Number(id.slice("message-".length));
  const clicked = new WeakSet();
  const show = () => {
    const el = document.getElementById(id);
    if (!el) {
      const first = document.querySelector("#transcript .message[data-seq]");
      const older = document.getElementById("transcript-older");
      if (first && Number(first.dataset.seq) > seq && older && !older.disabled && !clicked.has(older)) {
        clicked.add(older);
        older.click();
      }
      return false;
    }
    el.scrollIntoView({block: "center"});
    el.classList.add("linked-message");
    return true;
  };
  if (show()) return;
  const observer = new MutationObserver(() => { if (show()) observer.disconnect(); });
  observer.observe(document.body, {childList: true, subtree: true});
  setTimeout(() => observer.disconnect(), 60000);
})()"""


class TranscriptExportState(AppState):
    transcript_exporting: str = ""

    @rx.event
    async def download_transcript(self, fmt: str):
        conversation_id = path_id(self.router.url.path)
        if fmt not in FORMATS or conversation_id is None or self.transcript_exporting:
            return
        try:
            await self._signed_in_actor()
        except PermissionDenied:
            return rx.redirect(routes.LOGIN)
        self.transcript_exporting = fmt
        script = download_script(fmt, f"conversation-{conversation_id}.{FORMATS[fmt]}",
                                 path=f"/api/conversations/{conversation_id}/export")
        return rx.call_script(script, callback=TranscriptExportState.transcript_downloaded)

    @rx.event
    def transcript_downloaded(self, result: str):
        self.transcript_exporting = ""
        if not str(result).startswith("ok"):
            log.warning("transcript download failed in the browser: %s", result)
            return rx.toast.error(f"The download failed ({str(result)[:200]})")

    @rx.event
    def jump_to_linked_message(self):
        return rx.call_script(SCROLL_TO_LINKED_MESSAGE)
