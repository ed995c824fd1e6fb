"""Feu à Volonté support groups and the quality a non-player character has (issue 13, item 6).

Sources (``seeds/feu-a-volonte-v1.6.txt``, chapter "Règles spéciales et arsenaux", 1914 à nos jours):

* Groupe d'appui: a support group is one unit of two or three figures, on one base or kept
  in base contact on the table.
* Recrutement (1914 à nos jours): the support teams and their sizes: anti-tank, LMG and
  sniper teams of two figures, mortar and HMG teams of three. The team's type names the
  weapon it serves, whose line of the arsenal (cadence, bonus, range, area, aiming) applies
  as for any shot: Cadence de tir, Arme anti-char portable, Arme à aire d'effet.
* Blessure et mort d'une figurine (1914 à nos jours): the usual wound rule applies, except
  that a support group leaves the game after 4 wounds (two figures) or 5 (three figures).

What the text leaves open, chosen here and said in the explanation (docs/rule-choices.md,
Feu à Volonté 7 and 8):

* the group fires its weapon as one shooter: the crew figure nearest the target fires
  (range, sight and arc from it, as the nearest figure is the main shooter of a shared
  shot) and the other crew members add no "Plusieurs tireurs" bonus, since they serve one
  weapon;
* a hit on a crew figure is one wound of the group: the marker goes on the figure hit, with
  its usual effect, but no crew figure is removed on its own (head, third marker, a double
  six or an attack at least double the defence each count one wound); at the group's 4th
  (5th) wound every crew figure leaves the game;
* charged from behind (Les Combats en corps à corps: the surprised figure may only dodge), the
  crew figure charged dodges alone with its own quality, and a failed dodge is one wound of the
  group like a hit (docs/rule-choices.md, Feu à Volonté 10).

The team's price in the recruitment (what it pays for: the reading of Feu à Volonté 9) is in
:mod:`rules.rulesets.feu_a_volonte.recruitment`, with the team table.

Qualité (Recrutement, Jouer en solitaire): each quality gives a number of dice and a cran,
the bonus added where the text says "+ bonus de cran" (defence against a shot or a blast,
the nerve test of a tie, both sides of a melee; never the attack of a shot, spotting, aiming
or disengaging). The four recruitable qualities are in the recruitment tables; the
non-player characters' row (quality 2d6, cran -1, Personnages non-joueurs) is
:data:`NPC_QUALITY`, given by a profile's ``"quality": "pnj"``.

Game file (docs/game-file.md): a unit's ``extra.support`` names its type (the unit's models
are the crew); or a figure's ``extra.support`` = ``{"group", "type", "size"}`` as the
``support_group`` action writes for figures that are units of their own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from rules.dice import Dice, Distribution
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step
from rules.measure import CONTACT_TOLERANCE_MM, model_distance_mm
from rules.plan import Model, TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.feu_a_volonte.actions import (
    RULESET,
    Shot,
    _remove,
    _side,
    _wounds,
    figure,
    shoot,
    throw,
)
from rules.rulesets.feu_a_volonte.recruitment import (  # the team table is recruitment's; re-exported here
    SRC_TEAMS,
    SUPPORT_TYPES,
    Quality,
    SupportType,
    TeamRecruit,
    _norm,
    arsenal_weapon,
    support_type,
)
from rules.rulesets.kit import req_bool, req_int, req_list, req_str, with_extra
from rules.rulesets.params import Param

SRC_SUPPORT = "Feu à Volonté, Groupe d'appui"
SRC_CREW = "Feu à Volonté, Blessure et mort d'une figurine (1914 à nos jours)"
SRC_NPC = "Feu à Volonté, Jouer en solitaire: Personnages non-joueurs"
CHOICE_FIRER = "support_firer=nearest-crew"
CHOICE_WOUNDS = "support_hits=one-wound-each"


SUPPORT_WOUNDS: Mapping[int, int] = MappingProxyType({2: 4, 3: 5})  # figures in the group -> wounds that take it out
NPC_QUALITY = Quality("pnj", 2, -1, 0)  # Personnages non-joueurs: Qualité 2d6, Cran -1 (not recruited)
NPC_NAMES = frozenset({"pnj", "npc", "personnage non joueur", "non player character"})


def npc_quality(name: Any) -> Quality | None:
    """Return the non-player characters' quality when ``name`` names it (``pnj``, ``npc``), else ``None``.

    >>> npc_quality("PnJ").cran, npc_quality("élite") is None
    (-1, True)
    """
    return NPC_QUALITY if _norm(str(name)) in NPC_NAMES else None


@dataclass(frozen=True)
class SupportGroup:
    """A support group on the table: its type, its crew (figures still on the table), its wounds."""

    group_id: str
    kind: SupportType
    crew: tuple[str, ...]
    size: int
    wounds: int
    unit_id: str | None = None

    @property
    def limit(self) -> int:
        """The wounds that take the group out of the game (4 for two figures, 5 for three)."""
        return SUPPORT_WOUNDS[self.size]


def _marked(m: Model) -> Mapping[str, Any] | None:
    mark = m.extra.get("support") if m.extra else None
    return mark if isinstance(mark, Mapping) else None


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or not str(value).strip().isdigit():
        raise InvalidActionError(f"{where} must be a whole number, got {value!r}",
                                 msg_id="feu_a_volonte.support.not_whole", params={"where": where, "value": str(value)})
    return int(str(value).strip())


def group_of(plan: TablePlan, m: Model) -> SupportGroup | None:
    """Return the support group figure ``m`` serves in, or ``None``."""
    unit = plan.unit(m.unit_id)
    if unit.extra and unit.extra.get("support") is not None:
        crew = plan.models_of(unit.unit_id)
        size = _whole(unit.extra.get("support_size", len(crew)), f"unit {unit.unit_id} extra.support_size")
        counted = _whole(unit.extra.get("support_wounds", 0), f"unit {unit.unit_id} extra.support_wounds")
        return _group(unit.unit_id, support_type(unit.extra["support"]), crew, size, counted, unit.unit_id)
    mark = _marked(m)
    if mark is None:
        return None
    gid = str(mark.get("group", m.model_id))
    crew = tuple(x for x in plan.models if (_marked(x) or {}).get("group") == gid)
    size = _whole(mark.get("size", len(crew)), f"model {m.model_id} extra.support.size")
    return _group(gid, support_type(mark.get("type")), crew, size, 0, None)


def _group(gid: str, kind: SupportType, crew: tuple[Model, ...], size: int, counted: int,
           unit_id: str | None) -> SupportGroup:
    if size not in SUPPORT_WOUNDS:
        raise IllegalActionError(f"support group {gid} has {size} figure(s): a support group has two or three "
                                 f"({SRC_SUPPORT}); if figures were taken off by hand, give the unit "
                                 "extra.support_size", msg_id="feu_a_volonte.support.size",
                                 params={"group": gid, "size": size})
    wounds = counted + sum(len(_wounds(x)) for x in crew)
    return SupportGroup(gid, kind, tuple(x.model_id for x in crew), size, wounds, unit_id)


def team_recruits(plan: TablePlan, figs: Sequence[Model]) -> tuple[dict[str, SupportType], list[TeamRecruit]]:
    """Return the support team each of ``figs`` crews (by figure id) and each team's recruitment line (SRC_TEAMS)."""
    kinds: dict[str, SupportType] = {}
    teams: dict[str, TeamRecruit] = {}
    for m in figs:
        group = group_of(plan, m)
        if group is not None:
            kinds[m.model_id] = group.kind
            teams.setdefault(group.group_id, TeamRecruit(group.group_id, group.kind, group.crew))
    return kinds, list(teams.values())


def _apart(plan: TablePlan, crew: tuple[str, ...]) -> list[str]:
    """Return the crew figures not linked to the first one by a chain of base contacts (empty when together)."""
    models = [plan.model(c) for c in crew]
    linked, todo = {models[0].model_id}, [models[0]]
    while todo:
        here = todo.pop()
        for other in models:
            if other.model_id not in linked and model_distance_mm(here, other, how="edge") <= CONTACT_TOLERANCE_MM:
                linked.add(other.model_id)
                todo.append(other)
    return [c for c in crew if c not in linked]


def _require_together(plan: TablePlan, gid: str, crew: tuple[str, ...]) -> Step:
    apart = _apart(plan, crew)
    if apart:
        raise IllegalActionError(f"support group {gid}: {', '.join(apart)} not in base contact with the rest of "
                                 f"the crew; a support group's figures stay base to base ({SRC_SUPPORT})",
                                 msg_id="feu_a_volonte.support.apart", params={"group": gid, "apart": apart})
    return Step("support group", f"{gid}: {', '.join(crew)} in base contact", SRC_SUPPORT,
                msg="feu_a_volonte.support.together", params={"group": gid, "crew": list(crew)})


# -- forming a group of figures that are units of their own ------------------------------------------------


def support_group(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Form a support group of 2 or 3 figures in base contact, of a team type (Groupe d'appui; Recrutement).

    Request: ``crew`` (the figures), ``team`` (``anti-char``, ``lmg``, ``sniper``: two
    figures; ``mortier``, ``hmg``: three). Each figure's ``extra.support`` records the group.
    """
    names = list(dict.fromkeys(req_list(request, "crew")))
    kind = support_type(req_str(request, "team"))
    crew = [figure(plan, n) for n in names]
    if len(crew) != kind.figures:
        raise IllegalActionError(f"a {kind.name} team has {kind.figures} figures; {len(crew)} named ({SRC_TEAMS})",
                                 msg_id="feu_a_volonte.support.crew_count",
                                 params={"type": kind.name, "figures": kind.figures, "named": len(crew)})
    sides = sorted({_side(plan, m) for m in crew})
    if len(sides) != 1:
        raise IllegalActionError(f"a support group's figures are of one side; got {', '.join(sides)}",
                                 msg_id="feu_a_volonte.support.sides", params={"sides": sides})
    for m in crew:
        if group_of(plan, m) is not None:
            raise IllegalActionError(f"{m.model_id} already serves in a support group",
                                     msg_id="feu_a_volonte.support.already", params={"who": m.model_id})
    gid = "+".join(m.model_id for m in crew)
    ids = tuple(m.model_id for m in crew)
    weapon = arsenal_weapon(kind.weapon, plan.weapons)
    steps = [Step("support team", f"{kind.name}: {kind.figures} figures, {kind.cost} PdR, serving a {weapon.name}",
                  SRC_TEAMS, value=kind.figures, msg="feu_a_volonte.support.team",
                  params={"type": kind.name, "figures": kind.figures, "cost": kind.cost, "weapon": weapon.name}),
             _require_together(plan, gid, ids),
             Step("wounds", f"the group leaves the game after {SUPPORT_WOUNDS[kind.figures]} wounds", SRC_CREW,
                  value=SUPPORT_WOUNDS[kind.figures], msg="feu_a_volonte.support.limit",
                  params={"group": gid, "size": kind.figures, "limit": SUPPORT_WOUNDS[kind.figures]})]
    after = plan
    for m in crew:
        after = after.with_model(with_extra(after.model(m.model_id),
                                            support={"group": gid, "type": kind.name, "size": kind.figures}))
    result = {"group": gid, "type": kind.name, "crew": list(ids), "weapon": weapon.name,
              "wounds_to_leave": SUPPORT_WOUNDS[kind.figures]}
    return Resolution(RULESET, "support_group", tuple(steps), {}, {}, (), result, after)


# -- the group fires its weapon -------------------------------------------------------------------------


def _named_group(plan: TablePlan, ident: str) -> SupportGroup:
    if not any(m.model_id == ident for m in plan.models) and any(u.unit_id == ident for u in plan.units):
        members = plan.models_of(ident)
        found = group_of(plan, members[0]) if members else None
    else:
        found = group_of(plan, figure(plan, ident))
    if found is None:
        raise IllegalActionError(f"{ident} is not in a support group (form one first, or give its unit "
                                 f"extra.support)", msg_id="feu_a_volonte.support.not_a_group", params={"who": ident})
    return found


def support_fire(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """A support group fires its team's weapon (Groupe d'appui; the weapon's line of the arsenal).

    Request: ``support`` (a crew figure, or the group's unit), ``target`` (or ``targets``
    for a cadence split), optional ``shots``, ``moved``, ``cover``, ``chance``, ``reserve``.
    The crew figure nearest the target fires (of those in the current activation, if any:
    it pays the action points); the shot then follows the usual rule (an
    anti-tank weapon aims first, a mortar fires at the target's point as an area weapon).
    It costs the firer's "combat / grenade" action points.
    """
    group = _named_group(plan, req_str(request, "support"))
    split = req_list(request, "targets")
    first = figure(plan, split[0] if split else req_str(request, "target"))
    if first.model_id in group.crew:
        raise IllegalActionError(f"{first.model_id} serves in the support group {group.group_id}",
                                 msg_id="feu_a_volonte.support.own_crew",
                                 params={"target": first.model_id, "group": group.group_id})
    steps = [_require_together(plan, group.group_id, group.crew)]
    weapon = arsenal_weapon(group.kind.weapon, plan.weapons)
    crew = [plan.model(c) for c in group.crew]
    active = set(((plan.state or {}).get("activation") or {}).get("figures", ()))
    pool = [m for m in crew if m.model_id in active] or crew  # an activated crew figure pays the action points
    firer = min(pool, key=lambda m: (model_distance_mm(m, first, how="centre"), m.model_id))
    steps.append(Step("support fire", f"{group.group_id} ({group.kind.name}) fires its {weapon.name} as one shooter: "
                      f"{firer.model_id}, the {'activated ' if pool is not crew else ''}crew figure nearest "
                      f"{first.model_id}, fires; the rest of the crew "
                      "serve the weapon and add no extra-shooter bonus (the program's choice)", SRC_SUPPORT,
                      option=CHOICE_FIRER,
                      msg="feu_a_volonte.support.fire_active" if pool is not crew else "feu_a_volonte.support.fire",
                      params={"group": group.group_id, "type": group.kind.name, "weapon": weapon.name,
                              "firer": firer.model_id, "target": first.model_id}))
    carried = tuple(firer.weapons or ())
    armed = plan
    if weapon.name not in {arsenal_weapon(w, plan.weapons).name for w in carried}:
        armed = plan.with_model(dataclasses.replace(firer, weapons=(*carried, weapon.name)))
    if weapon.area_ud is not None:
        inner = throw(armed, {"thrower": firer.model_id, "weapon": weapon.name, "target": first.model_id}, dice)
    else:
        req: dict[str, Any] = {"firing": firer.model_id, "weapon": weapon.name}
        req.update({"targets": split} if split else {"target": first.model_id})
        if request.get("shots") is not None:
            req["shots"] = req_int(request, "shots", 1, minimum=1)
        for key in ("moved", "cover"):
            if request.get(key) is not None:
                req[key] = req_bool(request, key)
        for key in ("chance", "reserve"):
            if request.get(key) is not None:
                req[key] = request[key]
        inner = shoot(armed, req, dice)
    after = inner.plan_after
    if after is not None and armed is not plan and any(m.model_id == firer.model_id for m in after.models):
        after = after.with_model(dataclasses.replace(after.model(firer.model_id), weapons=carried))
    result = None if inner.result is None else {"group": group.group_id, "firer": firer.model_id,
                                                "weapon": weapon.name, **inner.result}
    return Resolution(RULESET, "support_fire", (*steps, *inner.steps), inner.needed, inner.odds, inner.dice, result,
                      after)


# -- a hit on a crew figure (hooks of the shoot action) -------------------------------------------------------


def crew_shot(plan: TablePlan, target: Model, shot: Shot, steps: list[Step]) -> Shot:
    """Return the shot at ``target`` with its support group's wounds and limit, when it is crew (else unchanged)."""
    group = crew_target(plan, target, steps)
    if group is None:
        return shot
    return dataclasses.replace(shot, group_limit=group.limit, group_wounds=group.wounds)


def crew_target(plan: TablePlan, target: Model, steps: list[Step]) -> SupportGroup | None:
    """Say that a hit on ``target`` is one wound of its support group and return the group (``None``: not crew)."""
    group = group_of(plan, target)
    if group is not None:
        steps.append(Step("support group", f"{target.model_id} serves in {group.group_id}: a hit is one wound of "
                          f"the group ({group.wounds} of {group.limit} so far); no crew figure falls on its own, the "
                          f"group leaves the game at its {group.limit}th wound (the program's choice for head hits "
                          "and outright kills)", SRC_CREW, value=group.wounds, option=CHOICE_WOUNDS,
                          msg="feu_a_volonte.support.target",
                          params={"who": target.model_id, "group": group.group_id, "wounds": group.wounds,
                                  "limit": group.limit}))
    return group


def hit_crew(plan: TablePlan, target: Model, one: Mapping[str, Any], steps: list[Step]
             ) -> tuple[TablePlan, dict[str, Any]]:
    """Record a hit on crew figure ``target``: its marker, the group's count, and the group's end at its limit."""
    loc = str(one["location"])
    after, group, total, out = _wound_group(plan, target, loc)
    steps.append(Step("result", f"attack {one['attack']} against defence {one['defence']}: {target.model_id} hit in "
                      f"the {loc}, wound {total} of {group.limit} of {group.group_id}"
                      + (": the group leaves the game" if out else ""), SRC_CREW, value=total,
                      msg="feu_a_volonte.support.hit_out" if out else "feu_a_volonte.support.hit",
                      params={"who": target.model_id, "location": loc, "group": group.group_id, "wounds": total,
                              "limit": group.limit, "attack": one["attack"], "defence": one["defence"]}))
    return after, {**one, "kind": "group out" if out else "wounded", "group": group.group_id, "group_wounds": total}


def _wound_group(plan: TablePlan, target: Model, location: str) -> tuple[TablePlan, SupportGroup, int, bool]:
    """Return the game after crew figure ``target`` takes a wound marker, its group, the group's wounds, and
    whether the group left the game (Blessure et mort d'une figurine, 1914 à nos jours)."""
    group = group_of(plan, target)
    if group is None:  # not crew any more (the caller checked): nothing the group rule changes
        raise AssertionError(f"{target.model_id} is not crew")
    after = plan.with_model(with_extra(target, wounds=[*_wounds(target), location]))
    total = group.wounds + 1
    if total >= group.limit:
        for c in group.crew:
            if any(m.model_id == c for m in after.models):
                after = _remove(after, after.model(c))  # each figure counted among the side's losses
    return after, group, total, total >= group.limit


def crew_wound(plan: TablePlan, m: Model, location: str, attack: int, defence: int, steps: list[Step]
               ) -> tuple[TablePlan, dict[str, Any]] | None:
    """Return the game after a blast or a melee hits crew figure ``m`` (one wound of its group), or ``None``.

    ``None`` when ``m`` serves in no support group: the usual wound rule applies.
    """
    if group_of(plan, m) is None:
        return None
    after, one = hit_crew(plan, m, {"attack": attack, "defence": defence, "location": location}, steps)
    return after, {k: one[k] for k in ("kind", "group", "group_wounds")}


def crew_dodge(plan: TablePlan, m: Model, location: str, dodge: int, steps: list[Step]
               ) -> tuple[TablePlan, dict[str, Any]] | None:
    """Return the game after crew figure ``m`` fails to dodge a charge from behind (one wound of its group), or
    ``None`` when ``m`` serves in no support group.

    Feu à Volonté, Les Combats en corps à corps (La Charge): charged from behind, the figure is caught
    by surprise and may only try to dodge with a quality roll; Blessure et mort d'une figurine
    (1914 à nos jours): the wound it takes is counted against its group, whose 4th (5th) ends it.
    """
    if group_of(plan, m) is None:
        return None
    after, group, total, out = _wound_group(plan, m, location)
    steps.append(Step("result", f"dodge {dodge}: {m.model_id} hit in the {location}, wound {total} of {group.limit} "
                      f"of {group.group_id}" + (": the group leaves the game" if out else ""), SRC_CREW, value=total,
                      msg="feu_a_volonte.support.dodge_out" if out else "feu_a_volonte.support.dodge_hit",
                      params={"total": dodge, "who": m.model_id, "location": location, "group": group.group_id,
                              "wounds": total, "limit": group.limit}))
    return after, {"kind": "group out" if out else "wounded", "group": group.group_id, "group_wounds": total}


def crew_odds(plan: TablePlan, m: Model, odds: Distribution) -> Distribution:
    """Return a blast's odds on ``m`` read for its support group (a hit is one wound), or unchanged."""
    group = group_of(plan, m)
    if group is None:
        return odds
    hit = "group out" if group.wounds + 1 >= group.limit else "group wound"
    return odds.map(lambda label: hit if label == "killed" or str(label).startswith("wounded") else label)


SUPPORT_ACTIONS: Mapping[str, Action] = MappingProxyType({"support_group": support_group,
                                                          "support_fire": support_fire})
SUPPORT_PARAMS: Mapping[str, tuple[Param, ...]] = MappingProxyType({
    "support_group": (Param("crew", "models", help="the 2 or 3 figures in base contact"),
                      Param("team", "choice", choices=tuple(SUPPORT_TYPES),
                            help="anti-char, lmg, sniper: 2 figures; mortier, hmg: 3")),
    "support_fire": (Param("support", "figure", help="a figure of the support group"),
                     Param("target", "figure", enemy_of="support"),
                     Param("shots", "integer", required=False, minimum=1),
                     Param("targets", "models", required=False),
                     Param("moved", "bool", required=False, help="the group moved first"),
                     Param("cover", "bool", required=False),
                     Param("chance", "bool", required=False, help="spend a luck point"),
                     Param("reserve", "integer", required=False, minimum=0, help="reserve dice added")),
})
