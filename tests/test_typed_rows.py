"""The small typed helpers the type checker asked for: they fail closed where a None used to slip by."""

from __future__ import annotations

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import Conversation, User
from hitl_dashboard.db.rows import get_existing, table_of
from hitl_dashboard.db.uow import CoreUnitOfWork, UnitOfWork
from hitl_dashboard.domain.errors import NotFound
from tests.support.flow import make_people


def test_get_existing_returns_the_row_and_names_a_missing_one(sqlite_url):
    make_people()
    with UnitOfWork() as uow:
        someone = uow.session.exec(select(User)).first()
        assert someone is not None
        assert get_existing(uow.session, User, someone.id).username == someone.username
        with pytest.raises(NotFound, match="^Conversation 987654 does not exist$"):
            get_existing(uow.session, Conversation, 987654, with_for_update=True)


def test_a_unit_of_work_outside_its_block_refuses_to_be_used(sqlite_url):
    uow, core = UnitOfWork(), CoreUnitOfWork()
    for closed in (lambda: uow.session, lambda: core.connection):
        with pytest.raises(RuntimeError, match="not open"):
            closed()
    with uow:
        uow.session.get(User, 1)
    with pytest.raises(RuntimeError, match="not open"):
        uow.session.commit()


def test_table_of_is_the_models_core_table():
    assert table_of(Conversation).name == "conversations"
    assert "lease_owner" in table_of(Conversation).c
