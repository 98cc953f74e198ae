"""The type of a row that rx.foreach hands to a render function, for the type checker.

At run time a row is an ObjectVar of its dataclass (views/), and each field it is asked for is a Var
of that field's type. Reflex types those fields as untyped ObjectItemOperation vars, which mypy
refuses in the ways the fields are used (concatenated, compared, passed on as Var[str]). RowVar[X]
names the dataclass and leaves its fields to the run time: Any."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from reflex.vars import ObjectVar

RowT = TypeVar("RowT", covariant=True)

if TYPE_CHECKING:

    class RowVar(ObjectVar[RowT]):
        def __getattr__(self, name: str) -> Any: ...

else:
    RowVar = ObjectVar
