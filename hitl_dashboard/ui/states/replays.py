"""Time travel on the conversation page: "Replay from here" on an agent's message runs that message's
turn again as a new conversation, from the team state before it and with the input it had (new model
calls), to compare the answers. The fork dialog is ui/states/forks.py.

Public events are endpoints any browser can call: the conversation id comes from the page's URL,
the signed-in user is checked again, and the service refuses what the user may not do."""

from __future__ import annotations

import asyncio

import reflex as rx

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.services.conversations.forks import replay
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState, path_id
from hitl_dashboard.ui.states.forks import turn_on_page


class ReplayState(AppState):
    replay_open: bool = False
    replay_seq: int = 0
    replay_turn: int = 0  # the turn the message belongs to: the one run again
    replay_error: rx.Field[str] = rx.field("")
    replaying: bool = False

    @rx.event
    async def open_replay(self, seq: int):
        self.replay_seq, self.replay_open, self.replay_turn, self.replay_error = int(seq), True, 0, ""
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None:
            return
        try:
            _actor, self.replay_turn = await turn_on_page(self, conversation_id, self.replay_seq)
        except DomainError as exc:  # signed out, a message of no stored turn
            self.replay_error = str(exc)

    @rx.event
    def set_replay_open(self, value: bool):
        self.replay_open = bool(value) and self.replay_seq > 0

    @rx.event
    async def submit_replay(self):
        conversation_id = path_id(self.router.url.path)
        if conversation_id is None or self.replaying or self.replay_seq <= 0:
            return
        self.replaying, self.replay_error = True, ""
        yield
        try:
            actor, turn = await turn_on_page(self, conversation_id, self.replay_seq)
            # From the state after the turn before it (0: from the start), with the input that turn had.
            child = await asyncio.to_thread(replay, actor, conversation_id, turn - 1)
        except DomainError as exc:  # signed out, a turn stored before forks existed
            self.replay_error = str(exc)
            return
        finally:
            self.replaying = False
        self.replay_open = False
        yield rx.redirect(routes.conversation(child.id))
