"""High Fire (initiation rules v0.5.1): activation points, shooting and assaults on the UNITABLE.

Implemented from seeds/high-fire-v0.5.1.md. The UNITABLE (effect value x D10 ->
letter), what each letter does, the modifiers and the weapons are in the game's
reference booklet, which is not available: they are read from a tables file the
players fill in (``rules/rulesets/high_fire/tables.json``, shipped empty, or the tables the
edges load into ``plan.options["high_fire_tables"]``: see :func:`with_tables_file`). When a
resolution needs a missing row or entry it raises :class:`~rules.errors.MissingTableError` naming the entry and the
file; no number is ever invented here.

Stats (roster ``profiles``): ``{"QL", "CD", "CR", "AR"}`` integers, ``"rank"`` for
officers. ATT = CD + the weapon's PF; DEF = AR + half the QL rounded up
(Caractéristiques). Weapons are names; their PF, range and extra D10s come from the
tables file (or a roster weapon entry that gives ``pf`` and ``range_in``).

States are model statuses: ``stunned`` (Sonné), ``wounded`` (Blessé),
``out-of-action`` (Hors de combat; the figure stays on the table until healed).
Game state (``plan.state``): read and written only through
:class:`~rules.rulesets.high_fire.state.HighFireState` (turn, phase, side acting first,
PA per phase, units activated, actions taken, units engaged, units observed).

Examples
--------
>>> defence_value({"QL": 5, "AR": 2})
5
>>> attack_value({"CD": 3}, {"pf": 2})
5
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, NoReturn, cast

from calibration.fields import read_json_file
from calibration.units import inches
from rules.dice import Dice, Distribution, die
from rules.errors import IllegalActionError, InvalidActionError, MissingTableError, RosterError
from rules.explain import Step, msg
from rules.frozen import freeze, thaw
from rules.measure import model_distance_mm
from rules.plan import Model, TablePlan
from rules.resolution import Action, Resolution
from rules.rulesets.high_fire.results import (
    Activation,
    AssaultResult,
    Engaged,
    InitiativeWon,
    MotivationResult,
    Observed,
    PhaseChanged,
    ShotResult,
    TurnStarted,
)
from rules.rulesets.high_fire.state import HighFireState
from rules.rulesets.kit import (
    check_model_kit,
    check_whole_stats,
    profile_of,
    req_bool,
    req_list,
    req_str,
    roster_fail,
    sides_of,
    with_status,
)

if TYPE_CHECKING:
    from rules.rulesets.high_fire import HighFire

RULESET = "high-fire"


def _hf() -> "HighFire":
    """This rule set's class instance (imported late: its package imports this module)."""
    from rules.rulesets.high_fire import HIGH_FIRE

    return HIGH_FIRE
SRC = "High Fire v0.5.1"
TABLES_PATH = Path(__file__).resolve().parent / "tables.json"
STUNNED, WOUNDED, OUT = "stunned", "wounded", "out-of-action"
EFFECTS = ("none", STUNNED, WOUNDED, OUT)
EFFECT_FR = MappingProxyType({"none": "sans effet", STUNNED: "Sonné", WOUNDED: "Blessé", OUT: "Hors de combat"})
#: Model and unit rules the seed names: jump harnesses, specialists, command units.
KNOWN_RULES = ("jump harness", "specialist", "command")
#: Infantry actions and their moves in inches (Actions de l'infanterie).
ACTIONS_IN = MappingProxyType({"careful": 3, "tactical": 4, "fast": 8, "jump": 8, "aimed": 1, "assault": 4,
                               "observe": 1, "quick-op": 4, "long-op": 1})
ACTION_FR = MappingProxyType({"careful": "Progression prudente", "tactical": "Progression tactique",
             "fast": "Progression rapide", "jump": "Progression par saut", "aimed": "Tir appuyé",
             "assault": "Assaut", "observe": "Observation",
             "quick-op": "Opération rapide", "long-op": "Opération longue"})
PHASES = (("first", "action1"), ("second", "reaction"), ("first", "action2"),
          ("second", "action1"), ("first", "reaction"), ("second", "action2"))
AIMED_BONUS = 1  # Tir appuyé: +1 to the effect value (table of infantry actions)


def _src(section: str) -> str:
    return f"{SRC}, {section}"


def effect_msg(effect: str) -> Mapping[str, Any]:
    """What a UNITABLE result does to a figure, as a message (sans effet, Sonné, Blessé, Hors de combat)."""
    return msg("high_fire.effect." + {OUT: "out"}.get(effect, effect))


def phase_msg(phase: Any) -> Mapping[str, Any]:
    """A step of the turn as a message: an action phase's number, or start, initiative, assault, motivation."""
    if isinstance(phase, int):
        return msg("high_fire.phase.number", number=phase + 1)
    return msg(f"high_fire.phase.{phase}")


def _inches(mm: float, digits: int = 1) -> float:
    return round(mm / 25.4, digits)


# =============================================================================== the tables file

@dataclass(frozen=True)
class Tables:
    """The booklet's tables as the players typed them in, and where they came from."""

    data: Mapping[str, Any]
    path: str

    def _missing(self, entry: str, how: str, msg_id: str = "", **params: Any) -> MissingTableError:
        # In the player's words: which entry of their booklet's tables is missing; the file and
        # its JSON key follow, for whoever fills it in (docs/rule-choices.md#high-fire-5).
        return MissingTableError(
            f"High Fire needs {entry} from your reference booklet's tables, which this game's tables do not "
            f"have yet (the program never guesses these numbers); to add it: {how} in the tables file "
            f"{Path(self.path).name}", msg_id=f"high_fire.missing.{msg_id}" if msg_id else None, params=params)

    def letter(self, value: int, face: int) -> str:
        """Return the UNITABLE letter for an effect value and a D10 face."""
        row = self.row(value)
        return row[face - 1]

    def row(self, value: int) -> tuple[str, ...]:
        rows = self.data.get("unitable", {}).get("rows", {})
        row = rows.get(str(value))
        if row is None:
            raise self._missing(f"the UNITABLE row for effect value {value}",
                                f'add "{value}": [the 10 letters for D10 = 1 to 10] under unitable.rows',
                                msg_id="row", value=value)
        if not isinstance(row, (list, tuple)) or len(row) != 10 or not all(isinstance(x, str) and x for x in row):
            raise MissingTableError(f"{self.path}: unitable.rows.{value} must list 10 letters (D10 = 1 to 10), "
                                    f"got {row!r}",
                                    msg_id="high_fire.tables.bad_row", params={"value": value})
        return tuple(row)

    def effect(self, kind: str, letter: str) -> str:
        """Return what a letter does to a figure (``none``, ``stunned``, ``wounded``, ``out-of-action``)."""
        res = self.data.get("results", {}).get(kind, {})
        if letter not in res:
            raise self._missing(f"the effect of result {letter!r} in {kind}",
                                f'add "{letter}": one of "none", "stunned", "wounded", "out-of-action" '
                                f'under results.{kind}',
                                msg_id="effect", letter=letter, kind=kind)
        eff = res[letter]
        if eff not in EFFECTS:
            raise MissingTableError(f"{self.path}: results.{kind}.{letter} must be one of {', '.join(EFFECTS)}, "
                                    f"got {eff!r}",
                                    msg_id="high_fire.tables.bad_effect",
                                    params={"kind": kind, "letter": letter, "effects": list(EFFECTS)})
        return str(eff)

    def modifier(self, kind: str, name: str) -> int:
        """Return the value of a named modifier (``kind`` is ``shooting`` or ``assault``)."""
        mods = self.data.get("modifiers", {}).get(kind, {})
        if name not in mods:
            raise self._missing(f"the {kind} modifier {name!r}", f'add "{name}": its value under modifiers.{kind}',
                                msg_id="modifier", name=name, kind=kind)
        v = mods[name]
        if isinstance(v, bool) or not isinstance(v, int):
            raise MissingTableError(f"{self.path}: modifiers.{kind}.{name} must be an integer, got {v!r}",
                                    msg_id="high_fire.tables.bad_modifier", params={"kind": kind, "name": name})
        return v

    def weapon(self, name: str, fallback: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """Return ``{"pf", "range_in", "extra_d10", "indirect"}`` of a weapon."""
        w = self.data.get("weapons", {}).get(name)
        if w is None and fallback and "pf" in fallback:
            w = fallback
        if w is None:
            raise self._missing(f"the weapon {name!r}", f'add "{name}": {{"pf": .., "range_in": .., "extra_d10": 0, '
                                f'"indirect": false}} under weapons', msg_id="weapon", name=name)
        for key in ("pf", "range_in"):
            if isinstance(w.get(key), bool) or not isinstance(w.get(key), (int, float)):
                raise MissingTableError(f"{self.path}: weapons.{name}.{key} must be a number, got {w.get(key)!r}",
                                        msg_id="high_fire.tables.bad_weapon", params={"name": name, "key": key})
        return cast(Mapping[str, Any], w)

    def rank(self, letter: str) -> int:
        """Return a letter's place in ``letter_order`` (best first), for comparing results."""
        order = list(self.data.get("letter_order", ()))
        if letter not in order:
            raise self._missing(f"the order of the UNITABLE letters (to compare {letter!r})",
                                'list the letters from best to worst under "letter_order"', msg_id="order",
                                letter=letter)
        return order.index(letter)


@functools.lru_cache(maxsize=16)
def _read_tables(path: str, mtime: float) -> Tables:
    data = read_json_file(path, what="High Fire tables file", error=MissingTableError)
    if not isinstance(data, dict):
        raise MissingTableError(f"{path}: the High Fire tables file must be a JSON object",
                                msg_id="high_fire.tables.not_object", params={"file": Path(path).name})
    return Tables(freeze(data), path)


def load_tables(path: str | Path | None = None) -> Tables:
    """Read the High Fire tables file (default: the bundled, empty one)."""
    p = Path(path) if path is not None else TABLES_PATH
    try:
        mtime = p.stat().st_mtime
    except OSError as exc:
        raise MissingTableError(f"{p}: cannot read the High Fire tables file ({exc.strerror or exc}); "
                                f"start from a copy of {TABLES_PATH}", msg_id="high_fire.tables.unreadable",
                                params={"file": p.name}) from None
    return _read_tables(str(p), mtime)


BUNDLED_TABLES = load_tables()  # read once, at import: the rules core opens no file while answering


def tables_for(plan: TablePlan) -> Tables:
    """Return the players' tables carried by the game (``options.high_fire_tables``), else the bundled empty ones.

    The tables are data in the game, put there by the edges (:func:`with_tables_file`: the
    CLI's ``--high-fire-tables`` and a game file naming its tables file); the rules core
    never opens a path taken from the game (an imported game could make it probe the disk).
    """
    given = (plan.options or {}).get("high_fire_tables")
    if given is None or given == "":
        return BUNDLED_TABLES
    if isinstance(given, Mapping):
        return Tables(freeze(given), "the game's High Fire tables (options.high_fire_tables)")
    raise MissingTableError(
        f"the game names a High Fire tables file ({str(given)[:80]!r}) but the tables were not loaded: give the "
        "file to the program (tabletracker resolve GAME --high-fire-tables FILE), or put the tables themselves "
        "under options.high_fire_tables", msg_id="high_fire.tables.not_loaded")


def with_tables_file(plan: TablePlan, path: str | Path, *, relative_to: str | Path | None = None) -> TablePlan:
    """Return ``plan`` carrying the tables read from ``path`` (an edge function: it reads the file).

    A relative ``path`` is taken from ``relative_to`` (the game file's folder) when given.
    """
    p = Path(path)
    if not p.is_absolute() and relative_to is not None:
        p = Path(relative_to) / p
    tables = load_tables(p)
    options = {**thaw(plan.options or {}), "high_fire_tables": thaw(tables.data)}
    return dataclasses.replace(plan, options=freeze(options))


def with_named_tables(plan: TablePlan, game_path: str | Path | None = None,
                      given: str | Path | None = None) -> TablePlan:
    """Return ``plan`` carrying the High Fire tables it names (an edge function: it reads the file).

    ``given`` (a file the player names on the command line) wins; else a path left in the game's
    ``high_fire_tables`` option is read, relative to the game file's folder. Other rule sets, and a
    game that carries the tables themselves or names none, come back as they are.
    """
    if plan.ruleset != RULESET:
        return plan
    if given:
        return with_tables_file(plan, given)
    named = (plan.options or {}).get("high_fire_tables")
    if isinstance(named, str) and named:
        folder = Path(game_path).resolve().parent if game_path is not None else None
        return with_tables_file(plan, named, relative_to=folder)
    return plan


# =============================================================================== rosters

def validate_roster(roster: Any) -> None:
    """Refuse a High Fire roster with bad characteristics, unknown weapons or rules, a command unit without officer.

    Raises
    ------
    RosterError
        Naming the file and the first fault: a characteristic, rule, weapon or officerless command unit.
    """
    fail = roster_fail(roster)

    def refuse(english: str, msg_id: str, **params: Any) -> NoReturn:
        raise RosterError(f"{roster.source}: {english}", msg_id=f"high_fire.roster.{msg_id}",
                          params={"roster": roster.source, **params})

    for name, p in roster.profiles.items():
        check_whole_stats(fail, f"profiles.{name}", p, ("QL", "CD", "CR", "AR"), minimum=0, expect="an integer >= 0")
        if "rank" in p and (isinstance(p["rank"], bool) or not isinstance(p["rank"], int)):
            refuse(f"profiles.{name}.rank must be an integer (higher is more senior), got {p['rank']!r}", "rank",
                   profile=name, got=repr(p["rank"]))
    for unit in roster.units:
        for r in unit.rules:
            if r not in KNOWN_RULES:
                refuse(f"unit {unit.unit_id!r} has unknown rule {r!r}; known: {', '.join(KNOWN_RULES)}",
                       "unit_rule", unit=unit.unit_id, rule=r, known=list(KNOWN_RULES))
        for m in unit.models:
            for r in m.rules:
                if r not in KNOWN_RULES:
                    refuse(f"model {m.model_id!r} has unknown rule {r!r}; known: {', '.join(KNOWN_RULES)}",
                           "model_rule", model=m.model_id, rule=r, known=list(KNOWN_RULES))
            check_model_kit(roster, unit, m, fail)
        if "command" in unit.rules and not any("rank" in roster.profiles[roster.profile_of(unit, m)]
                                               for m in unit.models):
            refuse(f"command unit {unit.unit_id!r} has no officer (a profile with a 'rank'); "
                   "the Commandement roll uses the highest-ranked officer's QL", "no_officer", unit=unit.unit_id)


# =============================================================================== characteristics

def attack_value(profile: Mapping[str, Any], weapon: Mapping[str, Any]) -> int:
    """ATT = CD + the weapon's firepower PF (Caractéristiques)."""
    return int(profile["CD"]) + int(weapon["pf"])


def defence_value(profile: Mapping[str, Any]) -> int:
    """DEF = AR + half the QL rounded up (Caractéristiques)."""
    return int(profile["AR"]) + math.ceil(int(profile["QL"]) / 2)


def _profile(plan: TablePlan, m: Model) -> Mapping[str, Any]:
    return profile_of(plan, m.profile or plan.unit(m.unit_id).profile)


def _alive(plan: TablePlan, unit_id: str) -> list[Model]:
    return [m for m in plan.models_of(unit_id) if not m.has_status(OUT)]


def _operational(plan: TablePlan, unit_id: str) -> bool:
    """A unit is operational when a member is neither stunned nor wounded (Séquence de jeu)."""
    return any(not (m.has_status(STUNNED) or m.has_status(WOUNDED)) for m in _alive(plan, unit_id))


def _rules(plan: TablePlan, unit_id: str, m: Model | None = None) -> list[str]:
    rules = list(plan.unit(unit_id).rules or ())
    if m is not None:
        rules += list(m.extra.get("rules", ()))
    return rules


def _cohesion(plan: TablePlan, unit_id: str) -> tuple[list[str], list[str]]:
    """Return (models in cohesion, models out of it), the geometry module's chain at 1" (specialists exempt)."""
    from rules.cohesion import chain_cohesion

    rs = _hf()
    alive = _alive(plan, unit_id)
    sub = plan if len(alive) == len(plan.models_of(unit_id)) else _without_out(plan, unit_id)
    c = chain_cohesion(sub, unit_id, link_mm=inches(1), exempt=lambda mid: rs.cohesion_exempt(sub, mid),
                       source=_src("Unités"))
    ids = [m.model_id for m in alive]
    return [i for i in ids if i not in c.breaking], list(c.breaking)


def _without_out(plan: TablePlan, unit_id: str) -> TablePlan:
    import dataclasses

    return dataclasses.replace(plan, models=tuple(m for m in plan.models
                                                  if m.unit_id != unit_id or not m.has_status(OUT)))


# =============================================================================== turn structure

def _state(plan: TablePlan) -> HighFireState:
    return HighFireState.of(plan)


def _phase_side(plan: TablePlan, st: HighFireState) -> tuple[str, str]:
    if not isinstance(st.phase, int) or st.first is None:
        raise IllegalActionError(f"no action phase is running (phase: {st.phase}); "
                                 "start the turn and roll the initiative first", msg_id="high_fire.no_action_phase",
                                 params={"phase": phase_msg(st.phase)})
    who, name = PHASES[st.phase]
    first = st.first
    side = first if who == "first" else _other(plan, first)
    return side, name


def _other(plan: TablePlan, side: str) -> str:
    return next(s for s in sides_of(plan) if s != side)


def activation_cost(plan: TablePlan, unit_id: str) -> tuple[int, list[Step]]:
    """Return the PA an activation costs: 1, or 2 out of cohesion, with a stunned figure or without its leader.

    Source: High Fire, Actions.
    """
    reasons = []
    why: list[Mapping[str, Any]] = []
    _, out = _cohesion(plan, unit_id)
    if out:
        reasons.append(f"out of cohesion ({', '.join(out)} more than 1\" from the group)")
        why.append(msg("high_fire.cost.out_of_cohesion", models=out))
    stunned = [m.model_id for m in _alive(plan, unit_id) if m.has_status(STUNNED)]
    if stunned:
        reasons.append(f"stunned: {', '.join(stunned)}")
        why.append(msg("high_fire.cost.stunned", models=stunned))
    leader = plan.unit(unit_id).leader
    if leader is not None:
        lm = next((m for m in plan.models_of(unit_id) if m.model_id == leader), None)
        if lm is None or lm.has_status(OUT):
            reasons.append(f"its leader {leader} is out of action")
            why.append(msg("high_fire.cost.leader_out", leader=leader))
    if reasons:
        return 2, [Step("activation cost", f"2 PA: {'; '.join(reasons)}", _src("Actions"), value=2,
                        msg="high_fire.cost_two", params={"reasons": why})]
    return 1, [Step("activation cost", "1 PA", _src("Actions"), value=1, msg="high_fire.cost_one")]


def start_turn(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Count each side's activation points (2 + 1 per operational unit) and check their split (Séquence de jeu, 1).

    Request: ``allocation`` ``{side: [action 1, reaction, action 2]}``; each action phase
    gets at least 1 PA, no phase more than 6, and the total no more than the side's PA.
    """
    st = _state(plan)
    alloc = _allocation(request.get("allocation"))
    steps: list[Step] = []
    pa: dict[str, int] = {}
    for side in sides_of(plan):
        units = [u.unit_id for u in plan.units if u.side == side and _alive(plan, u.unit_id)]
        ops = [u for u in units if _operational(plan, u)]
        pa[side] = 2 + len(ops)
        steps.append(Step("activation points", f"{side}: 2 + {len(ops)} operational unit(s) = {pa[side]} PA",
                          _src("Séquence de jeu, Points d'activation"), value=pa[side],
                          msg="high_fire.activation_points", params={"side": side, "units": len(ops), "pa": pa[side]}))
    if not isinstance(alloc, Mapping) or set(alloc) != set(pa):
        raise InvalidActionError(f"give allocation as {{side: [action 1, reaction, action 2]}} for every side "
                                 f"({', '.join(pa)}); PA available: {pa}", msg_id="high_fire.alloc_every_side",
                                 params={"available": [msg("high_fire.side_pa", side=k, pa=v) for k, v in pa.items()]})
    split: dict[str, dict[str, int]] = {}
    for side, parts in alloc.items():
        if (not isinstance(parts, (list, tuple)) or len(parts) != 3
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in parts)):
            raise InvalidActionError(f"allocation of {side} must be three integers [action 1, reaction, action 2], "
                                     f"got {parts!r}",
                                     msg_id="high_fire.alloc_three", params={"side": str(side)})
        a1, r, a2 = parts
        if a1 < 1 or a2 < 1:
            raise IllegalActionError(f"{side}: each action phase needs at least 1 PA, got {list(parts)}",
                                     msg_id="high_fire.alloc_min_one", params={"side": str(side), "got": list(parts)})
        if max(parts) > 6 or min(parts) < 0:
            raise IllegalActionError(f"{side}: a phase gets 0 to 6 PA (at least 1 for an action phase), "
                                     f"got {list(parts)}",
                                     msg_id="high_fire.alloc_range", params={"side": str(side), "got": list(parts)})
        if sum(parts) > pa[side]:
            raise IllegalActionError(f"{side}: {sum(parts)} PA allocated but only {pa[side]} available",
                                     msg_id="high_fire.alloc_over",
                                     params={"side": str(side), "allocated": sum(parts), "available": pa[side]})
        split[side] = {"action1": a1, "reaction": r, "action2": a2}
    st = st.with_(pa=split, operational=pa, phase="initiative", activated=(), actions={}, first=None)
    return Resolution(RULESET, "start_turn", tuple(steps), {}, {}, (),
                      TurnStarted(pa, split).to_json(), st.on(plan))


def _allocation(value: Any) -> Any:
    """Read ``allocation`` as a mapping or as ``"blue:2/1/1,red:1/2/1"`` typed on the command line."""
    if not isinstance(value, str):
        return value
    out: dict[str, list[int]] = {}
    for part in filter(None, (p.strip() for p in value.split(","))):
        side, sep, nums = part.partition(":")
        bits = nums.split("/")
        if not sep or len(bits) != 3 or not all(b.strip().isdigit() for b in bits):
            raise InvalidActionError(f"allocation must read side:action1/reaction/action2,..., got {value!r}",
                                     msg_id="high_fire.alloc_syntax", params={"got": value})
        out[side.strip()] = [int(b) for b in bits]
    return out


def _commander(plan: TablePlan, side: str) -> Model:
    best: Model | None = None
    for u in plan.units:
        if u.side != side or "command" not in (u.rules or ()):
            continue
        for m in _alive(plan, u.unit_id):
            p = _profile(plan, m)
            if "rank" in p and (best is None or p["rank"] > _profile(plan, best)["rank"]):
                best = m
    if best is None:
        raise IllegalActionError(f"side {side} has no officer left in a command unit to make the Commandement roll "
                                 f"({_src('Unitable, Jet de Commandement')})", msg_id="high_fire.no_commander",
                                 params={"side": side})
    return best


def _letter_dist(tables: Tables, value: int) -> Distribution:
    row = tables.row(value)
    return die(10).map(lambda f: row[f - 1])


def initiative(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Each side makes a Commandement roll; the better letter decides who acts first; ties are re-rolled (Initiative).

    Request: optional ``winner_goes`` (``first`` default, or ``second``).
    """
    st = _state(plan)
    if st.phase != "initiative":
        raise IllegalActionError(f"initiative is rolled after start_turn; phase now: {st.phase}",
                                 msg_id="high_fire.initiative_when", params={"phase": phase_msg(st.phase)})
    tables = tables_for(plan)
    a, b = sides_of(plan)[:2]
    ca, cb = _commander(plan, a), _commander(plan, b)
    qa, qb = int(_profile(plan, ca)["QL"]), int(_profile(plan, cb)["QL"])
    steps = [Step("Commandement", f"{a}: QL {qa} of {ca.model_id}; {b}: QL {qb} of {cb.model_id}",
                  _src("Unitable, Jet de Commandement"), msg="high_fire.commandement",
                  params={"a": a, "qa": qa, "ca": ca.model_id, "b": b, "qb": qb, "cb": cb.model_id})]
    da, db = _letter_dist(tables, qa), _letter_dist(tables, qb)
    joint = da.convolve(db, lambda x, y: "tie" if tables.rank(x) == tables.rank(y)
                        else (a if tables.rank(x) < tables.rank(y) else b))
    tie = joint.probs.get("tie", Fraction(0))
    if tie == 1:
        raise IllegalActionError("every Commandement roll would tie: check the UNITABLE rows",
                                 msg_id="high_fire.always_tie")
    odds = {"initiative": Distribution.from_pairs((s, p / (1 - tie)) for s, p in joint.probs.items() if s != "tie")}
    if dice is None:
        return Resolution(RULESET, "initiative", tuple(steps), {}, odds)
    while True:
        fa, fb = dice.roll(10), dice.roll(10)
        la, lb = tables.letter(qa, fa), tables.letter(qb, fb)
        steps.append(Step("Commandement roll", f"{a}: D10 {fa} -> {la}; {b}: D10 {fb} -> {lb}", _src("Initiative"),
                          msg="high_fire.commandement_roll",
                          params={"a": a, "fa": fa, "la": la, "b": b, "fb": fb, "lb": lb}))
        if tables.rank(la) != tables.rank(lb):
            break
        steps.append(Step("tie", "equal results: both roll again", _src("Initiative"), msg="high_fire.tie"))
    winner = a if tables.rank(la) < tables.rank(lb) else b
    goes = req_str(request, "winner_goes", default="first")
    if goes not in ("first", "second"):
        raise InvalidActionError(f"winner_goes must be first or second, got {goes!r}", msg_id="high_fire.winner_goes",
                                 params={"got": str(goes)})
    first = winner if goes == "first" else _other(plan, winner)
    st = st.with_(first=first, phase=0, activated=())
    return Resolution(RULESET, "initiative", tuple(steps), {}, odds, tuple(dice.rolled),
                      InitiativeWon(winner, first).to_json(), st.on(plan))


def activate(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Spend PA to activate a unit in the current phase with one action (Actions; Actions de l'infanterie).

    Request: ``unit``, ``action`` (careful, tactical, fast, jump, aimed, assault, observe,
    quick-op, long-op), optional ``transfer_from`` (a command unit passing its activation).
    """
    st = _state(plan)
    side, phase = _phase_side(plan, st)
    unit_id, action = req_str(request, "unit"), req_str(request, "action")
    if action not in ACTIONS_IN:
        raise InvalidActionError(f"unknown action {action!r}; actions: "
                                 + ", ".join(f"{k} ({v})" for k, v in ACTION_FR.items()),
                                 msg_id="high_fire.unknown_action",
                                 params={"action": action, "actions": list(ACTIONS_IN)})
    u = plan.unit(unit_id)
    if u.side != side:
        raise IllegalActionError(f"this is {side}'s {phase} phase; {unit_id} belongs to {u.side}",
                                 msg_id="high_fire.not_your_phase",
                                 params={"side": side, "phase": msg(f"high_fire.phase_name.{phase}"), "unit": unit_id,
                                         "owner": u.side})
    if any(unit_id in pair for pair in st.engaged):
        raise IllegalActionError(f"{unit_id} is engaged in an assault and cannot receive PA this turn "
                                 f"({_src('Assauts')})",
                                 msg_id="high_fire.engaged_no_pa", params={"unit": unit_id})
    if not _alive(plan, unit_id):
        raise IllegalActionError(f"{unit_id} has no figure able to act", msg_id="high_fire.nobody_to_act",
                                 params={"unit": unit_id})
    steps: list[Step] = []
    via = req_str(request, "transfer_from", default=None)
    payer = unit_id
    if via is not None:
        cu = plan.unit(via)
        if cu.side != side or "command" not in (cu.rules or ()):
            raise IllegalActionError(f"{via} is not a command unit of {side}", msg_id="high_fire.not_command_unit",
                                     params={"unit": via, "side": side})
        if via in st.activated:
            raise IllegalActionError(f"command unit {via} was already activated in this phase",
                                     msg_id="high_fire.command_already", params={"unit": via})
        payer = via
        steps.append(Step("command transfer", f"{via} passes its activation to {unit_id}", _src("Actions"),
                          msg="high_fire.command_transfer", params={"via": via, "unit": unit_id}))
    elif unit_id in st.activated:
        raise IllegalActionError(f"{unit_id} was already activated in this phase (once per phase, {_src('Actions')})",
                                 msg_id="high_fire.already_activated", params={"unit": unit_id})
    cost, csteps = activation_cost(plan, unit_id)
    steps += csteps
    if side not in st.pa:
        raise IllegalActionError(f"{side} has no PA allocated this turn; start the turn first",
                                 msg_id="high_fire.no_action_phase", params={"phase": phase_msg(st.phase)})
    left = st.pa[side][phase]
    if cost > left:
        raise IllegalActionError(f"{unit_id} needs {cost} PA but {side} has {left} left in this phase",
                                 msg_id="high_fire.pa_short", params={"unit": unit_id, "cost": cost, "side": side,
                                                                      "left": left})
    if action == "fast":
        from rules.terrain import pieces_at

        areas = [t for t in plan.terrain if t.shape == "area"]
        inside = [m.model_id for m in _alive(plan, unit_id) if pieces_at(m.position_mm, areas)]
        if inside:
            raise IllegalActionError(f"Progression rapide is impossible in difficult terrain ({', '.join(inside)} "
                                     f"in it; {_src('Déplacement')})",
                                     msg_id="high_fire.fast_in_terrain", params={"models": inside})
    if action == "jump" and not any("jump harness" in _rules(plan, unit_id, m) for m in _alive(plan, unit_id)):
        raise IllegalActionError(f"{unit_id} has no jump harness for a Progression par saut ({_src('Déplacement')})",
                                 msg_id="high_fire.no_jump_harness", params={"unit": unit_id})
    steps.append(Step("action", f"{ACTION_FR[action]}: {ACTIONS_IN[action]}\" move", _src("Actions de l'infanterie"),
                      value=ACTIONS_IN[action], msg="high_fire.action_move",
                      params={"action": ACTION_FR[action], "inches": ACTIONS_IN[action]}))
    pa = {**st.pa, side: {**st.pa[side], phase: left - cost}}
    st = st.with_(pa=pa, activated=(*st.activated, payer, *([unit_id] if payer != unit_id else [])),
                  actions={**st.actions, unit_id: action})
    res = Activation(unit_id, action, cost, left - cost, ACTIONS_IN[action])
    return Resolution(RULESET, "activate", tuple(steps), {}, {}, (), res.to_json(), st.on(plan))


def end_phase(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Close the current phase (unspent PA are lost) and open the next; after six, the assaults.

    Source: High Fire, Séquence de jeu, 3-4.
    """
    st = _state(plan)
    side, phase = _phase_side(plan, st)
    nxt = cast(int, st.phase) + 1
    st = st.with_(phase=nxt if nxt < len(PHASES) else "assault", activated=())
    text = f"{side}'s {phase} phase ends"
    params: dict[str, Any] = {"side": side, "phase": msg(f"high_fire.phase_name.{phase}")}
    if nxt < len(PHASES):
        s2, p2 = _phase_side(plan, st)
        text += f"; {s2}'s {p2} phase begins"
        params.update(side2=s2, phase2=msg(f"high_fire.phase_name.{p2}"))
    else:
        text += "; the assaults are resolved next"
    step = Step("phase", text, _src("Séquence de jeu"), params=params,
                msg="high_fire.phase_ends_next" if nxt < len(PHASES) else "high_fire.phase_ends_assaults")
    return Resolution(RULESET, "end_phase", (step,), {}, {}, (),
                      PhaseChanged(st.phase).to_json(), st.on(plan))


# =============================================================================== effects

def allocate(order: tuple[tuple[str, tuple[str, ...]], ...], effects: tuple[str, ...]
             ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Give effects to figures: one each before any gets a second; Blessé twice is Hors de combat (Résolution).

    ``order`` is ``((model id, statuses), ...)`` in the defender's choice; ``effects`` are
    given most severe first. Returns the new ``(model id, statuses)``.
    """
    severity = {OUT: 0, WOUNDED: 1, STUNNED: 2}
    todo = sorted((e for e in effects if e != "none"), key=severity.__getitem__)
    states = [list(s) for _, s in order]
    n = len(states)
    for k, eff in enumerate(todo):
        if n == 0:
            break
        st = states[k % n]
        if eff == OUT or (eff == WOUNDED and WOUNDED in st):
            st[:] = [OUT]
        elif OUT not in st and eff not in st:
            st.append(eff)
    return tuple((mid, tuple(s)) for (mid, _), s in zip(order, states))


def _summary(states: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[int, int, int]:
    out = sum(1 for _, s in states if OUT in s)
    wounded = sum(1 for _, s in states if WOUNDED in s and OUT not in s)
    stunned = sum(1 for _, s in states if STUNNED in s and OUT not in s)
    return out, wounded, stunned


def _effects_dist(tables: Tables, kind: str, dice_values: tuple[int, ...]) -> Distribution:
    """Distribution of the sorted tuple of effects from one D10 per entry of ``dice_values`` (effect values)."""
    dist = Distribution.certain(())
    for v in dice_values:
        row = tables.row(v)
        def effect_of_face(f: Any, row: Any = row) -> Any:
            return tables.effect(kind, row[int(f) - 1])

        one = die(10).map(effect_of_face)
        dist = dist.convolve(one, lambda a, b: tuple(sorted(a + (b,))))
    return dist


def _order(plan: TablePlan, unit_id: str, members: list[str], request: Mapping[str, Any]) -> tuple[Any, ...]:
    given = req_list(request, "allocation")
    unknown = [g for g in given if g not in members]
    if unknown:
        raise InvalidActionError(f"allocation names {', '.join(unknown)}, not figures of {unit_id} in cohesion: "
                                 f"{', '.join(members)}",
                                 msg_id="high_fire.allocation_unknown",
                                 params={"models": unknown, "unit": unit_id, "members": members})
    leader = plan.unit(unit_id).leader
    rest = sorted((m for m in members if m not in given),
                  key=lambda mid: (bool(plan.model(mid).status), mid == leader, members.index(mid)))
    return tuple((mid, tuple(s for s in (plan.model(mid).status or ()) if s in (STUNNED, WOUNDED, OUT)))
                 for mid in list(given) + rest)


def _apply_states(plan: TablePlan, states: tuple[Any, ...]) -> TablePlan:
    after = plan
    for mid, st in states:
        m = after.model(mid)
        after = after.with_model(with_status(m, remove=[STUNNED, WOUNDED, OUT], add=st))
    return after


# =============================================================================== shooting

def _cover_modifiers(plan: TablePlan, firing: str, target: str, tables: Tables, steps: list[Step]) -> int:
    """Terrain the target is in or behind: a booklet modifier per terrain kind, when half the unit is affected."""
    from rules.terrain import pieces_at
    from rules.visibility import line_of_sight

    rs = _hf()
    targets = _alive(plan, target)
    firers = _alive(plan, firing)
    kinds: dict[str, set[str]] = {}
    terrain_ids = {p.terrain_id for p in plan.terrain}
    for t in targets:
        near = min(firers, key=lambda f: math.dist(f.position_mm, t.position_mm))
        s = line_of_sight(plan, near.model_id, t.model_id, ruleset=rs)
        ids = {p.terrain_id for p in pieces_at(t.position_mm, [x for x in plan.terrain if x.shape == "area"])}
        # terrain pieces only: a figure that hides part of the target (an isolated infantry figure is a
        # partial obstacle) is no terrain kind of the booklet's modifier table (issue 13 may give it one)
        ids |= {i for _, i, _ in s.cover if i in terrain_ids}
        for i in ids:
            kinds.setdefault(rs.kind_of(plan.terrain_piece(i)).kind, set()).add(t.model_id)
    total = 0
    for kind, who in sorted(kinds.items()):
        if 2 * len(who) < len(targets):
            steps.append(Step("terrain", f"{kind}: only {len(who)} of {len(targets)} figures affected, no modifier "
                              "(at least half needed)", _src("Combat à distance, Modificateurs"),
                              msg="high_fire.terrain_too_few",
                              params={"kind": kind, "n": len(who), "size": len(targets)}))
            continue
        v = tables.modifier("shooting", kind)
        total += v
        steps.append(Step("modifier", f"{v:+d}: {len(who)} of {len(targets)} figures of {target} in or behind {kind}",
                          _src("Combat à distance, Modificateurs") + f" (value from {tables.path})", value=v,
                          msg="high_fire.modifier_terrain",
                          params={"value": f"{v:+d}", "n": len(who), "size": len(targets), "target": target,
                                  "kind": kind}))
    return total


def shoot(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Shoot at an enemy unit: effect value ATT - DEF + MOD, one D10 per shooter on the UNITABLE (Combat à distance).

    Request: ``firing``, ``target``, optional ``weapon``, ``modifiers`` (names from the
    tables file), ``aimed`` (Tir appuyé, +1; default from the unit's action),
    ``allocation`` (the defender's order of figures).
    """
    from rules.rulesets.high_fire import unit_line_of_sight
    from rules.visibility import unit_centre_distance_mm

    st = _state(plan)
    firing, target = req_str(request, "firing"), req_str(request, "target")
    if plan.unit(firing).side == plan.unit(target).side:
        raise IllegalActionError(f"{firing} and {target} are on the same side", msg_id="high_fire.same_side",
                                 params={"a": firing, "b": target})
    tables = tables_for(plan)
    rs = _hf()
    steps: list[Step] = []
    firers_ok, _ = _cohesion(plan, firing)
    targets_ok, _ = _cohesion(plan, target)
    if not firers_ok or not targets_ok:
        raise IllegalActionError(f"{firing} or {target} has no figure in cohesion", msg_id="high_fire.no_cohesion",
                                 params={"a": firing, "b": target})
    los = unit_line_of_sight(rs, plan, firing, target, rs.defaults())
    wanted = req_str(request, "weapon", default=None)
    firers = [plan.model(i) for i in firers_ok
              if plan.model(i).weapons and (wanted is None or wanted in (plan.model(i).weapons or ()))]
    if not firers:
        raise IllegalActionError(f"no figure of {firing} in cohesion carries {wanted or 'a weapon'}",
                                 msg_id="high_fire.nobody_carries" if wanted else "high_fire.nobody_armed",
                                 params={"unit": firing, "weapon": str(wanted)})
    # High Fire, Combat à distance, Résolution: one D10 per shooter, each with its own weapon
    # (its own PF and its own extra D10); the unit's shot is the sum of its figures' dice.
    armed = [(f, wanted or (f.weapons or ('',))[0]) for f in firers]
    weapons = {w: tables.weapon(w, (plan.weapons or {}).get(w)) for w in dict.fromkeys(w for _, w in armed)}
    observer = st.observed.get(target)
    indirect = False
    if not los.visible:
        lobbers = [w for w in weapons if bool(weapons[w].get("indirect"))]
        if not lobbers or observer is None:
            raise IllegalActionError(f"{firing} has no line of fire on {target}: {los.answer} "
                                     f"({_src('Ligne de mire')})",
                                     msg_id="high_fire.shot_no_line_of_fire",
                                     params={"a": firing, "b": target, "n": len(los.counting),
                                             "firers": len(los.firers_in_cohesion)})
        watch = unit_line_of_sight(rs, plan, observer, target, rs.defaults())
        if not watch.visible:
            raise IllegalActionError(f"{observer} observed {target} but has lost its line of fire on it: "
                                     f"no indirect fire ({_src('Tir indirect')}; Observation)",
                                     msg_id="high_fire.observer_lost",
                                     params={"observer": observer, "target": target})
        indirect = True
        kept = [(f, w) for f, w in armed if w in lobbers]
        for f, w in armed:
            if w not in lobbers:
                steps.append(Step("no shot", f"{f.model_id}: {w} needs a line of fire (no TI)", _src("Tir indirect"),
                                  msg="high_fire.needs_line_of_fire", params={"model": f.model_id, "weapon": w}))
        armed = kept
    steps += list(los.steps)
    if indirect:
        names = ", ".join(dict.fromkeys(w for _, w in armed))
        steps.append(Step("indirect fire", f"{names} (TI) fires over the terrain at {target}, which {observer} "
                          "observes and still has in its line of fire", _src("Tir indirect"),
                          msg="high_fire.indirect_fire",
                          params={"weapons": list(dict.fromkeys(w for _, w in armed)), "target": target,
                                  "observer": observer}))
    d = unit_centre_distance_mm(plan, firing, target)
    in_range = [(f, w) for f, w in armed if d <= inches(float(weapons[w]["range_in"]))]
    if not in_range:
        reach = max(float(weapons[w]["range_in"]) for _, w in armed)
        raise IllegalActionError(f"{target} is {d / 25.4:.1f}\" away (unit centre to unit centre), beyond the "
                                 f"{reach:g}\" of {', '.join(dict.fromkeys(w for _, w in armed))}",
                                 msg_id="high_fire.target_out_of_range",
                                 params={"target": target, "inches": _inches(d), "reach": reach,
                                         "weapons": list(dict.fromkeys(w for _, w in armed))})
    for f, w in armed:
        if (f, w) not in in_range:
            steps.append(Step("out of range", f"{f.model_id}: {target} is {d / 25.4:.1f}\" away, beyond the "
                              f"{weapons[w]['range_in']}\" of {w}; this figure does not fire",
                              _src("Combat à distance"),
                              msg="high_fire.figure_out_of_range",
                              params={"model": f.model_id, "target": target, "inches": _inches(d),
                                      "range": float(weapons[w]["range_in"]), "weapon": w}))
    armed = in_range
    mod = 0
    aimed = req_bool(request, "aimed", st.actions.get(firing) == "aimed")
    if aimed:
        mod += AIMED_BONUS
        steps.append(Step("modifier", f"+{AIMED_BONUS}: Tir appuyé", _src("Actions de l'infanterie"), value=AIMED_BONUS,
                          msg="high_fire.modifier_aimed", params={"value": f"+{AIMED_BONUS}"}))
    mod += _cover_modifiers(plan, firing, target, tables, steps)
    for name in req_list(request, "modifiers"):
        v = tables.modifier("shooting", name)
        mod += v
        steps.append(Step("modifier", f"{v:+d}: {name}", _src("Combat à distance, Modificateurs")
                          + f" ({tables.path})", value=v,
                          msg="high_fire.modifier_named", params={"value": f"{v:+d}", "name": name}))
    tprof = _profile(plan, plan.model(targets_ok[0]))
    dfn = defence_value(tprof)
    values: list[int] = []
    for f, w in armed:
        weapon = weapons[w]
        att = attack_value(_profile(plan, f), weapon)
        n = 1 + int(weapon.get("extra_d10", 0))
        values += [att - dfn + mod] * n
        steps.append(Step("effect value", f"{f.model_id} ({w}): ATT {att} (CD + PF {weapon['pf']}) - DEF {dfn} "
                          f"(AR + QL/2 up) {mod:+d} = {att - dfn + mod}, {n} D10",
                          _src("Combat à distance, Résolution"),
                          value=att - dfn + mod, msg="high_fire.effect_value",
                          params={"model": f.model_id, "weapon": w, "att": att, "pf": weapon["pf"], "def": dfn,
                                  "mod": f"{mod:+d}", "value": att - dfn + mod, "dice": n}))
    order = _order(plan, target, targets_ok, request)
    eff = _effects_dist(tables, "shooting", tuple(values))
    outcome = eff.map(lambda e: _summary(allocate(order, e)))
    odds = {"effects": eff, "outcome (out of action, wounded, stunned)": outcome}
    if dice is None:
        return Resolution(RULESET, "shoot", tuple(steps), {}, odds)
    effects = []
    for v in values:
        face = dice.roll(10)
        letter = tables.letter(v, face)
        e = tables.effect("shooting", letter)
        effects.append(e)
        steps.append(Step("D10", f"effect value {v}, D10 {face} -> {letter}: {EFFECT_FR[e]}", _src("Unitable"),
                          msg="high_fire.d10", params={"value": v, "face": face, "letter": letter,
                                                       "effect": effect_msg(e)}))
    states = allocate(order, tuple(effects))
    after = _apply_states(plan, states)
    res = ShotResult(tuple(sorted(effects)), {mid: tuple(s) for mid, s in states}, _summary(states))
    return Resolution(RULESET, "shoot", tuple(steps), {}, odds, tuple(dice.rolled), res.to_json(), after)


# =============================================================================== assaults, motivation

def assault(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Resolve a melee: each side's effect value is its CR sum minus the enemy's; one D10 per combatant (Assauts).

    Request: ``attacker``, ``defender``, optional ``attacker_modifiers`` / ``defender_modifiers``
    (assault modifier names from the tables file, applied to each combatant's CR),
    ``allocation``. Results apply at the same time; then the units separate and a unit
    whose every figure is stunned, wounded or out of action leaves the table.
    """
    tables = tables_for(plan)
    a, b = req_str(request, "attacker"), req_str(request, "defender")
    if plan.unit(a).side == plan.unit(b).side:
        raise IllegalActionError(f"{a} and {b} are on the same side", msg_id="high_fire.same_side",
                                 params={"a": a, "b": b})
    steps: list[Step] = []
    sums = {}
    fighters = {}
    for unit_id, key in ((a, "attacker_modifiers"), (b, "defender_modifiers")):
        ms = [m for m in _alive(plan, unit_id)]
        if not ms:
            raise IllegalActionError(f"{unit_id} has no figure left to fight", msg_id="high_fire.nobody_to_fight",
                                     params={"unit": unit_id})
        mod = sum(tables.modifier("assault", n) for n in req_list(request, key))
        total = sum(int(_profile(plan, m)["CR"]) + mod for m in ms)
        sums[unit_id], fighters[unit_id] = total, ms
        steps.append(Step("CR sum", f"{unit_id}: {len(ms)} combatant(s), CR sum {total}"
                          + (f" (modifier {mod:+d} each)" if mod else ""),
                          _src("Assauts"), value=total, msg="high_fire.cr_sum_mod" if mod else "high_fire.cr_sum",
                          params={"unit": unit_id, "n": len(ms), "total": total, "mod": f"{mod:+d}"}))
    va, vb = sums[a] - sums[b], sums[b] - sums[a]
    steps.append(Step("effect values", f"{a}: {sums[a]} - {sums[b]} = {va}; {b}: {sums[b]} - {sums[a]} = {vb}",
                      _src("Assauts"),
                      msg="high_fire.assault_values",
                      params={"a": a, "sa": sums[a], "sb": sums[b], "va": va, "b": b, "vb": vb}))
    order_b = _order(plan, b, [m.model_id for m in fighters[b]], request)
    order_a = _order(plan, a, [m.model_id for m in fighters[a]], {})
    ea = _effects_dist(tables, "assault", (va,) * len(fighters[a]))
    eb = _effects_dist(tables, "assault", (vb,) * len(fighters[b]))
    odds = {f"{b} after (out of action, wounded, stunned, removed)":
            ea.map(lambda e: _assault_summary(allocate(order_b, e))),
            f"{a} after (out of action, wounded, stunned, removed)":
            eb.map(lambda e: _assault_summary(allocate(order_a, e)))}
    if dice is None:
        return Resolution(RULESET, "assault", tuple(steps), {}, odds)
    rolled: dict[str, list[str]] = {a: [], b: []}
    for unit_id, v in ((a, va), (b, vb)):
        for m in fighters[unit_id]:
            f = dice.roll(10)
            letter = tables.letter(v, f)
            e = tables.effect("assault", letter)
            rolled[unit_id].append(e)
            steps.append(Step("D10", f"{m.model_id}: effect value {v}, D10 {f} -> {letter}: {EFFECT_FR[e]}",
                              _src("Assauts"),
                              msg="high_fire.d10_model", params={"model": m.model_id, "value": v, "face": f,
                                                                 "letter": letter, "effect": effect_msg(e)}))
    states_b, states_a = allocate(order_b, tuple(rolled[a])), allocate(order_a, tuple(rolled[b]))
    after = _apply_states(plan, states_b)
    after = _apply_states(after, states_a)
    removed = []
    for unit_id in (a, b):
        if all(m.has_status(STUNNED) or m.has_status(WOUNDED) or m.has_status(OUT) for m in after.models_of(unit_id)):
            for m in after.models_of(unit_id):
                after = after.without_model(m.model_id)
            removed.append(unit_id)
            steps.append(Step("unit removed", f"every figure of {unit_id} is stunned, wounded or out of action: "
                              "it leaves the table",
                              _src("Assauts"), msg="high_fire.unit_removed", params={"unit": unit_id}))
    st = _state(after)
    st = st.with_(engaged=tuple(p for p in st.engaged if not (a in p and b in p)))
    steps.append(Step("separation", "the units separate by 2\"", _src("Assauts"), msg="high_fire.separation"))
    return Resolution(RULESET, "assault", tuple(steps), {}, odds, tuple(dice.rolled),
                      AssaultResult(tuple(removed), {u: tuple(e) for u, e in rolled.items()},
                                    {a: _assault_summary(states_a), b: _assault_summary(states_b)}).to_json(),
                      st.on(after))


def _assault_summary(states: tuple[Any, ...]) -> tuple[int, int, int, bool]:
    """``(out of action, wounded, stunned, removed)``: a unit whose every figure is hurt leaves the table."""
    o, w, s = _summary(states)
    return o, w, s, all(st for _, st in states)


RECOVERY_LETTERS = ("A", "B")  # Motivation: a stunned figure recovers on B or A


def motivation(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Each stunned figure makes a Quality roll; on A or B it is no longer stunned (Motivation)."""
    tables = tables_for(plan)
    unit_filter = req_str(request, "unit", default=None)
    stunned = [m for m in plan.models if m.has_status(STUNNED) and not m.has_status(OUT)
               and (unit_filter is None or m.unit_id == unit_filter)]
    steps: list[Step] = []
    odds: dict[str, Distribution] = {}
    for m in stunned:
        ql = int(_profile(plan, m)["QL"])
        odds[m.model_id] = _letter_dist(tables, ql).map(
            lambda x: "recovers" if x in RECOVERY_LETTERS else "stays stunned")
        steps.append(Step("Jet de Qualité", f"{m.model_id}: effect value QL {ql}; A or B recovers", _src("Motivation"),
                          msg="high_fire.motivation_roll", params={"model": m.model_id, "ql": ql}))
    if not stunned:
        steps.append(Step("motivation", "no stunned figure", _src("Motivation"), msg="high_fire.no_stunned"))
    if dice is None:
        return Resolution(RULESET, "motivation", tuple(steps), {}, odds)
    after = plan
    recovered = []
    for m in stunned:
        ql = int(_profile(plan, m)["QL"])
        f = dice.roll(10)
        letter = tables.letter(ql, f)
        ok = letter in RECOVERY_LETTERS
        steps.append(Step("D10", f"{m.model_id}: D10 {f} -> {letter}: "
                          f"{'no longer stunned' if ok else 'stays stunned'}", _src("Motivation"),
                          msg="high_fire.recovers" if ok else "high_fire.stays_stunned",
                          params={"model": m.model_id, "face": f, "letter": letter}))
        if ok:
            after = after.with_model(with_status(after.model(m.model_id), remove=[STUNNED]))
            recovered.append(m.model_id)
    st = _state(after)
    st = st.with_(turn=st.turn + 1, phase="start", activated=(), actions={}, engaged=(), first=None)
    return Resolution(RULESET, "motivation", tuple(steps), {}, odds, tuple(dice.rolled),
                      MotivationResult(tuple(recovered), st.turn).to_json(), st.on(after))


def engage(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Record that an assaulting unit ended within 1" of an enemy: both are engaged until the assault phase.

    Source: High Fire, Assauts.
    """
    a, b = req_str(request, "attacker"), req_str(request, "defender")
    st = _state(plan)
    if st.actions.get(a) != "assault":
        raise IllegalActionError(f"{a} did not take the Assaut action this phase", msg_id="high_fire.not_assaulting",
                                 params={"unit": a})
    d = min((model_distance_mm(x, y) for x in _alive(plan, a) for y in _alive(plan, b)), default=math.inf)
    if d > inches(1) + 1e-6:
        raise IllegalActionError(f"{a} is {d / 25.4:.2f}\" from {b}; an assault engages within 1\"",
                                 msg_id="high_fire.too_far_to_engage", params={"a": a, "b": b, "inches": _inches(d, 2)})
    st = st.with_(engaged=(*st.engaged, (a, b)))
    return Resolution(RULESET, "engage", (Step("engaged", f"{a} and {b} are engaged ({d / 25.4:.2f}\" apart); neither "
                                               "receives PA until the assault is resolved", _src("Assauts"),
                                 msg="high_fire.engaged", params={"a": a, "b": b, "inches": _inches(d, 2)}),),
                      {}, {}, (), Engaged(a, b).to_json(), st.on(plan))


def observe(plan: TablePlan, request: Mapping[str, Any], dice: Dice | None) -> Resolution:
    """Record an Observation: the target unit may be shot by indirect fire while watched (Tir indirect; Observation)."""
    from rules.rulesets.high_fire import unit_line_of_sight

    a, b = req_str(request, "observer"), req_str(request, "target")
    st = _state(plan)
    if st.actions.get(a) != "observe":
        raise IllegalActionError(f"{a} did not take the Observation action", msg_id="high_fire.not_observing",
                                 params={"unit": a})
    rs = _hf()
    if not unit_line_of_sight(rs, plan, a, b, rs.defaults()).visible:
        raise IllegalActionError(f"{a} has no line of fire on {b}: it cannot lock it "
                                 f"({_src('Actions de l infanterie')}, Observation)",
                                 msg_id="high_fire.observe_no_line", params={"a": a, "b": b})
    st = st.with_(observed={**st.observed, b: a})
    return Resolution(RULESET, "observe", (Step("observation", f"{a} locks {b} for indirect fire", _src("Tir indirect"),
                                                msg="high_fire.observation", params={"a": a, "b": b}),),
                      {}, {}, (), Observed(b).to_json(), st.on(plan))


#: The main arguments of each action as typed on the command line (``tabletracker resolve``).
ARGUMENTS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "activate": ("unit", "action"), "shoot": ("firing", "target"), "engage": ("attacker", "defender"),
    "observe": ("observer", "target"), "assault": ("attacker", "defender"),
})

ACTIONS: Mapping[str, Action] = MappingProxyType({
    "start_turn": start_turn, "initiative": initiative, "activate": activate, "end_phase": end_phase,
    "shoot": shoot, "engage": engage, "observe": observe, "assault": assault, "motivation": motivation,
})
