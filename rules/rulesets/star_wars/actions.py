"""Star Wars Grandes escarmouches (Newlight): hero phases, shooting, melee, the Force, figure by figure.

Implemented from seeds/star-wars-grandes-escarmouches.txt; distances in pas of
25 mm, base edge to base edge, Zone X from the point of impact to the base edge and "hidden
more than 50 %" on the target's base seen from the firer: docs/rule-choices.md#star-wars-1,
docs/rule-choices.md#star-wars-2 and docs/rule-choices.md#star-wars-3.

Stats (roster ``profiles``): ``T`` (shooting threshold, ``null`` for TX), ``C``
(combat threshold, ``null`` for CX), ``A`` (attacks, default 1), ``Svg`` (save
against shots), ``For`` (Force threshold), ``PV`` (default 1), ``Por`` (range in pas),
``Cad`` (shots per action, default 1), ``points``, ``rules`` (the profile's rules and
Force powers, as the seed spells them). ``weapons`` may add a Zone X weapon:
``{"Por": 6, "Cad": 1, "zone": 2}``.

State (``plan.state``, read and written only through
:class:`rules.rulesets.star_wars.state.StarWarsState`): ``turn``, ``initiative`` (side of player 1 this turn),
``activated`` (figures activated this turn), ``phases`` (hero phases played, in
order), ``active_powers`` (``{"Protection": [...], "Dun Möch": [...], "Méditation de
combat": [...]}``, until the end of the turn), ``dead`` (figures killed, kept for
Médico and Guérison). Lost PV are in ``model.extra["pv_lost"]``; a figure knocked
down carries the status ``knocked-down``.

Examples
--------
>>> clamp_threshold(1), clamp_threshold(8)
(2, 6)
>>> threshold_chance(4)
Fraction(1, 2)
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple, cast

from calibration.units import pas
from rules.dice import Dice, Distribution
from rules.errors import IllegalActionError, InvalidActionError
from rules.explain import Step, msg
from rules.measure import model_distance_mm, point_distance_mm
from rules.plan import Model, TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.kit import (
    check_whole_stats,
    measure_how,
    profile_of,
    req_bool,
    req_int,
    req_list,
    req_str,
    ruleset_roster_fail,
    sides_of,
    threshold,
    weapon_of,
    with_extra,
    with_status,
)
from rules.rulesets.star_wars.results import (
    EndTurnResult,
    FigureResult,
    ForceResult,
    HeroPhaseResult,
    MedicResult,
    MeleeResult,
    ShootResult,
    StartTurnResult,
    ThrownResult,
    TroopsPhaseResult,
    ZoneShotResult,
)
from rules.rulesets.star_wars.state import Acted, Dead, Phase, StarWarsState

RULESET = "star-wars"
SRC = "Star Wars Grandes escarmouches"
DOWN = "knocked-down"
CONTACT_MM = 1.0  # base contact tolerance for melee, Médico and Guérison

POWERS = ("Répulsion", "Télékinésie", "Sur-vitesse", "Protection", "Éclairs", "Étranglement", "Dun Möch",
          "Méditation de combat", "Guérison")
RULES = ("Officier", "Officier supérieur", "Armure lourde", "Arme en cortosis", "Armes en cortosis", "Sabre laser",
         "Double sabre laser", "Deux sabres laser", "Deux armes de corps à corps", "Blaster lourd", "Médico",
         "Grande cible", "Gigantesque", "Robuste", "Droïde")
BUBBLE_PAS = MappingProxyType({"Officier": 2, "Officier supérieur": 3})


def _src(section: str) -> str:
    return f"{SRC}, {section}"


def _in_pas(mm: float) -> float:
    """A distance in pas to one decimal, as a message parameter (the edges write the decimal mark)."""
    return round(mm / 25.0, 1)


def ids_or_none(ids: Any) -> Any:
    """Return a list of figure ids as a message parameter, or the message "nobody" when it is empty."""
    out = list(ids)
    return out if out else msg("star_wars.nobody")


def clamp_threshold(n: int) -> int:
    """A threshold is at least 2+ and at most 6+ whatever the modifiers (Caractéristiques, note importante)."""
    return max(2, min(6, n))


def threshold_chance(n: int) -> Fraction:
    """Return the chance a D6 meets ``n``+."""
    return Fraction(7 - n, 6)


# =============================================================================== rosters

def validate_roster(roster: Any) -> None:
    """Refuse a Star Wars roster with bad thresholds, unknown rules, powers or weapons.

    Raises
    ------
    RosterError
        Naming the file and the first fault: a threshold, count, rule, power or weapon.
    """
    fail = ruleset_roster_fail(roster, "star_wars.roster.refused")
    for name, p in roster.profiles.items():
        check_whole_stats(fail, f"profiles.{name}", p, ("T", "C", "Svg", "For"), minimum=2, maximum=6, optional=True,
                          nullable=True, expect="a threshold from 2 to 6 (or null for none)")
        check_whole_stats(fail, f"profiles.{name}", p, ("A", "PV", "Cad"), minimum=1, optional=True,
                          expect="an integer >= 1")
        if p.get("T") is not None and not isinstance(p.get("Por"), (int, float)):
            fail(f"profiles.{name} shoots (T{p['T']}+) but has no range 'Por' in pas",
                 msg_id="star_wars.roster.no_por", params={"profile": name, "t": p["T"]})
        for r in p.get("rules", ()):
            if r not in RULES and r not in POWERS:
                fail(f"profiles.{name} has unknown rule or power {r!r}; rules: {', '.join(RULES)}; powers: "
                     f"{', '.join(POWERS)}",
                     msg_id="star_wars.roster.unknown_rule",
                     params={"profile": name, "rule": r, "rules": list(RULES), "powers": list(POWERS)})
            if r in POWERS and p.get("For") is None:
                fail(f"profiles.{name} has the Force power {r!r} but no Force threshold 'For'",
                     msg_id="star_wars.roster.power_without_for", params={"profile": name, "power": r})
        if "Sabre laser" in p.get("rules", ()) and p.get("For") is None:
            fail(f"profiles.{name}: only Force users (with 'For') may carry a lightsabre",
                 msg_id="star_wars.roster.sabre", params={"profile": name})
    for name, w in roster.weapons.items():
        check_whole_stats(fail, f"weapons.{name}", w, ("Por", "Cad"), minimum=1, expect="an integer >= 1")
        if "zone" in w and (isinstance(w["zone"], bool) or not isinstance(w["zone"], (int, float)) or w["zone"] <= 0):
            fail(f"weapons.{name}.zone must be a positive number of pas, got {w['zone']!r}",
                 msg_id="star_wars.roster.zone", params={"weapon": name, "value": repr(w["zone"])})
    for unit, m in roster.all_models():
        for w in m.weapons:
            if w not in roster.weapons:
                fail(f"model {m.model_id!r} carries unknown weapon {w!r}; weapons are: "
                     f"{', '.join(sorted(roster.weapons)) or '(none)'}",
                     msg_id="star_wars.roster.unknown_weapon",
                     params={"figure": m.model_id, "weapon": w, "weapons": sorted(roster.weapons)
                             or msg("star_wars.none")})
        for r in list(m.rules) + list(unit.rules):
            if r not in RULES and r not in POWERS:
                fail(f"{m.model_id!r} has unknown rule {r!r}",
                     msg_id="star_wars.roster.figure_rule", params={"figure": m.model_id, "rule": r})
        if roster.profile_of(unit, m) is None:
            fail(f"model {m.model_id!r} has no profile",
                 msg_id="star_wars.roster.no_profile", params={"figure": m.model_id})


# =============================================================================== figures

def _profile(plan: TablePlan, m: Model) -> Mapping[str, Any]:
    return profile_of(plan, m.profile or plan.unit(m.unit_id).profile)


def shot_range_pas(plan: TablePlan, shooter: Model, weapon: str | None = None) -> float | None:
    """Return the range (Por, in pas) ``shooter`` shoots at, or ``None`` when neither gives one.

    Règles de Tir: a figure shoots at its profile's Por; a roster ``weapon`` (a Zone X
    weapon) brings its own Por, else the profile's.
    """
    prof = _profile(plan, shooter)
    stats = weapon_of(plan, weapon) if weapon else prof
    por = stats.get("Por", prof.get("Por"))
    return None if por is None else float(por)


def _rules(plan: TablePlan, m: Model) -> list[str]:
    return list(_profile(plan,
                         m).get("rules", ())) + list(plan.unit(m.unit_id).rules or ()) + list(m.extra.get("rules", ()))


def _has(plan: TablePlan, m: Model, rule: str) -> bool:
    return rule in _rules(plan, m)


def _rank(plan: TablePlan, m: Model) -> str | None:
    rules = _rules(plan, m)
    return "Officier supérieur" if "Officier supérieur" in rules else ("Officier" if "Officier" in rules else None)


def _pv_left(plan: TablePlan, m: Model) -> int:
    return int(_profile(plan, m).get("PV", 1)) - int(m.extra.get("pv_lost", 0))


def _side(plan: TablePlan, m: Model) -> str:
    return plan.unit(m.unit_id).side


def _pas(mm: float) -> str:
    return f"{mm / 25.0:.1f} pas"


def _sabre(plan: TablePlan, m: Model) -> bool:
    return any(_has(plan, m, r) for r in ("Sabre laser", "Double sabre laser", "Deux sabres laser"))


def _cortosis(plan: TablePlan, m: Model) -> bool:
    return _has(plan, m, "Arme en cortosis") or _has(plan, m, "Armes en cortosis")


def _heavy(plan: TablePlan, m: Model) -> bool:
    return _has(plan, m, "Armure lourde") or _has(plan, m, "Robuste")


def _state(plan: TablePlan) -> StarWarsState:
    """The game state of ``plan``, typed (:mod:`rules.rulesets.star_wars.state`)."""
    return StarWarsState.of(plan)


def _dun_moch(plan: TablePlan, m: Model, st: StarWarsState) -> Model | None:
    """An enemy Force user with Dun Möch active within 15 pas raises this figure's thresholds by 1."""
    for uid in st.active_powers.get("Dun Möch", ()):
        try:
            u = plan.model(uid)
        except InvalidActionError:
            continue
        if _side(plan, u) != _side(plan, m) and model_distance_mm(u, m, how=measure_how(plan)) < pas(15):
            return u
    return None


def _take_action(st: StarWarsState, model_id: str, action: str, used: int = 1, limit: int = 1) -> StarWarsState:
    """Return ``st`` with a figure's second action of the turn; refuse a second one, or more shots/attacks than it has.

    A figure has two actions per activation and one activation per turn (Activation
    d'une figurine); its shots (Cad) or attacks (A) may go to several targets.
    """
    acted = dict(st.acted)
    prev = acted.get(model_id)
    if prev is not None and prev.action != action:
        raise IllegalActionError(f"{model_id} already took its second action this turn ({prev.action})",
                                 msg_id="star_wars.action.second_taken",
                                 params={"figure": model_id, "action": msg(f"star_wars.action.{prev.action}")})
    total = (prev.used if prev else 0) + used
    if total > limit:
        raise IllegalActionError(f"{model_id} has {limit} "
                                 f"{'shot(s)' if action == 'shoot' else 'attack(s)' if action == 'melee' else 'use'} "
                                 f"this turn and already used {prev.used if prev else 0}",
                                 msg_id=f"star_wars.action.limit_{action}" if action in ("shoot", "melee")
                                 else "star_wars.action.limit",
                                 params={"figure": model_id, "limit": limit, "used": prev.used if prev else 0})
    acted[model_id] = Acted(action, total)
    return st.with_(acted=acted)


# =============================================================================== turn and hero phases

def start_turn(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Roll the initiative: a D6, 4+ for the first side (player 1 in unit order) (Déroulement d'un tour)."""
    sides = sides_of(plan)
    if len(sides) != 2:
        raise IllegalActionError(f"this helper rolls initiative for two sides; the game has {', '.join(sides)}",
                                 msg_id="star_wars.turn.two_sides", params={"sides": sides})
    steps = [Step("initiative", f"D6: 4+ gives the initiative to {sides[0]}, else {sides[1]}",
                  _src("Déroulement d'un tour de jeu"),
                  msg="star_wars.turn.initiative_rule", params={"first": sides[0], "second": sides[1]})]
    odds = {"initiative": Distribution({sides[0]: Fraction(1, 2), sides[1]: Fraction(1, 2)})}
    if dice is None:
        return Resolution(RULESET, "start_turn", tuple(steps), {"initiative": "4+"}, odds)
    f = dice.roll(6)
    side = sides[0] if f >= 4 else sides[1]
    steps.append(Step("initiative die", f"rolled {f}: {side} has the initiative", _src("Déroulement d'un tour de jeu"),
                      msg="star_wars.turn.initiative", params={"face": f, "side": side}))
    st = _state(plan)
    turn = st.turn + (1 if st.initiative else 0)
    st = st.with_(turn=turn, initiative=side, activated=[], phases=[], active_powers={}, acted={}, first_actions={})
    return Resolution(RULESET, "start_turn", tuple(steps), {"initiative": "4+"}, odds, tuple(dice.rolled),
                      StartTurnResult(side, turn), st.on(plan))


def _heroes_left(plan: TablePlan, st: StarWarsState, side: str) -> list[str]:
    return [m.model_id for m in plan.models if _side(plan, m) == side and _rank(plan, m)
            and m.model_id not in st.activated]


def bubble(plan: TablePlan, hero_id: str) -> tuple[float, list[str]]:
    """Return a hero's command bubble (mm) and the friendly non-heroes inside it (Phases d'activation)."""
    hero = plan.model(hero_id)
    rank = _rank(plan, hero)
    if rank is None:
        raise IllegalActionError(f"{hero_id} is not a hero (Officier or Officier supérieur)",
                                 msg_id="star_wars.hero.not_hero", params={"figure": hero_id})
    r = pas(BUBBLE_PAS[rank])
    inside = [m.model_id for m in plan.models if m.model_id != hero_id and _side(plan, m) == _side(plan, hero)
              and not _rank(plan, m) and model_distance_mm(hero, m, how=measure_how(plan)) < r]
    return r, inside


def _expected_side(plan: TablePlan, st: StarWarsState) -> str:
    sides = sides_of(plan)
    first = st.initiative or sides[0]
    second = next(s for s in sides if s != first)
    played = [p.side for p in st.phases]
    nxt = first if not played else (second if played[-1] == first else first)
    if not _heroes_left(plan, st, nxt):
        nxt = second if nxt == first else first
    return nxt


def hero_phase(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Play a hero's activation phase: the hero and any friendly figures in its bubble not yet activated.

    Source: Phases d'activation.

    Hero phases alternate between the sides, the side with the initiative first; a side
    with more heroes plays its remaining ones after. Request: ``hero``, ``with`` (ids).
    """
    st = _state(plan)
    hero_id = req_str(request, "hero")
    hero = plan.model(hero_id)
    side = _side(plan, hero)
    if hero_id in st.activated:
        raise IllegalActionError(f"{hero_id} was already activated this turn; a figure is activated once per turn",
                                 msg_id="star_wars.hero.already", params={"figure": hero_id})
    expected = _expected_side(plan, st)
    if _rank(plan, hero) and side != expected:
        raise IllegalActionError(f"the next hero phase belongs to {expected} ({_src('Phases d activation')})",
                                 msg_id="star_wars.hero.not_your_phase", params={"side": expected})
    r, inside = bubble(plan, hero_id)
    steps = [Step("command bubble",
                  f"{hero_id} ({_rank(plan, hero)}): bubble of {BUBBLE_PAS[cast(str, _rank(plan, hero))]} pas; "
                  f"inside: {', '.join(inside) or 'nobody'}", _src("Phases d'activation"),
                  value=BUBBLE_PAS[cast(str, _rank(plan, hero))],
                  msg="star_wars.hero.bubble",
                  params={"hero": hero_id, "rank": _rank(plan, hero),
                          "bubble": BUBBLE_PAS[cast(str, _rank(plan, hero))], "figures": ids_or_none(inside)})]
    chosen = req_list(request, "with")
    for mid in chosen:
        if mid not in inside:
            m = plan.model(mid)
            d_mm = model_distance_mm(hero, m, how=measure_how(plan))
            why = ("a hero has its own phase" if _rank(plan, m) else "an enemy" if _side(plan, m) != side
                   else f"{_pas(d_mm)} away, "
                        f"not less than {BUBBLE_PAS[cast(str, _rank(plan, hero))]} pas")
            said = (msg("star_wars.why.own_phase") if _rank(plan, m) else msg("star_wars.why.enemy")
                    if _side(plan, m) != side else
                    msg("star_wars.why.outside_bubble", distance=_in_pas(d_mm),
                        bubble=BUBBLE_PAS[cast(str, _rank(plan, hero))]))
            raise IllegalActionError(f"{mid} cannot be activated with {hero_id}: {why}",
                                     msg_id="star_wars.hero.cannot_join",
                                     params={"figure": mid, "hero": hero_id, "why": said})
        if mid in st.activated:
            raise IllegalActionError(f"{mid} was already activated this turn in another hero's phase",
                                     msg_id="star_wars.hero.joined_elsewhere", params={"figure": mid})
    st = st.with_(activated=[*st.activated, hero_id, *chosen],
                  phases=[*st.phases, Phase(side, tuple(chosen), hero=hero_id)])
    eligible = [m for m in inside if m not in st.activated]
    res = HeroPhaseResult(hero_id, (hero_id, *chosen), tuple(inside), tuple(eligible))
    return Resolution(RULESET, "hero_phase", tuple(steps), {}, {}, (), res, st.on(plan))


def troops_phase(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Activate a side's remaining non-hero figures, once no hero is left to activate (Phases d'activation)."""
    st = _state(plan)
    side = req_str(request, "side")
    waiting = [h for s in sides_of(plan) for h in _heroes_left(plan, st, s)]
    if waiting:
        raise IllegalActionError(f"heroes still have their phase to play: {', '.join(waiting)}",
                                 msg_id="star_wars.troops.heroes_left", params={"heroes": waiting})
    sides = sides_of(plan)
    first = st.initiative or sides[0]
    done = [p.side for p in st.phases if p.troops]
    if side != first and first not in done:
        raise IllegalActionError(f"{first} (initiative) activates its remaining figures first",
                                 msg_id="star_wars.troops.initiative_first", params={"side": first})
    figures = [m.model_id for m in plan.models if _side(plan, m) == side and not _rank(plan, m)
               and m.model_id not in st.activated]
    st = st.with_(activated=[*st.activated, *figures], phases=[*st.phases, Phase(side, tuple(figures), troops=True)])
    step = Step("troops", f"{side} activates its figures not activated with a hero: {', '.join(figures) or 'none'}",
                _src("Phases d'activation"),
                msg="star_wars.troops.phase", params={"side": side, "figures": ids_or_none(figures)})
    return Resolution(RULESET, "troops_phase", (step,), {}, {}, (), TroopsPhaseResult(tuple(figures)), st.on(plan))


def end_turn(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """End the turn: activations and the powers lasting the turn cleared; the points left on each side counted."""
    st = _state(plan)
    waiting = [m.model_id for m in plan.models if m.model_id not in st.activated]
    if waiting:
        raise IllegalActionError(f"figures still to activate: {', '.join(waiting)}",
                                 msg_id="star_wars.turn.waiting", params={"figures": waiting})
    points = {s: sum(int(_profile(plan, m).get("points", 0)) for m in plan.models if _side(plan, m) == s)
              for s in sides_of(plan)}
    left = [msg("star_wars.side_points", side=k, points=v) for k, v in points.items()]
    st = st.with_(activated=[], phases=[], active_powers={}, initiative=None, turn=st.turn + 1, acted={},
                  first_actions={})
    step = Step("end of turn", f"points still on the table: {points} (the seed sets no victory condition: "
                "the scenario decides)", _src("Déroulement d'un tour de jeu"),
                msg="star_wars.turn.end", params={"points": left})
    return Resolution(RULESET, "end_turn", (step,), {}, {}, (), EndTurnResult(points, st.turn),
                      st.on(plan))


# =============================================================================== shooting

def _through_figure(plan: TablePlan, a: Model, b: Model) -> str | None:
    """Return the figure a shot from ``a`` to ``b`` would pass through, if any (Règles de Tir, note importante)."""
    from shapely.geometry import LineString, Point

    seg = LineString([a.position_mm, b.position_mm])
    for m in plan.models:
        if m.model_id in (a.model_id, b.model_id):
            continue
        if seg.distance(Point(m.position_mm)) < m.base_mm / 2 - 1e-6:
            return m.model_id
    return None


class _Modifier(NamedTuple):
    """A shooting modifier: its value, the English reason, its source, the reason as a message, its docs entry."""

    value: int
    text: str
    source: str
    why: Any
    doc: str | None = None


def _shot_threshold(plan: TablePlan, shooter: Model, target: Model, st: StarWarsState, *, rng_pas: float,
                    base: int, concentrated: bool, steps: list[Step], allow_long: bool = True,
                    hidden_check: bool = True, at_mm: float | None = None) -> int:
    """Return the roll needed to hit, with every modifier in ``steps`` (Règles de Tir).

    ``at_mm`` overrides the range measured (a Zone attack uses the shot at the point of impact).
    """
    d = model_distance_mm(shooter, target, how=measure_how(plan)) if at_mm is None else at_mm
    if d > pas(2 * rng_pas) or (not allow_long and d > pas(rng_pas)):
        reach = 2 * rng_pas if allow_long else rng_pas
        bound = f"long range up to {2 * rng_pas:g}" if allow_long else f"range {rng_pas:g}"
        raise IllegalActionError(f"{target.model_id} is {_pas(d)} away, out of range ({bound} pas)",
                                 msg_id="shoot.out_of_range_pas",
                                 params={"target": target.model_id, "distance": round(d / 25.0, 1), "reach": reach})
    if _has(plan, target, "Gigantesque"):
        steps.append(Step("Gigantesque", f"{target.model_id} is gigantic: hit on 2+ whatever the circumstances",
                          _src("Règles additionnelles"),
                          msg="star_wars.shoot.gigantic", params={"target": target.model_id}))
        return 2
    n = base
    mods: list[_Modifier] = []
    if _has(plan, shooter, "Blaster lourd"):
        mods.append(_Modifier(-1, "heavy blaster", _src("Règles de Tir"), msg("star_wars.why.heavy_blaster")))
    if concentrated:
        mods.append(_Modifier(-1, "the shooter concentrated (first action)", _src("Activation d'une figurine"),
                              msg("star_wars.why.concentrated")))
    if d > pas(rng_pas):
        mods.append(_Modifier(1, f"long range: {_pas(d)}, between {rng_pas:g} and {2 * rng_pas:g} pas",
                              _src("Règles de Tir"),
                              msg("star_wars.why.long_range", distance=_in_pas(d), range=rng_pas, long=2 * rng_pas)))
    if hidden_check:
        from rules.rulesets import find_ruleset
        from rules.visibility import line_of_sight

        limit = float(find_ruleset(RULESET).resolve_options(plan)["hidden_threshold"])
        s = line_of_sight(plan, shooter.model_id, target.model_id, ruleset=find_ruleset(RULESET))
        if not s.visible:
            raise IllegalActionError(f"{shooter.model_id} cannot see {target.model_id}: "
                                     + "; ".join(f"{k} {i}" for k, i, _ in s.blockers),
                                     msg_id="shoot.no_sight",
                                     params={"who": shooter.model_id, "target": target.model_id,
                                             "what": [i for _, i, _ in s.blockers]})
        from rules.rulesets.star_wars.hidden import hidden_share

        hidden = hidden_share(find_ruleset(RULESET), plan, shooter, target).area  # area, rule choice 3
        if hidden > limit + 1e-9:
            why = f"{hidden:.0%} of {target.model_id}'s base area hidden by an obstacle (more than {limit:.0%})"
            mods.append(_Modifier(1, why, _src("Règles de Tir") + " (rule choice 3)",
                                  msg("star_wars.why.hidden", share=round(100 * hidden), target=target.model_id,
                                      limit=round(100 * limit)), "rule-choices.md#star-wars-3"))
    if _heavy(plan, target):
        mods.append(_Modifier(1, f"{target.model_id} wears heavy armour", _src("Règles de Tir"),
                              msg("star_wars.why.heavy_armour", target=target.model_id)))
    if _has(plan, target, "Grande cible"):
        mods.append(_Modifier(-1, f"{target.model_id} is a large target", _src("Règles additionnelles"),
                              msg("star_wars.why.large_target", target=target.model_id)))
    dm = _dun_moch(plan, shooter, st)
    if dm is not None:
        mods.append(_Modifier(1, f"Dun Möch of {dm.model_id} within 15 pas", _src("Utilisation de la Force, Dun Möch"),
                              msg("star_wars.why.dun_moch", user=dm.model_id)))
    for v, text, source, why, doc in mods:
        n += v
        steps.append(Step("modifier", f"{v:+d}: {text}", source, value=v, msg="star_wars.shoot.modifier",
                          params={"value": f"{v:+d}", "why": why}, doc=doc))
    final = clamp_threshold(n)
    if final != n:
        steps.append(Step("threshold bounds", f"{n}+ brought to {final}+ (thresholds stay between 2+ and 6+)",
                          _src("Caractéristiques"),
                          msg="star_wars.threshold_bounds", params={"need": n, "final": final}))
    return final


def _saves(plan: TablePlan, target: Model, st: StarWarsState, steps: list[Step], *, shooting: bool) -> tuple[int, ...]:
    """Return the saves a figure rolls against one shooting hit, in order (Sauvegarde; Protection; Méditation)."""
    if not shooting:
        return ()
    out: list[int] = []
    own = _profile(plan, target).get("Svg")
    med = None
    for uid in st.active_powers.get("Méditation de combat", ()):
        try:
            u = plan.model(uid)
        except InvalidActionError:
            continue
        if (_side(plan, u) == _side(plan, target) and uid != target.model_id
                and model_distance_mm(u, target, how=measure_how(plan)) < pas(4)):
            med = 5
            steps.append(Step("Méditation de combat", f"{uid} within 4 pas gives a 5+ save",
                              _src("Utilisation de la Force"),
                              msg="star_wars.save.meditation", params={"user": uid}))
    best = min([x for x in (own, med) if x is not None], default=None)
    if best is not None:
        out.append(best)
        steps.append(Step("save", f"{target.model_id} saves on {best}+", _src("Sauvegarde"),
                          msg="star_wars.save.own", params={"target": target.model_id, "need": best}))
    if target.model_id in st.active_powers.get("Protection", ()):
        out.append(3)
        steps.append(Step("Protection", f"{target.model_id}: a further 3+ save if the first fails",
                          _src("Utilisation de la Force, Protection"),
                          msg="star_wars.save.protection", params={"target": target.model_id}))
    return tuple(out)


def _hit_dist(need: int | None, saves: tuple[int, ...]) -> Fraction:
    """Chance one attack takes a PV: hit on ``need`` (None = automatic), then every save fails."""
    p = Fraction(1) if need is None else threshold_chance(need)
    for s in saves:
        p *= 1 - threshold_chance(s)
    return p


def _loss_dist(n: int, p: Fraction, per_hit: int, pv: int) -> Distribution:
    """PV lost out of ``pv`` after ``n`` attacks each taking ``per_hit`` with chance ``p``."""
    dist = Distribution.certain(0)
    one = Distribution.from_pairs(((per_hit, p), (0, 1 - p)))
    for _ in range(n):
        dist = dist.convolve(one, lambda a, b: min(pv, a + b))
    return dist


def _roll_attack(dice: Dice, need: int | None, saves: tuple[int, ...], steps: list[Step], label: str,
                 said: Any = None) -> bool:
    """Roll one attack and its saves; ``label`` names it in English, ``said`` as a message parameter (or ``label``)."""
    said = label if said is None else said
    if need is None:
        steps.append(Step("hit", f"{label}: automatic hit", _src("Règles de Tir"),
                          msg="star_wars.roll.auto_hit", params={"label": said}))
    else:
        f = dice.roll(6)
        steps.append(Step("hit", f"{label}: D6 {f} against {need}+: {'hit' if f >= need else 'miss'}",
                          _src("Règles de Tir"),
                          msg="star_wars.roll.hit" if f >= need else "star_wars.roll.miss",
                          params={"label": said, "face": f, "need": need}))
        if f < need:
            return False
    for s in saves:
        f = dice.roll(6)
        ok = f >= s
        steps.append(Step("save", f"{label}: save D6 {f} against {s}+: {'hit cancelled' if ok else 'failed'}",
                          _src("Sauvegarde"),
                          msg="star_wars.roll.saved" if ok else "star_wars.roll.not_saved",
                          params={"label": said, "face": f, "need": s}))
        if ok:
            return False
    return True


def _wound(plan: TablePlan, target_id: str, lost: int, st: StarWarsState,
           steps: list[Step]) -> tuple[TablePlan, bool, StarWarsState]:
    """Take PV off a figure; at 0 it dies and leaves the table (kept in ``state.dead`` for Médico / Guérison).

    Returns the plan, whether the figure died, and the state (its ``dead`` updated).
    """
    if lost <= 0:
        return plan, False, st
    t = plan.model(target_id)
    total = int(t.extra.get("pv_lost", 0)) + lost
    pv = int(_profile(plan, t).get("PV", 1))
    if total >= pv:
        st = st.with_(dead=[*st.dead, Dead.of(t)])
        steps.append(Step("killed", f"{target_id} loses its last PV and is removed", _src("Points de vie"),
                          msg="star_wars.pv.killed", params={"figure": target_id}))
        return plan.without_model(target_id), True, st
    steps.append(Step("PV", f"{target_id} loses {lost} PV: {pv - total} left", _src("Points de vie"),
                      msg="star_wars.pv.lost", params={"figure": target_id, "lost": lost, "left": pv - total}))
    return plan.with_model(with_extra(t, pv_lost=total)), False, st


def shoot(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Shoot at a figure: the shooter's T, modified, at most Cad shots (Règles de Tir; Sauvegarde; Points de vie).

    Request: ``shooter``, ``target``, optional ``weapon`` (a Zone X weapon from the
    roster), ``shots`` (default the cadence), ``concentrated`` (first action spent
    concentrating).
    """
    st = _state(plan)
    shooter, target = plan.model(req_str(request, "shooter")), plan.model(req_str(request, "target"))
    if _side(plan, shooter) == _side(plan, target):
        raise IllegalActionError(f"{target.model_id} is on {shooter.model_id}'s side",
                                 msg_id="star_wars.same_side", params={"a": shooter.model_id, "b": target.model_id})
    prof = _profile(plan, shooter)
    if prof.get("T") is None:
        raise IllegalActionError(f"{shooter.model_id} has no ranged weapon (TX)", msg_id="shoot.no_ranged_weapon",
                                 params={"who": shooter.model_id})
    wname = req_str(request, "weapon", default=None)
    w = weapon_of(plan, wname) if wname else prof
    rng = shot_range_pas(plan, shooter, wname)
    if rng is None:
        raise IllegalActionError(f"{shooter.model_id} has no range (Por) in its profile or weapon",
                                 msg_id="star_wars.shoot.no_range", params={"figure": shooter.model_id})
    cad = int(w.get("Cad", prof.get("Cad", 1)))
    shots = req_int(request, "shots", cad)
    if not 1 <= shots <= cad:
        raise IllegalActionError(f"{shooter.model_id} fires 1 to {cad} shot(s) per action (Cad), {shots} asked",
                                 msg_id="star_wars.shoot.shots",
                                 params={"figure": shooter.model_id, "cad": cad, "asked": shots})
    through = _through_figure(plan, shooter, target)
    if through:
        raise IllegalActionError(f"the shot from {shooter.model_id} to {target.model_id} would pass through {through}; "
                                 f"no figure shoots through another ({_src('Règles de Tir')})",
                                 msg_id="star_wars.through_figure",
                                 params={"who": shooter.model_id, "target": target.model_id, "through": through})
    concentrated = req_bool(request, "concentrated")
    steps = [Step("shooting", f"{shooter.model_id}: T{prof['T']}+, range {rng:g} pas, {shots} shot(s)",
                  _src("Règles de Tir"),
                  msg="star_wars.shoot.start",
                  params={"figure": shooter.model_id, "t": prof["T"], "range": rng, "shots": shots})]
    if wname and "zone" in w:
        return _zone_shot(plan, request, dice, shooter, target, w, rng, int(prof["T"]), concentrated, st, steps)
    need = _shot_threshold(plan, shooter, target, st, rng_pas=rng, base=int(prof["T"]), concentrated=concentrated,
                           steps=steps)
    saves = _saves(plan, target, st, steps, shooting=True)
    pv = _pv_left(plan, target)
    p = _hit_dist(need, saves)
    odds = {"PV lost": _loss_dist(shots, p, 1, pv)}
    odds["killed"] = odds["PV lost"].map(lambda x: x >= pv)
    needed = {"to hit": threshold(need), **{f"save {i + 1}": threshold(s) for i, s in enumerate(saves)}}
    if dice is None:
        return Resolution(RULESET, "shoot", tuple(steps), needed, odds)
    st = _take_action(st, shooter.model_id, "shoot", shots, cad)
    lost = sum(1 for k in range(shots) if _roll_attack(dice, need, saves, steps, f"shot {k + 1}",
                                                           msg("star_wars.label.shot", n=k + 1)))
    after, killed, st = _wound(plan, target.model_id, min(lost, pv), st, steps)
    return Resolution(RULESET, "shoot", tuple(steps), needed, odds, tuple(dice.rolled),
                      ShootResult(lost, killed), st.on(after))


def _zone_shot(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None, shooter: Model, target: Model,
               w: Mapping[str, Any], rng: float, base: int, concentrated: bool, st: StarWarsState,
               steps: list[Step]) -> Resolution:
    """Zone X: every figure, friend or foe, within X pas of the point of impact takes a shot (Règles de Tir)."""
    _shot_threshold(plan, shooter, target, st, rng_pas=rng, base=base, concentrated=concentrated, steps=[],
                    hidden_check=False)  # the point of impact must be in range
    point = target.position_mm
    x = float(w["zone"])
    from rules.rulesets import find_ruleset
    zone_how = str(find_ruleset(RULESET).resolve_options(plan)["zone_measure"])
    hit = [m for m in plan.models if m.model_id != shooter.model_id
           and point_distance_mm(m, point, how=zone_how) < pas(x)]
    steps.append(Step("Zone", f"Zone {x:g}: figures within {x:g} pas of the impact on {target.model_id}: "
                      f"{', '.join(m.model_id for m in hit)}", _src("Règles de Tir, Zone X")
                      + " (rule choice 2)",
                      msg="star_wars.shoot.zone",
                      params={"x": x, "target": target.model_id, "figures": ids_or_none([m.model_id for m in hit])},
                      doc="rule-choices.md#star-wars-2"))
    plans: list[tuple[Model, int, tuple[int, ...]]] = []
    for m in hit:
        s: list[Step] = []
        need = _shot_threshold(plan, shooter, m, st, rng_pas=rng, base=base, concentrated=concentrated, steps=s,
                               hidden_check=False, at_mm=model_distance_mm(shooter, target, how=measure_how(plan)))
        saves = _saves(plan, m, st, s, shooting=True)
        steps.extend(Step(z.rule, f"{m.model_id}: {z.text}", z.source, z.value, msg="star_wars.figure_says",
                          params={"figure": m.model_id, "what": msg(z.msg, **z.params) if z.msg else z.text})
                     for z in s)
        plans.append((m, need, saves))
    odds = {f"{m.model_id} killed": Distribution.from_pairs(((True, _kill_p(plan, m, need, saves)),
                                                            (False, 1 - _kill_p(plan, m, need, saves))))
            for m, need, saves in plans}
    needed = {f"to hit {m.model_id}": threshold(need) for m, need, _ in plans}
    if dice is None:
        return Resolution(RULESET, "shoot", tuple(steps), needed, odds)
    st = _take_action(st, shooter.model_id, "shoot", 1, int(w.get("Cad", 1)))
    after = plan
    killed = []
    for m, need, saves in plans:
        if _roll_attack(dice, need, saves, steps, m.model_id):
            after, dead, st = _wound(after, m.model_id, 1, st, steps)
            if dead:
                killed.append(m.model_id)
    return Resolution(RULESET, "shoot", tuple(steps), needed, odds, tuple(dice.rolled),
                      ZoneShotResult(tuple(m.model_id for m in hit), tuple(killed)), st.on(after))


def _kill_p(plan: TablePlan, m: Model, need: int, saves: tuple[int, ...]) -> Fraction:
    return _hit_dist(need, saves) if _pv_left(plan, m) <= 1 else Fraction(0)


# =============================================================================== melee

def melee(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Fight in base contact: each attack hits on C, the defender parries on its own C.

    Source: Règles de Combat au corps à corps.

    Heavy armour lowers the defender's threshold by 1 (not against a lightsabre); a
    figure knocked down cannot defend; against a lightsabre only a lightsabre or a
    cortosis weapon parries, and a lightsabre hit takes 2 PV. A parried defender steps
    back 1 pas. Request: ``attacker``, ``defender``, optional ``attacks`` (default A, +1
    with two weapons or two lightsabres).
    """
    st = _state(plan)
    a, d = plan.model(req_str(request, "attacker")), plan.model(req_str(request, "defender"))
    if _side(plan, a) == _side(plan, d):
        raise IllegalActionError(f"{d.model_id} is on {a.model_id}'s side",
                                 msg_id="star_wars.same_side", params={"a": a.model_id, "b": d.model_id})
    if model_distance_mm(a, d) > CONTACT_MM:
        raise IllegalActionError(f"{a.model_id} is {_pas(model_distance_mm(a, d))} from {d.model_id}: melee needs "
                                 "base contact",
                                 msg_id="star_wars.melee.contact",
                                 params={"attacker": a.model_id, "distance": _in_pas(model_distance_mm(a, d)),
                                         "defender": d.model_id})
    pa, pd = _profile(plan, a), _profile(plan, d)
    if pa.get("C") is None:
        raise IllegalActionError(f"{a.model_id} cannot fight in melee (CX)",
                                 msg_id="star_wars.melee.cx", params={"figure": a.model_id})
    steps: list[Step] = []
    n_att = int(pa.get("A", 1))
    if any(_has(plan, a, r) for r in ("Deux armes de corps à corps", "Double sabre laser", "Deux sabres laser")):
        n_att += 1
        steps.append(Step("attacks", "+1 attack: two weapons or two lightsabres",
                          _src("Règles de Combat au corps à corps"),
                          msg="star_wars.melee.two_weapons"))
    most = n_att
    n_att = req_int(request, "attacks", n_att)
    if not 1 <= n_att <= most:
        raise IllegalActionError(f"{a.model_id} makes 1 to {most} attack(s) per combat action, {n_att} asked",
                                 msg_id="star_wars.melee.attacks",
                                 params={"figure": a.model_id, "most": most, "asked": n_att})
    need_a = int(pa["C"])
    dm = _dun_moch(plan, a, st)
    if dm is not None:
        need_a += 1
        steps.append(Step("modifier", f"+1: Dun Möch of {dm.model_id}", _src("Utilisation de la Force, Dun Möch"),
                          value=1,
                          msg="star_wars.melee.dun_moch", params={"user": dm.model_id}))
    need_a = clamp_threshold(need_a)
    sabre = _sabre(plan, a)
    can_defend = pd.get("C") is not None and not d.has_status(DOWN) and not (sabre
                                                                             and not (_sabre(plan, d)
                                                                                      or _cortosis(plan, d)))
    need_d: int | None = None
    if not can_defend:
        why = ("cannot fight (CX)" if pd.get("C") is None else "is knocked down" if d.has_status(DOWN)
               else "has neither lightsabre nor cortosis weapon against a lightsabre")
        steps.append(Step("no defence", f"{d.model_id} {why}: a successful attack is a hit",
                          _src("Règles de Combat au corps à corps"),
                          msg="star_wars.melee.no_defence",
                          params={"figure": d.model_id, "why": msg("star_wars.why.cx") if pd.get("C") is None
                                  else msg("star_wars.why.down") if d.has_status(DOWN)
                                  else msg("star_wars.why.no_sabre")}))
    else:
        need_d = int(pd["C"])
        if _heavy(plan, d) and not sabre:
            need_d -= 1
            steps.append(Step("modifier", f"-1: {d.model_id} defends in heavy armour", _src("Armure lourde"), value=-1,
                              msg="star_wars.melee.heavy_armour", params={"figure": d.model_id}))
        dd = _dun_moch(plan, d, st)
        if dd is not None:
            need_d += 1
            steps.append(Step("modifier", f"+1: Dun Möch of {dd.model_id} on the defender",
                              _src("Utilisation de la Force, Dun Möch"), value=1,
                              msg="star_wars.melee.dun_moch_defender", params={"user": dd.model_id}))
        need_d = clamp_threshold(need_d)
    per_hit = 2 if sabre else 1
    steps.append(Step("melee", f"{n_att} attack(s) hitting on {need_a}+" + (f", parried on {need_d}+" if need_d else "")
                      + f"; a hit takes {per_hit} PV" + (" (lightsabre)" if sabre else ""),
                      _src("Règles de Combat au corps à corps"),
                      msg="star_wars.melee.parried_on" if need_d else "star_wars.melee.unparried",
                      params={"attacks": n_att, "need": need_a, "parry": need_d, "pv": per_hit,
                              "sabre": msg("star_wars.melee.sabre") if sabre else ""}))
    p = threshold_chance(need_a) * (1 - threshold_chance(need_d) if need_d else 1)
    pv = _pv_left(plan, d)
    odds = {"PV lost": _loss_dist(n_att, p, per_hit, pv)}
    odds["killed"] = odds["PV lost"].map(lambda x: x >= pv)
    needed = {"attack": threshold(need_a), **({"parry": threshold(need_d)} if need_d else {})}
    if dice is None:
        return Resolution(RULESET, "melee", tuple(steps), needed, odds)
    st = _take_action(st, a.model_id, "melee", n_att, most)
    lost, pushed = 0, 0
    for k in range(n_att):
        f = dice.roll(6)
        if f < need_a:
            steps.append(Step("attack", f"attack {k + 1}: D6 {f}: miss", _src("Règles de Combat au corps à corps"),
                              msg="star_wars.melee.miss", params={"n": k + 1, "face": f}))
            continue
        if need_d is not None:
            g = dice.roll(6)
            if g >= need_d:
                pushed += 1
                steps.append(Step("parry",
                                  f"attack {k + 1}: D6 {f} hits, parried with {g}: {d.model_id} steps back 1 pas",
                                  _src("Règles de Combat au corps à corps"),
                                  msg="star_wars.melee.parried",
                                  params={"n": k + 1, "face": f, "parry": g, "defender": d.model_id}))
                continue
        lost += per_hit
        steps.append(Step("hit", f"attack {k + 1}: D6 {f}: hit, {per_hit} PV",
                          _src("Règles de Combat au corps à corps"),
                          msg="star_wars.melee.hit", params={"n": k + 1, "face": f, "pv": per_hit}))
    after, killed, st = _wound(plan, d.model_id, min(lost, pv), st, steps)
    return Resolution(RULESET, "melee", tuple(steps), needed, odds, tuple(dice.rolled),
                      MeleeResult(min(lost, pv), killed, pushed), st.on(after))


# =============================================================================== the Force

def _power_roll_needed(plan: TablePlan, user: Model, concentrated: bool, st: StarWarsState, steps: list[Step]) -> int:
    f = _profile(plan, user).get("For")
    if f is None:
        raise IllegalActionError(f"{user.model_id} is not a Force user (no For)",
                                 msg_id="star_wars.force.not_user", params={"figure": user.model_id})
    n = int(f)
    if concentrated:
        n -= 1
        steps.append(Step("modifier", "-1: concentrated (first action)", _src("Activation d'une figurine"), value=-1,
                          msg="star_wars.force.concentrated"))
    return clamp_threshold(n)


def _resist(plan: TablePlan, target: Model) -> int | None:
    """Return the D6 a Force user must beat (strictly) to cancel an enemy power, or ``None``."""
    f = _profile(plan, target).get("For")
    return None if f is None else int(f) + 1


def force(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Use a Force power: a D6 on For, then the power; a targeted Force user may resist (Utilisation de la Force).

    Request: ``user``, ``power``, ``target`` (a figure, or a dead figure's id for
    Guérison), ``concentrated``.
    """
    st = _state(plan)
    user = plan.model(req_str(request, "user"))
    power = req_str(request, "power")
    if power not in POWERS:
        raise InvalidActionError(f"unknown power {power!r}; powers: {', '.join(POWERS)}",
                                 msg_id="star_wars.force.unknown", params={"power": power, "powers": list(POWERS)})
    if not _has(plan, user, power):
        raise IllegalActionError(f"{user.model_id} does not have the power {power} on its profile",
                                 msg_id="star_wars.force.not_known", params={"figure": user.model_id, "power": power})
    steps: list[Step] = []
    need = _power_roll_needed(plan, user, req_bool(request, "concentrated"), st, steps)
    steps.append(Step("power", f"{power}: {need}+ on a D6", _src("Utilisation de la Force"), value=need,
                      msg="star_wars.force.roll", params={"power": power, "need": need}))
    p_ok = threshold_chance(need)
    targets = _power_targets(plan, user, power, request, st)
    outcome = Distribution.from_pairs((("used", p_ok), ("failed", 1 - p_ok)))
    odds = {"power": outcome}
    resist_targets = [t for t in targets if isinstance(t, Model) and _side(plan, t) != _side(plan, user)
                      and _resist(plan, t)]
    for t in resist_targets:
        r = _resist(plan, t)
        steps.append(Step("resistance", f"{t.model_id} is a Force user: cancels on {r}+ (more than its For)",
                          _src("Résistance à un pouvoir"),
                          msg="star_wars.force.resists", params={"figure": t.model_id, "need": r}))
    if dice is None:
        return Resolution(RULESET, "force", tuple(steps), {"power": threshold(need)}, odds)
    st = _take_action(st, user.model_id, "force")
    f = dice.roll(6)
    steps.append(Step("power die", f"D6 {f}: {'the power works' if f >= need else 'failed'}",
                      _src("Utilisation de la Force"),
                      msg="star_wars.force.works" if f >= need else "star_wars.force.failed", params={"face": f}))
    after, affected = plan, list[str]()
    if f >= need:
        kept = []
        for t in targets:
            if isinstance(t, Model) and t in resist_targets:
                g = dice.roll(6)
                if g >= cast(int, _resist(plan, t)):  # resist_targets all have For
                    steps.append(Step("resistance", f"{t.model_id} rolls {g}: the power is cancelled on it",
                                      _src("Résistance à un pouvoir"),
                                      msg="star_wars.force.cancelled", params={"figure": t.model_id, "face": g}))
                    continue
                steps.append(Step("resistance", f"{t.model_id} rolls {g}: no resistance",
                                  _src("Résistance à un pouvoir"),
                                  msg="star_wars.force.not_cancelled", params={"figure": t.model_id, "face": g}))
            kept.append(t)
        after, affected, st = _power_effect(plan, user, power, kept, dice, st, steps)
    result = ForceResult(power, f >= need, tuple(affected))
    return Resolution(RULESET, "force", tuple(steps), {"power": threshold(need)}, odds, tuple(dice.rolled), result,
                      st.on(after))


def _power_targets(plan: TablePlan, user: Model, power: str, request: Mapping[str, Any],
                   st: StarWarsState) -> list[Any]:
    if power == "Répulsion":
        return [m for m in plan.models
                if _side(plan, m) != _side(plan, user) and model_distance_mm(user, m, how=measure_how(plan)) < pas(3)]
    if power in ("Télékinésie", "Éclairs", "Étranglement"):
        t = plan.model(req_str(request, "target"))
        rng = {"Télékinésie": 10, "Éclairs": 6, "Étranglement": 4}[power]
        if _side(plan, t) == _side(plan, user):
            raise IllegalActionError(f"{power} targets an enemy figure",
                                     msg_id="star_wars.force.enemy_only", params={"power": power})
        d = model_distance_mm(user, t, how=measure_how(plan))
        if d > pas(rng):
            raise IllegalActionError(f"{t.model_id} is {_pas(d)} away; {power} reaches {rng} pas",
                                     msg_id="star_wars.force.out_of_reach",
                                     params={"target": t.model_id, "distance": _in_pas(d), "power": power,
                                             "reach": rng})
        return [t]
    if power == "Guérison":
        tid = req_str(request, "target")
        rec = next((d for d in st.dead if d.id == tid), None)
        if rec is None:
            raise IllegalActionError(f"{tid} is not a dead figure of this game", msg_id="star_wars.not_dead",
                                     params={"figure": tid})
        return [rec]
    return []


def _power_effect(plan: TablePlan, user: Model, power: str, targets: list[Any], dice: Dice, st: StarWarsState,
                  steps: list[Step]) -> tuple[TablePlan, list[str], StarWarsState]:
    after = plan
    affected: list[str] = []
    src = _src(f"Utilisation de la Force, {power}")
    if power == "Répulsion":
        for t in targets:
            if _has(plan, t, "Grande cible") or _has(plan, t, "Gigantesque"):
                steps.append(Step("Répulsion", f"{t.model_id} is too big to be knocked down", src,
                                  msg="star_wars.power.too_big", params={"figure": t.model_id}))
                continue
            after = after.with_model(with_status(after.model(t.model_id), add=[DOWN]))
            affected.append(t.model_id)
        steps.append(Step("Répulsion", f"knocked down: {', '.join(affected) or 'nobody'}", src,
                          msg="star_wars.power.knocked_down", params={"figures": ids_or_none(affected)}))
    elif power in ("Télékinésie", "Éclairs", "Étranglement") and targets:
        t = targets[0]
        need = {"Télékinésie": 3, "Éclairs": None, "Étranglement": 2}[power]
        saves = _saves(plan, t, st, steps, shooting=power != "Étranglement")
        if _roll_attack(dice, need, saves, steps, power):
            after, dead, st = _wound(after, t.model_id, 1, st, steps)
            affected.append(t.model_id)
            if not dead and power == "Étranglement" and not (_has(plan, t, "Grande cible")
                                                             or _has(plan, t, "Gigantesque")):
                after = after.with_model(with_status(after.model(t.model_id), add=[DOWN]))
                steps.append(Step("Étranglement", f"{t.model_id} survives and is knocked down", src,
                                  msg="star_wars.power.strangled", params={"figure": t.model_id}))
        if power == "Télékinésie" and _pv_left(plan, t) == 1 and t.model_id in [m.model_id for m in after.models]:
            steps.append(Step("Télékinésie",
                              f"{t.model_id} (1 PV) may be moved 6 pas; if it hits an obstacle or a figure, "
                              "resolve the collision with the action thrown", src,
                              msg="star_wars.power.thrown", params={"figure": t.model_id}))
    elif power in ("Protection", "Dun Möch", "Méditation de combat"):
        st = st.with_(active_powers={**st.active_powers,
                                     power: tuple(sorted(set(st.active_powers.get(power, ())) | {user.model_id}))})
        affected.append(user.model_id)
        steps.append(Step(power, f"active for {user.model_id} until the end of the turn (the seed gives no duration)",
                          src,
                          msg="star_wars.power.active", params={"power": power, "figure": user.model_id}))
    elif power == "Sur-vitesse":
        affected.append(user.model_id)
        steps.append(Step("Sur-vitesse", f"{user.model_id} moves 6 more pas", src, value=6,
                          msg="star_wars.power.speed_done", params={"figure": user.model_id}))
    elif power == "Guérison":
        after, ok, st = _revive(plan, user, targets[0], st, steps, src)
        if ok:
            affected.append(targets[0].id)
    return after, affected, st


def _revive(plan: TablePlan, healer: Model, rec: Dead, st: StarWarsState, steps: list[Step],
            src: str) -> tuple[TablePlan, bool, StarWarsState]:
    ghost = Model(rec.id, rec.unit, (rec.x_mm, rec.y_mm), rec.base_mm, profile=rec.profile, marker_id=rec.marker_id)
    if model_distance_mm(healer, ghost) > CONTACT_MM:
        raise IllegalActionError(f"{rec.id} is {_pas(model_distance_mm(healer, ghost))} from {healer.model_id}: "
                                 "base contact needed",
                                 msg_id="star_wars.revive.contact",
                                 params={"figure": rec.id, "distance": _in_pas(model_distance_mm(healer, ghost)),
                                         "healer": healer.model_id})
    if int(profile_of(plan, rec.profile).get("PV", 1)) != 1:
        raise IllegalActionError(f"{rec.id} had more than one PV: it cannot be brought back",
                                 msg_id="star_wars.revive.pv", params={"figure": rec.id})
    st = st.with_(dead=[d for d in st.dead if d.id != rec.id])
    steps.append(Step("restored", f"{rec.id} gets 1 PV back and returns to the table", src,
                      msg="star_wars.revive.done", params={"figure": rec.id}))
    return dataclasses.replace(plan, models=plan.models + (ghost,)), True, st


def medic(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Médico: bring back a dead one-PV figure in base contact on 3+ (2+ after concentrating); not a droid.

    Source: Règles additionnelles.
    """
    st = _state(plan)
    healer = plan.model(req_str(request, "medic"))
    if not _has(plan, healer, "Médico"):
        raise IllegalActionError(f"{healer.model_id} has no Médico rule",
                                 msg_id="star_wars.medic.none", params={"figure": healer.model_id})
    tid = req_str(request, "target")
    rec = next((d for d in st.dead if d.id == tid), None)
    if rec is None:
        raise IllegalActionError(f"{tid} is not a dead figure of this game", msg_id="star_wars.not_dead",
                                 params={"figure": tid})
    if "Droïde" in profile_of(plan, rec.profile).get("rules", ()):
        raise IllegalActionError(f"{tid} is a droid: Médico cannot restore it",
                                 msg_id="star_wars.medic.droid", params={"figure": tid})
    need = 2 if req_bool(request, "concentrated") else 3
    steps = [Step("Médico", f"{need}+ on a D6 to restore 1 PV to {tid}", _src("Règles additionnelles, Médico"),
                  value=need,
                  msg="star_wars.medic.roll", params={"need": need, "figure": tid})]
    odds = {"restored": Distribution.from_pairs(((True, threshold_chance(need)), (False, 1 - threshold_chance(need))))}
    if dice is None:
        return Resolution(RULESET, "medic", tuple(steps), {"medic": threshold(need)}, odds)
    st = _take_action(st, healer.model_id, "medic")
    f = dice.roll(6)
    after = plan
    if f >= need:
        after, _, st = _revive(plan, healer, rec, st, steps, _src("Règles additionnelles, Médico"))
    else:
        steps.append(Step("Médico", f"D6 {f}: failed", _src("Règles additionnelles, Médico"),
                          msg="star_wars.medic.failed", params={"face": f}))
    return Resolution(RULESET, "medic", tuple(steps), {"medic": threshold(need)}, odds, tuple(dice.rolled),
                      MedicResult(f >= need), st.on(after))


def stand_up(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """A knocked-down figure gets up as its second action (Activation d'une figurine)."""
    m = plan.model(req_str(request, "model"))
    if not m.has_status(DOWN):
        raise IllegalActionError(f"{m.model_id} is not knocked down",
                                 msg_id="star_wars.stand_up.not_down", params={"figure": m.model_id})
    step = Step("stand up", f"{m.model_id} gets up and can defend again", _src("Activation d'une figurine"),
                msg="star_wars.stand_up.done", params={"figure": m.model_id})
    return Resolution(RULESET, "stand_up", (step,), {}, {}, (), FigureResult(m.model_id),
                      plan.with_model(with_status(m, remove=[DOWN])))


#: The main arguments of each action as typed on the command line (``tabletracker resolve``).
ARGUMENTS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "hero_phase": ("hero",), "troops_phase": ("side",), "shoot": ("shooter", "target"),
    "melee": ("attacker", "defender"), "force": ("user", "power"), "medic": ("medic", "target"), "stand_up": ("model",),
    "thrown": ("model",),
})

def thrown(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """A figure moved by Télékinésie hits an obstacle: a C4+ attack it cannot parry.

    Source: Utilisation de la Force, Télékinésie.

    Request: ``model`` (the figure thrown), optional ``into`` (the figure it hits). A
    figure hit without For and with one PV takes the same attack; one with more PV is
    unhurt; one with For steps aside (no collision, the thrown figure flies on).
    """
    st = _state(plan)
    m = plan.model(req_str(request, "model"))
    into_id = req_str(request, "into", default=None)
    src = _src("Utilisation de la Force, Télékinésie")
    victims = [m]
    steps: list[Step] = []
    if into_id is not None:
        o = plan.model(into_id)
        if _profile(plan, o).get("For") is not None:
            steps.append(Step("Télékinésie", f"{into_id} is a Force user: it steps aside, {m.model_id} flies on", src,
                              msg="star_wars.thrown.aside", params={"figure": into_id, "thrown": m.model_id}))
            return Resolution(RULESET, "thrown", tuple(steps), {}, {}, (), ThrownResult(False), plan)
        if _pv_left(plan, o) == 1:
            victims.append(o)
            steps.append(Step("Télékinésie", f"{into_id} (1 PV) is struck too", src,
                              msg="star_wars.thrown.struck", params={"figure": into_id}))
        else:
            steps.append(Step("Télékinésie", f"{into_id} has more than 1 PV: only {m.model_id} is hurt", src,
                              msg="star_wars.thrown.unhurt", params={"figure": into_id, "thrown": m.model_id}))
    steps.append(Step("collision", f"{', '.join(v.model_id for v in victims)}: a C4+ attack each, no parry", src,
                      value=4,
                      msg="star_wars.thrown.collision", params={"figures": [v.model_id for v in victims]}))
    p = threshold_chance(4)
    odds = {f"{v.model_id} killed": Distribution.from_pairs(((True, p if _pv_left(plan, v) <= 1 else Fraction(0)),
                                                            (False, 1 - p if _pv_left(plan, v) <= 1 else Fraction(1))))
            for v in victims}
    if dice is None:
        return Resolution(RULESET, "thrown", tuple(steps), {"attack": "4+"}, odds)
    after, killed = plan, []
    for v in victims:
        f = dice.roll(6)
        steps.append(Step("collision", f"{v.model_id}: D6 {f}: {'hit' if f >= 4 else 'unhurt'}", src,
                          msg="star_wars.thrown.hit" if f >= 4 else "star_wars.thrown.missed",
                          params={"figure": v.model_id, "face": f}))
        if f >= 4:
            after, dead, st = _wound(after, v.model_id, 1, st, steps)
            if dead:
                killed.append(v.model_id)
    return Resolution(RULESET, "thrown", tuple(steps), {"attack": "4+"}, odds, tuple(dice.rolled),
                      ThrownResult(True, tuple(killed)), st.on(after))


ACTIONS: Mapping[str, Action] = MappingProxyType({
    "thrown": thrown,
    "start_turn": start_turn, "hero_phase": hero_phase, "troops_phase": troops_phase, "end_turn": end_turn,
    "shoot": shoot, "melee": melee, "force": force, "medic": medic, "stand_up": stand_up,
})
