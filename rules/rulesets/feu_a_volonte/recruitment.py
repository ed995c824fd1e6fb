"""Feu à Volonté v1.6: the book's tables (qualities, arsenal, traits, action costs) and recruitment.

Recruitment (Recrutement): cost = quality + grade + weapon + traits; a platoon of
5 to 10 members, one leader, one or two seconds, at most 30 PdR (40 with support
teams, whose price is paid once per team for the weapon it serves: see SRC_TEAMS below).
The resolutions live in :mod:`rules.rulesets.feu_a_volonte.actions`.

Examples
--------
>>> QUALITIES["elite"].dice, QUALITIES["recrue"].cran
(4, -2)
>>> arsenal_weapon("fusil snipper").bonus
2
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping, NoReturn, Sequence

from rules.dice import expand_ranges
from rules.errors import InvalidActionError, RosterError
from rules.explain import msg
from rules.roster import Roster, require_known_weapons
from rules.rulesets.feu_a_volonte.words import Phrase, grade, id_list, quality_word, said

RULESET = "feu-a-volonte"

SRC = "Feu à Volonté"
SRC_DICE = "Feu à Volonté, Les jets de dé"
SRC_RECRUIT = "Feu à Volonté, Recrutement"
SRC_TRAITS = "Feu à Volonté, Compétences"
SRC_LEADER = "Feu à Volonté, Rôle du leader et du second"
SRC_ACTIVATION = "Feu à Volonté, Activation et séquence d'un tour"
SRC_GROUP = "Feu à Volonté, Activation de groupe"
SRC_ACTIONS = "Feu à Volonté, Les Actions"
SRC_RADIO = "Feu à Volonté, Radio"
SRC_SHOOT = "Feu à Volonté, Les Combats à distance"
SRC_SITUATION = "Feu à Volonté, Bonus/malus de situation"
SRC_SPOT = "Feu à Volonté, Se dissimuler"
SRC_WOUNDS = "Feu à Volonté, Blessures"
SRC_DEATH = "Feu à Volonté, Mort d'une figurine"
SRC_MELEE = "Feu à Volonté, Les Combats en corps à corps"
SRC_ARSENAL = "Feu à Volonté, Armes (arsenaux 1760-1900 et 1914 à nos jours)"
SRC_AT = "Feu à Volonté, Arme anti-char portable"
SRC_END = "Feu à Volonté, Fin de partie"

# -- recruitment tables (Recrutement) -------------------------------------------------------------


@dataclass(frozen=True)
class Quality:
    """A quality: how many d6 are rolled (two kept), the cran and the recruitment cost."""

    name: str
    dice: int
    cran: int
    cost: int


QUALITIES: Mapping[str, Quality] = MappingProxyType({q.name: q for q in (
    Quality("recrue", 2, -2, 1), Quality("aguerri", 2, -1, 2),
    Quality("veteran", 3, 0, 3), Quality("elite", 4, 1, 4),  # the text's "4d2" is OCR damage for 4d6
)})
GRADE_COST = MappingProxyType({"trooper": 0, "second": 1, "leader": 2})
MAX_TRAITS = MappingProxyType({"trooper": 1, "second": 1, "leader": 2})
BUDGET_PDR = 30
BUDGET_WITH_SUPPORT_PDR = 40  # 1914 à nos jours, Groupe d'appui
MIN_MEMBERS, MAX_MEMBERS, MAX_SECONDS = 5, 10, 2
TRAITS: Mapping[str, str] = MappingProxyType({
    "chance-de-cocu": "Chance de cocu: once per turn, one more d6 to a roll",
    "en-avant": "En avant !: leader or second, +1 attack to every figure within 3 UD",
    "inspire-l-exemple": "Inspire l'exemple: leader or second, +1 defence to the others within 3 UD",
    "cohesion": "Cohésion: leader or second, the others within 3 UD may re-roll a failed Xd6 roll",
    "lunette-de-visee": "Lunette de visée: +1d6 when shooting",
    "meilleur-fusil": "Meilleur fusil: +1 when shooting",
    "commando": "Commando: within 1 UD of terrain, must be spotted before being shot at",
    "grenade": "Grenade: carries two hand grenades",
})
TRAIT_COST = 1
AURA_UD = 3.0

# -- weapons (Armes) --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    """A weapon: cadence (0 = melee only), bonus, recruitment cost, range limit, special rules."""

    name: str
    rate: int
    bonus: int
    cost: int
    range_ud: float | None = None
    area_ud: float | None = None
    needs_aiming: bool = False

    @property
    def melee(self) -> bool:
        return self.rate == 0


ARSENAL: Mapping[str, Weapon] = MappingProxyType({w.name: w for w in (
    # 1914 à nos jours
    Weapon("Poings", 0, -1, 0), Weapon("Baïonnette", 0, 0, 0), Weapon("Couteau", 0, 0, 0),
    Weapon("Grenade à main", 1, 1, 0, range_ud=4.0, area_ud=3.0), Weapon("Pistolet", 1, 0, 0, range_ud=4.0),
    Weapon("Fusil", 1, 1, 0), Weapon("Fusil sniper", 1, 2, 1), Weapon("SMG", 2, 0, 1),
    Weapon("LMG", 4, 1, 2), Weapon("HMG", 6, 2, 3), Weapon("Bazooka", 1, 1, 2, needs_aiming=True),
    Weapon("Mortier", 1, 2, 3, range_ud=6.0, area_ud=3.0),
    # 1760 - 1900
    Weapon("Sabre", 0, 0, 0), Weapon("Tomahawk", 1, 0, 0), Weapon("Pistolet (poudre noire)", 1, 0, 0),
    Weapon("Arc", 2, -1, 1), Weapon("Mousquet", 1, -1, 0), Weapon("Carabine", 1, 0, 1),
)})
ALIASES = MappingProxyType({"couteau commando": "Couteau", "fusil snipper": "Fusil sniper", "panzerfaust": "Bazooka",
           "piat": "Bazooka", "grenade": "Grenade à main", "pistolet poudre noire": "Pistolet (poudre noire)"})

# -- support teams (Recrutement, 1914 à nos jours) ----------------------------------------------------
# Feu à Volonté v1.6, Règles spéciales et arsenaux, 1914 à nos jours, Recrutement: the usual recruitment
# applies but for the support teams, whose price depends on the team's type (two figures for an anti-tank,
# LMG or sniper team at 2 PdR; three for a mortar or HMG team at 3 PdR). The text does not say what that
# price covers; the reading chosen (docs/rule-choices.md, Feu à Volonté 9): each crew figure is recruited as
# usual (quality, grade, its own weapons, traits) and counts among the platoon's members, and the team pays
# its price once, for the weapon it serves, in place of that weapon's line of the arsenal.
SRC_TEAMS = "Feu à Volonté, Recrutement (1914 à nos jours): équipes d'appui"


@dataclass(frozen=True)
class SupportType:
    """A support team of the recruitment table: its figures, its cost in PdR, the weapon it serves."""

    name: str
    figures: int
    cost: int
    weapon: str


SUPPORT_TYPES: Mapping[str, SupportType] = MappingProxyType({t.name: t for t in (
    SupportType("anti-char", 2, 2, "Bazooka"), SupportType("lmg", 2, 2, "LMG"),
    SupportType("sniper", 2, 2, "Fusil sniper"), SupportType("mortier", 3, 3, "Mortier"),
    SupportType("hmg", 3, 3, "HMG"),
)})
_TYPE_ALIASES = MappingProxyType({"anti char": "anti-char", "antichar": "anti-char", "at": "anti-char",
                                  "snipper": "sniper", "mortar": "mortier"})


@dataclass(frozen=True)
class TeamRecruit:
    """A support team's line of the recruitment: its type and crew; it costs its type's price once."""

    team_id: str
    kind: SupportType
    crew: tuple[str, ...]

    @property
    def cost(self) -> int:
        return self.kind.cost

    def text(self) -> str:
        return (f"{self.team_id}: {self.kind.name} team ({', '.join(self.crew)}), {self.kind.weapon} "
                f"= {self.cost} PdR")

    def params(self) -> dict[str, Any]:
        """Return the parameters of :meth:`text` as a message's (``fav.recruit.team``)."""
        return {"team": self.team_id, "type": self.kind.name, "crew": list(self.crew), "weapon": self.kind.weapon,
                "cost": self.cost}


# -- tables of the turn ----------------------------------------------------------------------------

AP_BY_D6 = expand_ranges({(1, 2): 2, (3, 4): 3, (5, 6): 4})       # Activation: one figure
FIGURES_BY_D6 = expand_ranges({(1, 2): 1, (3, 4): 2, (5, 6): 3})  # Activation de groupe
ACTION_COSTS: Mapping[str, int] = MappingProxyType({
    "activation de groupe": 1, "marcher": 1, "orientation": 1, "courir": 2, "grimper / sauter": 2,
    "se dissimuler": 1, "repérage / fouiller": 1, "se désengager": 1, "combat / grenade": 2,
    "recharger": 1, "tir d'opportunité": 3, "charger": 3,
})
LOCATIONS = MappingProxyType({1: "jambe", 2: "bras", 3: "buste", 4: "tête"})
LOCATION_EFFECT = MappingProxyType({"jambe": "-1 UD of movement", "bras": "-1 in attack", "buste": "-1 in defence",
                   "tête": "death"})
WOUNDS_TO_DIE = 3
SUCCESS = 7  # spotting, nerve, aiming, disengaging: 7 or more
SPOTTED_WITHIN_UD = 2.0
RADIO_UD = 4.0


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


_BY_NORM = MappingProxyType({_norm(name): name for name in ARSENAL} | {_norm(k): v for k, v in ALIASES.items()})
_TRAIT_BY_NORM = MappingProxyType({_norm(t): t for t in TRAITS})
_QUALITY_BY_NORM = MappingProxyType({_norm(q): q for q in QUALITIES})
_ROLE_BY_NORM = MappingProxyType({"leader": "leader", "second": "second", "trooper": "trooper",
                                  "homme de troupe": "trooper", "troupe": "trooper"})


def arsenal_weapon(name: str, custom: Mapping[str, Any] | None = None) -> Weapon:
    """Return the weapon ``name`` (the game's own ``weapons`` first, then the arsenal; case and accents ignored).

    >>> arsenal_weapon("fusil snipper").bonus
    2
    """
    for key, stats in (custom or {}).items():
        if _norm(key) == _norm(name):
            return Weapon(key, int(stats["rate"]), int(stats["bonus"]), int(stats.get("cost", 0)),
                          stats.get("range_ud"), stats.get("area_ud"), bool(stats.get("needs_aiming", False)))
    canonical = _BY_NORM.get(_norm(name))
    if canonical is None:
        raise InvalidActionError(f"unknown Feu à Volonté weapon {name!r}; the arsenal has: {', '.join(ARSENAL)}",
                                 msg_id="fav.unknown_weapon", params={"weapon": name, "arsenal": list(ARSENAL)})
    return ARSENAL[canonical]


def support_type(name: Any) -> SupportType:
    """Return the support team type ``name`` (``anti-char``, ``lmg``, ``sniper``, ``mortier``, ``hmg``).

    >>> support_type("Mortar").figures, support_type("LMG").weapon
    (3, 'LMG')
    """
    key = _norm(str(name))
    key = _norm(_TYPE_ALIASES.get(key, key))
    for t in SUPPORT_TYPES.values():
        if _norm(t.name) == key:
            return t
    raise InvalidActionError(f"unknown support team type {name!r}; types are: {', '.join(SUPPORT_TYPES)}",
                             msg_id="feu_a_volonte.support.unknown_type",
                             params={"type": str(name), "types": ", ".join(SUPPORT_TYPES)})


def trait_id(name: str) -> str | None:
    """Return the trait's id (``"en-avant"``...) for any spelling, or ``None`` if unknown."""
    return _TRAIT_BY_NORM.get(_norm(name.replace("!", "").replace("'", " ")))


def quality_of(profile: Mapping[str, Any] | None, who: str) -> Quality:
    """Return the quality a profile names (``recrue``, ``aguerri``, ``vétéran``, ``élite``)."""
    name = (profile or {}).get("quality")
    q = _QUALITY_BY_NORM.get(_norm(str(name))) if name is not None else None
    if q is None and name is not None:  # Jouer en solitaire: the non-player characters' row (support.py)
        from rules.rulesets.feu_a_volonte.support import npc_quality

        npc = npc_quality(name)
        if npc is not None:
            return npc
    if q is None:
        raise InvalidActionError(f"{who} has no Feu à Volonté quality (profile quality {name!r}); "
                                 f"qualities are: {', '.join(QUALITIES)}", msg_id="fav.no_quality",
                                 params={"who": who, "quality": str(name), "qualities": list(QUALITIES)})
    return QUALITIES[q]


def role_of(role: str | None) -> str:
    """Return ``leader``, ``second`` or ``trooper`` (no role = homme de troupe)."""
    if role is None:
        return "trooper"
    r = _ROLE_BY_NORM.get(_norm(role))
    if r is None:
        raise InvalidActionError(f"unknown Feu à Volonté grade {role!r}; grades are: leader, second, trooper",
                                 msg_id="fav.unknown_grade", params={"grade": role})
    return r


# -- recruitment ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recruit:
    """One figure's recruitment cost, line by line."""

    model_id: str
    quality: Quality
    grade: str
    weapons: tuple[Weapon, ...]
    traits: tuple[str, ...]
    served: str | None = None  # the weapon of the support team this figure crews: the team pays for it

    @property
    def charged(self) -> tuple[Weapon, ...]:
        """Return the weapons the figure pays for: all it carries but (one of) its team's weapon."""
        names = [w.name for w in self.weapons]
        if self.served not in names:
            return self.weapons
        i = names.index(self.served)
        return self.weapons[:i] + self.weapons[i + 1:]

    @property
    def cost(self) -> int:
        return (self.quality.cost + GRADE_COST[self.grade] + sum(w.cost for w in self.charged)
                + TRAIT_COST * len(self.traits))

    def _team_weapon(self) -> bool:
        return len(self.charged) < len(self.weapons)

    def text(self) -> str:
        parts = [f"{self.quality.name} {self.quality.cost}", f"{self.grade} +{GRADE_COST[self.grade]}"]
        parts += [f"{w.name} +{w.cost}" for w in self.charged if w.cost]
        parts += [f"{self.served} (the team's)"] if self._team_weapon() else []
        parts += [f"{t} +{TRAIT_COST}" for t in self.traits]
        return f"{self.model_id}: {' + '.join(parts)} = {self.cost} PdR"

    def params(self) -> dict[str, Any]:
        """Return the parameters of :meth:`text` as a message's (``fav.recruit.cost``)."""
        parts: list[Mapping[str, Any]] = [msg("fav.cost.quality", quality=quality_word(self.quality.name),
                                              cost=self.quality.cost),
                                          msg("fav.cost.grade", grade=grade(self.grade), cost=GRADE_COST[self.grade])]
        parts += [msg("fav.cost.item", name=w.name, cost=w.cost) for w in self.charged if w.cost]
        parts += [msg("fav.cost.team_weapon", name=self.served)] if self._team_weapon() else []
        parts += [msg("fav.cost.item", name=t, cost=TRAIT_COST) for t in self.traits]
        return {"who": self.model_id, "parts": parts, "cost": self.cost}


def recruit_of(model_id: str, profile: Mapping[str, Any] | None, role: str | None, weapons: Iterable[str],
               traits: Iterable[str], custom: Mapping[str, Any] | None, *, team: SupportType | None = None) -> Recruit:
    """Return the recruitment line of one figure (Coût = Qualité + Grade + Arme + Trait(s)).

    ``team``: the support team the figure crews, whose weapon the team pays for.
    """
    tids = []
    for t in traits:
        tid = trait_id(t)
        if tid is None:
            raise InvalidActionError(f"{model_id}: unknown trait {t!r}; traits are: {', '.join(TRAITS)}",
                                     msg_id="fav.unknown_trait", params={"who": model_id, "trait": t,
                                                                         "traits": list(TRAITS)})
        tids.append(tid)
    return Recruit(model_id, quality_of(profile, model_id), role_of(role),
                   tuple(arsenal_weapon(w, custom) for w in weapons), tuple(tids),
                   None if team is None else arsenal_weapon(team.weapon, custom).name)


def check_platoon(recruits: Sequence[Recruit], budget: int, teams: Sequence[TeamRecruit] = ()) -> list[str]:
    """Return the recruitment limits ``recruits`` and support ``teams`` break (empty when the platoon is legal).

    The crew figures are among ``recruits``; each team adds its price once (SRC_TEAMS).
    """
    problems: list[str] = []
    n = len(recruits)
    if not MIN_MEMBERS <= n <= MAX_MEMBERS:
        problems.append(Phrase(f"a platoon has {MIN_MEMBERS} to {MAX_MEMBERS} members, this one {n}",
                               "fav.platoon.size", min=MIN_MEMBERS, max=MAX_MEMBERS, n=n))
    leaders = [r.model_id for r in recruits if r.grade == "leader"]
    seconds = [r.model_id for r in recruits if r.grade == "second"]
    if len(leaders) != 1:
        problems.append(Phrase(f"a platoon needs exactly one leader, this one has {len(leaders)}"
                               f"{' (' + ', '.join(leaders) + ')' if leaders else ''}", "fav.platoon.leaders",
                               n=len(leaders), who=id_list(leaders)))
    if not 1 <= len(seconds) <= MAX_SECONDS:
        problems.append(Phrase(f"a platoon needs one or two seconds, this one has {len(seconds)}"
                               f"{' (' + ', '.join(seconds) + ')' if seconds else ''}", "fav.platoon.seconds",
                               n=len(seconds), who=id_list(seconds)))
    for r in recruits:
        if len(r.traits) > MAX_TRAITS[r.grade]:
            problems.append(Phrase(f"{r.model_id}: a {r.grade} has at most {MAX_TRAITS[r.grade]} trait(s), "
                                   f"got {len(r.traits)}", "fav.platoon.traits", who=r.model_id,
                                   grade=grade(r.grade), max=MAX_TRAITS[r.grade], n=len(r.traits)))
    for t in teams:
        if len(t.crew) != t.kind.figures:
            problems.append(Phrase(f"{t.team_id}: a {t.kind.name} team has {t.kind.figures} figures, this one "
                                   f"{len(t.crew)}", "fav.platoon.team_size", team=t.team_id, type=t.kind.name,
                                   figures=t.kind.figures, n=len(t.crew)))
    total = sum(r.cost for r in recruits) + sum(t.cost for t in teams)
    if total > budget:
        problems.append(Phrase(f"the platoon costs {total} PdR, over the budget of {budget} PdR",
                               "fav.platoon.budget", total=total, budget=budget))
    return problems


def _budget(extra: Mapping[str, Any], *, teams: bool = False) -> int:
    """Return the platoon's budget: ``extra.budget``, else 30 PdR, or 40 with support teams (1914 à nos jours)."""
    budget = extra.get("budget", BUDGET_WITH_SUPPORT_PDR if teams else BUDGET_PDR)
    if budget not in (BUDGET_PDR, BUDGET_WITH_SUPPORT_PDR):
        raise InvalidActionError(f"budget must be {BUDGET_PDR} PdR (or {BUDGET_WITH_SUPPORT_PDR} with "
                                 f"support groups, 1914 à nos jours), got {budget!r}", msg_id="fav.budget",
                                 params={"budget": str(budget), "normal": BUDGET_PDR,
                                         "support": BUDGET_WITH_SUPPORT_PDR})
    return int(budget)


def validate_roster(roster: Roster) -> None:
    """Refuse a platoon the recruitment rules do not allow (Feu à Volonté, Recrutement).

    Profiles name a ``quality``; models carry a ``role`` (leader, second, trooper),
    weapons from the arsenal (or the roster's ``weapons`` with ``rate``, ``bonus``,
    ``cost``) and up to two traits for the leader, one for the others, from the
    Compétences list. The platoon has 5 to 10 members, one leader, one or two
    seconds, and costs at most 30 PdR (40 when a unit is a support team: its
    ``extra.support`` names the team's type and its models are the crew; or say
    ``extra.budget``).
    """
    custom = roster.weapons
    require_known_weapons(roster, builtin=[w for w in _all_weapon_spellings(roster)])
    for unit in roster.units:
        for where, rules in [(f"unit {unit.unit_id!r}", unit.rules)] + [(f"model {m.model_id!r}", m.rules)
                                                                        for m in unit.models]:
            for rule in rules:
                if trait_id(rule) is None:
                    _refuse(roster, f"{where} has unknown trait {rule!r}; Feu à Volonté traits are: "
                                f"{', '.join(TRAITS)} ({SRC_TRAITS})", "fav.roster.unknown_trait",
                            where=where, trait=rule, traits=list(TRAITS))
    for name, stats in custom.items():
        for key in ("rate", "bonus"):
            if not isinstance(stats.get(key), int) or isinstance(stats.get(key), bool):
                _refuse(roster, f"weapons.{name}.{key} must be a whole number", "fav.roster.weapon_number",
                        weapon=name, field=key)
    try:
        recruits, teams = _roster_recruits(roster)
    except InvalidActionError as exc:
        _refuse(roster, str(exc), exc.msg_id or "fav.roster.refused", **dict(exc.params))
    try:
        budget = _budget(roster.extra, teams=bool(teams))
    except InvalidActionError as exc:
        _refuse(roster, f"extra.{exc}", exc.msg_id or "fav.roster.refused", **dict(exc.params))
    problems = check_platoon(recruits, budget, teams)
    if problems:
        _refuse(roster, "recruitment refused: " + "; ".join(problems) + f" ({SRC_RECRUIT})", "fav.roster.platoon",
                problems=[said(p) for p in problems])


def _refuse(roster: Roster, text: str, msg_id: str, **params: Any) -> NoReturn:
    """Raise the roster's refusal (as :meth:`Roster.fail` words it) with its message id and parameters."""
    raise RosterError(f"{roster.source}: {text}", msg_id=msg_id, params={"roster": roster.source, **params})


def _all_weapon_spellings(roster: Roster) -> list[str]:
    out = []
    for _, m in roster.all_models():
        for w in m.weapons:
            if _norm(w) in _BY_NORM:
                out.append(w)
    return out


def _roster_recruits(roster: Roster) -> tuple[list[Recruit], list[TeamRecruit]]:
    """Return each figure's recruitment line and each support team's (a unit whose ``extra.support`` names it)."""
    recruits, teams = [], []
    for unit in roster.units:
        kind = support_type(unit.extra["support"]) if unit.extra.get("support") is not None else None
        if kind is not None:
            teams.append(TeamRecruit(unit.unit_id, kind, tuple(m.model_id for m in unit.models)))
        for m in unit.models:
            recruits.append(recruit_of(m.model_id, roster.profiles.get(roster.profile_of(unit, m) or ""), m.role,
                                       m.weapons, (*unit.rules, *m.rules), roster.weapons, team=kind))
    return recruits, teams


def roster_cost(roster: Roster) -> tuple[int, list[str]]:
    """Return the platoon's total cost in PdR and one line per figure, then one per support team.

    Example (Recrutement): Micka's paras, five élite and one aguerri, a leader and a
    second, come to 25 PdR (see the tests).
    """
    recruits, teams = _roster_recruits(roster)
    lines = [r.text() for r in recruits] + [t.text() for t in teams]
    return sum(r.cost for r in recruits) + sum(t.cost for t in teams), lines
