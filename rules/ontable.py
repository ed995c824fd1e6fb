"""The table as the geometry sees it: only the figures that stand on it.

A roster brings figures the tracker has not placed yet; :func:`rules.roster.merge_rosters`
marks them with the status ``"off-table"`` (:data:`rules.plan.OFF_TABLE`) at a
meaningless position. Every geometric question (distance, sight, cohesion, zones,
templates) and every combat action must ignore them, or a unit's outline would
stretch to the table corner, block sight and count in distances.

:func:`on_table` is the one place where that filter lives: it returns an
:class:`OnTablePlan`, a plan without the off-table figures that remembers them, so
naming one of them gives a clear :class:`~rules.errors.IllegalActionError` instead
of "no such model". :func:`placed_only` decorates the public geometry functions (first
argument: the plan) with it and adds an explanation :class:`~rules.explain.Step`
naming the figures left out; :func:`restore` puts them back into a plan computed on
the view (a combat action's game after its result).

Examples
--------
>>> from rules.plan import parse_game
>>> plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 600, "depth_mm": 600},
...     "units": [{"id": "u", "side": "A"}],
...     "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25},
...                {"id": "b", "unit": "u", "x_mm": 0, "y_mm": 0, "base_mm": 25, "status": ["off-table"]}]})
>>> view = on_table(plan)
>>> [m.model_id for m in view.models], [m.model_id for m in view.left_out]
(['a'], ['b'])
>>> view.model("b")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rules.errors.IllegalActionError: model 'b' is not on the table yet (status "off-table": ...); assign its marker ...
>>> [m.model_id for m in restore(view, plan).models]
['a', 'b']
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar

from rules.errors import IllegalActionError
from rules.explain import Step
from rules.plan import OFF_TABLE, Model, TablePlan

F = TypeVar("F", bound=Callable[..., Any])
SOURCE = "tabletracker: a roster figure counts in the geometry once the tracker has placed it"


@dataclass(frozen=True)
class OnTablePlan(TablePlan):
    """A :class:`TablePlan` without its off-table figures, which it keeps in ``left_out``."""

    left_out: tuple[Model, ...] = ()

    def model(self, model_id: str) -> Model:
        """Return the on-table model ``model_id``; an off-table one raises :class:`IllegalActionError`."""
        for m in self.left_out:
            if m.model_id == model_id:
                raise IllegalActionError(not_placed_message(model_id), msg_id="ontable.not_placed",
                                     params={"model": model_id})
        return super().model(model_id)

    def left_out_of(self, unit_id: str) -> tuple[Model, ...]:
        """Return the off-table figures of unit ``unit_id``."""
        return tuple(m for m in self.left_out if m.unit_id == unit_id)


def not_placed_message(model_id: str) -> str:
    """Return the error text for a figure asked about before the tracker placed it."""
    return (f"model {model_id!r} is not on the table yet (status \"{OFF_TABLE}\": the tracker has not "
            f"placed it); assign its marker or base, or move it onto the table, first")


def off_table_models(plan: TablePlan) -> tuple[Model, ...]:
    """Return the figures of ``plan`` that are not on the table (and those a view left out)."""
    kept = getattr(plan, "left_out", ())
    return tuple(kept) + tuple(m for m in plan.models if m.status and OFF_TABLE in m.status)


def on_table(plan: TablePlan) -> TablePlan:
    """Return ``plan`` as the geometry sees it: without its off-table figures.

    The plan itself when every figure stands on the table (or it already is a view),
    else an :class:`OnTablePlan` remembering the figures it left out.
    """
    if isinstance(plan, OnTablePlan):
        return plan
    if not any(m.status and OFF_TABLE in m.status for m in plan.models):
        return plan
    fields = {f.name: getattr(plan, f.name) for f in dataclasses.fields(TablePlan)}
    fields["models"] = tuple(m for m in plan.models if m.on_table)
    return OnTablePlan(**fields, left_out=tuple(m for m in plan.models if not m.on_table))


def left_out_step(plan: TablePlan) -> Step | None:
    """Return the explanation step naming the figures a view left out (``None`` when there are none)."""
    gone = off_table_models(plan)
    if not gone:
        return None
    ids = ", ".join(m.model_id for m in gone)
    return Step("figures off the table",
                f"left out {ids}: not on the table yet (status \"{OFF_TABLE}\"), so they neither "
                f"count in distances, outlines, sight nor zones until the tracker places them",
                SOURCE, value=[m.model_id for m in gone], msg="ontable.left_out",
                params={"models": [m.model_id for m in gone]})


def require_placed(plan: TablePlan, idents: Iterable[Any]) -> None:
    """Refuse an id naming an off-table figure, or a unit none of whose figures is on the table.

    ``plan`` is a view from :func:`on_table`; other values of ``idents`` are ignored.
    """
    if not isinstance(plan, OnTablePlan):
        return
    gone = {m.model_id for m in plan.left_out}
    on = {m.model_id for m in plan.models}
    for ident in idents:
        if not isinstance(ident, str):
            continue
        if ident in gone and ident not in on:
            raise IllegalActionError(not_placed_message(ident), msg_id="ontable.not_placed", params={"model": ident})
        waiting = plan.left_out_of(ident)
        if waiting and not any(m.unit_id == ident for m in plan.models):
            raise IllegalActionError(
                f"unit {ident!r} has no figure on the table yet ({', '.join(m.model_id for m in waiting)} "
                f"are \"{OFF_TABLE}\": the tracker has not placed them); assign their markers or bases first",
                msg_id="ontable.unit_not_placed", params={"unit": ident, "models": [m.model_id for m in waiting]})


def _named(values: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, Model):
            out.append(v.model_id)
        elif isinstance(v, (list, tuple)):
            out.extend(_named(v))
        elif isinstance(v, dict) or hasattr(v, "items"):
            try:
                out.extend(_named(v.values()))
            except (AttributeError, TypeError):
                pass
    return out


def with_step(result: Any, step: Step | None) -> Any:
    """Return ``result`` with ``step`` first among its explanation steps, when it has them."""
    if step is None:
        return result
    if dataclasses.is_dataclass(result) and not isinstance(result, type) and hasattr(result, "steps"):
        return dataclasses.replace(result, steps=type(result.steps)((step, *result.steps)))
    if isinstance(result, dict) and isinstance(result.get("explanation"), list):
        result["explanation"] = [step.to_json(), *result["explanation"]]
    return result


def placed_only(fn: F) -> F:
    """Decorate a geometry function whose first argument is the plan: it sees only on-table figures.

    Ids, models and sequences of models among its other arguments that name an
    off-table figure (or a unit with none on the table) are refused with
    :class:`IllegalActionError`; the result gets a step naming the figures left out.
    """
    @functools.wraps(fn)
    def wrapper(plan: TablePlan, *args: Any, **kwargs: Any) -> Any:
        view = on_table(plan)
        if view is plan:  # nothing off the table, or already a view (the caller explains it)
            return fn(plan, *args, **kwargs)
        require_placed(view, _named(args) + _named(kwargs.values()))
        return with_step(fn(view, *args, **kwargs), left_out_step(view))

    return wrapper  # type: ignore[return-value]


def restore(after: TablePlan, before: TablePlan) -> TablePlan:
    """Return ``after`` (computed on ``on_table(before)``) as a plain plan with ``before``'s off-table figures back.

    They keep their place in the game file's order; those of a unit ``after`` no
    longer has go with it.
    """
    gone = {m.model_id: m for m in off_table_models(before)}
    fields = {f.name: getattr(after, f.name) for f in dataclasses.fields(TablePlan)}
    if not gone and type(after) is TablePlan:
        return after
    units = {u.unit_id for u in after.units}
    now = {m.model_id: m for m in after.models}
    models: list[Model] = []
    for m in getattr(before, "models", ()) + tuple(getattr(before, "left_out", ())):
        if m.model_id in gone:
            if m.unit_id in units:
                models.append(gone[m.model_id])
        elif m.model_id in now:
            models.append(now.pop(m.model_id))
    models.extend(m for m in after.models if m.model_id in now)  # figures the action added
    fields["models"] = tuple(models)
    return TablePlan(**fields)
