"""Feu à Volonté v1.6: UD by figure scale, centre to centre, model by model.

Sources are the sections of ``seeds/feu-a-volonte-v1.6.txt``: Mesurer les
distances, Arc frontal, Les Mouvements, Se dissimuler, Les Combats à distance,
Bonus/malus de situation, Compétences (auras), Radio, Arme à aire d'effet,
Cadence de tir, Groupe d'appui, Le Terrain.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, Mapping

from calibration.units import DEFAULT_UD_MM
from rules.errors import InvalidActionError
from rules.explain import Step, msg
from rules.measure import CONTACT_TOLERANCE_MM, model_distance_mm, point_distance_mm
from rules.plan import Model, TablePlan
from rules.rulesets.base import Option, RuleSet
from rules.rulesets.common import Args, length_of, semicolons, table_point
from rules.rulesets.feu_a_volonte.actions import ACTIONS, validate_roster
from rules.rulesets.feu_a_volonte.answers import (
    ArcAnswer,
    AuraAnswer,
    CoverAnswer,
    GrenadeAnswer,
    HideAnswer,
    Modifier,
    MoveAnswer,
    RadioAnswer,
    RadioLink,
    RangeAnswer,
    ShootersAnswer,
    SplitAnswer,
    SpotAnswer,
    TooFar,
)
from rules.rulesets.feu_a_volonte.climb import ask_climb
from rules.rulesets.feu_a_volonte.more_actions import MORE_ACTIONS, MORE_PARAMS
from rules.rulesets.feu_a_volonte.params import PARAMS
from rules.rulesets.feu_a_volonte.support import SUPPORT_ACTIONS, SUPPORT_PARAMS
from rules.rulesets.feu_a_volonte.words import Phrase, id_list, said, signed
from rules.terrain import TerrainKind, path_profile, terrain_geometry
from rules.visibility import line_of_sight
from rules.zones import aura, deviate

SRC = "Feu à Volonté, Le Terrain (tableau des éléments de décor)"
SRC_MOVE = "Feu à Volonté, Les Mouvements"

TERRAIN_KINDS = MappingProxyType({k.kind: k for k in (
    TerrainKind("road", "clear", "road", False, ("area", "line"), "road: open, 4 UD + 1d6 UD for 1 PA", SRC),
    TerrainKind("plain", "clear", "open", False, ("area",), "plain: open, sight clear", SRC),
    TerrainKind("path", "clear", "difficult", False, ("area", "line"), "path or field: difficult, sight clear", SRC),
    TerrainKind("rough", "blocks", "difficult", True, ("area",), "rough ground or ditches: difficult, sight blocked",
                SRC),
    TerrainKind("tree-line", "blocks", "difficult", True, ("area", "line"),
                "single line of trees: difficult, sight blocked", SRC),
    TerrainKind("forest", "blocks", "impassable", True, ("area",), "forest: impassable, sight blocked", SRC),
    TerrainKind("river", "clear", "impassable", False, ("area", "line"), "river: impassable, sight clear", SRC),
    TerrainKind("water", "clear", "impassable", False, ("area",), "stretch of water: impassable, sight clear", SRC),
    TerrainKind("building", "blocks", "impassable", True, ("area",), "building: impassable, sight blocked", SRC),
    # Les Mouvements: "Les bois, les marais, les bâtiments sont considérés comme des terrains difficiles."
    TerrainKind("wood", "blocks", "difficult", True, ("area",), "wood: difficult, sight blocked", SRC_MOVE),
    TerrainKind("marsh", "clear", "difficult", False, ("area",), "marsh: difficult, sight clear", SRC_MOVE),
    # Obstacle linéaire: hedge, fence, low wall, barricade; -1 UD to cross, cover to a target behind it.
    TerrainKind("hedge", "cover", "linear", True, ("line",), "hedge: linear obstacle, -1 UD, cover", SRC_MOVE),
    TerrainKind("fence", "cover", "linear", True, ("line",), "fence: linear obstacle, -1 UD, cover", SRC_MOVE),
    TerrainKind("low-wall", "cover", "linear", True, ("line",), "low wall: linear obstacle, -1 UD, cover", SRC_MOVE),
    TerrainKind("barricade", "cover", "linear", True, ("line",), "barricade: linear obstacle, -1 UD, cover", SRC_MOVE),
)})


# -- questions ------------------------------------------------------------------------------------



SRC_MEASURE = "Feu à Volonté, Mesurer les distances"
SRC_ARC = "Feu à Volonté, Arc frontal"
SRC_SHOOT = "Feu à Volonté, Les Combats à distance"
SRC_BANDS = "Feu à Volonté, Bonus/malus de situation"
SRC_TRAITS = "Feu à Volonté, Compétences"
SRC_ROLE = "Feu à Volonté, Rôle du leader et du second"
SRC_RADIO = "Feu à Volonté, Radio"
SRC_HIDE = "Feu à Volonté, Se dissimuler"
SRC_AREA = "Feu à Volonté, Arme à aire d'effet"
SRC_ROF = "Feu à Volonté, Cadence de tir"
SRC_MOVES = "Feu à Volonté, Les Mouvements"
SRC_SUPPORT = "Feu à Volonté, Groupe d'appui"
WEAPON_RANGE_UD = MappingProxyType({"pistol": 4.0, "grenade": 4.0, "mortar": 6.0})
WEAPON_NAMES = MappingProxyType({"pistolet": "pistol", "pistol": "pistol", "grenade": "grenade",
                                 "grenade à main": "grenade", "mortier": "mortar", "mortar": "mortar"})
COMMANDERS = ("leader", "second")


def band_modifier(distance_ud: float, boundary: str = "nearer") -> tuple[str, int]:
    """Return the range band and its modifier (< 4 UD +1, 4-8 0, 8-12 -1, > 12 -2).

    A distance on a band's limit: docs/rule-choices.md#feu-a-volonte-3.

    >>> band_modifier(3.9), band_modifier(4.0), band_modifier(4.0, "farther"), band_modifier(12.5)
    (('< 4 UD', 1), ('< 4 UD', 1), ('4-8 UD', 0), ('> 12 UD', -2))
    """
    bands = ((4.0, "< 4 UD", 1), (8.0, "4-8 UD", 0), (12.0, "8-12 UD", -1))
    for limit, label, mod in bands:
        if distance_ud < limit - 1e-9 or (boundary == "nearer" and distance_ud <= limit + 1e-9):
            return label, mod
    return "> 12 UD", -2


def relative_bearing_deg(observer: Model, point: tuple[float, float]) -> float | None:
    """Return the angle from ``observer``'s facing to ``point`` in (-180, 180], or ``None`` without a facing."""
    if observer.facing_deg is None:
        return None
    bearing = math.degrees(math.atan2(point[1] - observer.y_mm, point[0] - observer.x_mm))
    rel = (bearing - observer.facing_deg + 180.0) % 360.0 - 180.0
    return 180.0 if rel == -180.0 else rel


def _weapon(plan: TablePlan, shooter: Model, name: str | None) -> str | None:
    raw = name if name is not None else (shooter.weapons[0] if shooter.weapons else None)
    if raw is None:
        return None
    return WEAPON_NAMES.get(raw.strip().lower(), raw.strip().lower())


def ask_range(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> RangeAnswer:
    """range SHOOTER TARGET [--weapon NAME] [--weapon-range UD]: band, rear shot, cover or prone."""
    v = args.parse(("SHOOTER", "TARGET"), flags={"weapon": "text", "weapon-range": "number"})
    s, t = plan.model(v["SHOOTER"]), plan.model(v["TARGET"])
    if s.model_id == t.model_id:
        raise InvalidActionError("range: name two different models", msg_id="fav.range.same")
    how = self.measure_how(opts)
    d = model_distance_mm(s, t, how=how)
    d_ud = self.to_unit(d, opts)
    weapon = _weapon(plan, s, v.get("weapon"))
    max_ud = float(v["weapon-range"]) if "weapon-range" in v else WEAPON_RANGE_UD.get(weapon or "")
    steps = [self.measure_step(opts),
             Step("distance", f"{s.model_id} to {t.model_id}: {d_ud:.2f} UD (1 UD = {self.unit(opts).mm:g} mm)",
                  SRC_MEASURE, value=round(d_ud, 3), option=self.changed(opts, "ud_mm"), msg="fav.range.distance",
                  params={"a": s.model_id, "b": t.model_id, "distance": round(d_ud, 2),
                          "ud_mm": self.unit(opts).mm})]
    mods: list[Modifier] = []
    in_range = max_ud is None or d_ud <= max_ud + 1e-9
    if weapon == "pistol":
        steps.append(Step("pistol", "a pistol reaches 4 UD, with no range bonus or malus", SRC_SHOOT, value=4,
                          msg="fav.range.pistol"))
        band = "pistol"
    else:
        band, mod = band_modifier(d_ud, str(opts.get("band_boundary", "nearer")))
        mods.append(Modifier(Phrase(f"range {band}", "answer.fav.mod.range", band=band), mod))
        steps.append(Step("range band", f"{band}: {mod:+d}", SRC_BANDS, value=mod,
                          option=self.changed(opts, "band_boundary"), msg="fav.range.band",
                          params={"band": band, "mod": signed(mod)}))
    if max_ud is not None:
        steps.append(Step("in range", f"range {max_ud:g} UD: {'in' if in_range else 'out of'} range", SRC_SHOOT,
                          value=in_range, msg="fav.range.in" if in_range else "fav.range.out",
                          params={"range": max_ud}))
    rel = relative_bearing_deg(t, s.position_mm)
    if rel is not None and abs(rel) > 90.0 + 1e-9:
        mods.append(Modifier(Phrase("shot in the back", "answer.fav.mod.back"), 1))
        steps.append(Step("rear shot", f"{s.model_id} is behind {t.model_id} ({abs(rel):.0f}° from its facing): +1",
                          SRC_BANDS, value=1, msg="fav.range.rear",
                          params={"shooter": s.model_id, "target": t.model_id, "deg": round(abs(rel))}))
    covered, why = _cover(self, plan, s, t, opts)
    if covered:
        mods.append(Modifier(Phrase("target in cover or prone", "answer.fav.mod.cover"), -1))
        steps.append(Step("cover or prone", f"{t.model_id}: {why}: -1", SRC_BANDS + " / " + SRC_SHOOT, value=-1,
                          msg="fav.range.cover", params={"target": t.model_id, "why": said(why)}))
    total = sum(m.modifier for m in mods)
    answer = Phrase(f"{d_ud:.2f} UD, band {band}; modifiers {total:+d} ("
                    + (", ".join(f"{m.rule} {m.modifier:+d}" for m in mods) or "none") + ")"
                    + ("" if in_range else "; out of range"), "answer.fav.range", distance=round(d_ud, 2),
                    band=msg("answer.fav.pistol") if band == "pistol" else band, total=signed(total),
                    mods=[msg("answer.fav.mod", rule=said(m.rule), mod=signed(m.modifier)) for m in mods]
                    or msg("answer.none"), out="" if in_range else msg("answer.fav.out_of_range"))
    return RangeAnswer(length_of(self, d, opts), weapon, band, in_range, tuple(mods), answer, tuple(steps))


def _cover(self: "FeuAVolonte", plan: TablePlan, s: Model, t: Model, opts: Mapping[str, Any]) -> tuple[bool, str]:
    if t.has_status("prone"):
        return True, Phrase("prone", "fav.cover.prone")
    sight = line_of_sight(plan, s.model_id, t.model_id, options=opts, ruleset=self)
    if sight.visible and (sight.visible_fraction < 1.0 or sight.cover_fraction > 0):
        names = [i for _, i, _ in sight.blockers] + [i for _, i, _ in sight.cover]
        return True, Phrase(f"partly hidden or behind a linear obstacle ({', '.join(names)})", "fav.cover.partly",
                            pieces=id_list(names))
    return False, Phrase("in the open", "fav.cover.open")


def ask_cover(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> CoverAnswer:
    """cover SHOOTER TARGET: partly hidden behind scenery, behind a linear obstacle, or prone: -1."""
    v = args.parse(("SHOOTER", "TARGET"))
    s, t = plan.model(v["SHOOTER"]), plan.model(v["TARGET"])
    sight = line_of_sight(plan, s.model_id, t.model_id, options=opts, ruleset=self)
    covered, why = _cover(self, plan, s, t, opts)
    steps = list(sight.steps) + [Step("cover", f"{t.model_id}: {why}" + (": -1 to the attack" if covered else ""),
                                      SRC_SHOOT, value=-1 if covered else 0,
                                      msg="fav.cover.step_covered" if covered else "fav.cover.step",
                                      params={"target": t.model_id, "why": said(why)})]
    return CoverAnswer(sight.visible, sight.visible_fraction, covered, why,
                       Phrase("not visible", "answer.fav.not_visible") if not sight.visible
                       else Phrase(f"{'in cover' if covered else 'in the open'}: {why}",
                                   "answer.fav.in_cover" if covered else "answer.fav.in_the_open", why=said(why)),
                       tuple(steps))


def _arc_state(shooter: Model, point: tuple[float, float], window: bool) -> tuple[float | None, str]:
    rel = relative_bearing_deg(shooter, point)
    if rel is None:
        return None, Phrase("unknown (the model has no facing)", "fav.arc.no_facing")
    a = abs(rel)
    if window:
        return rel, (Phrase("in the arc", "fav.arc.window_in") if a <= 45.0 + 1e-9
                     else Phrase("outside the 45° each side of the opening", "fav.arc.window_out"))
    if a <= 90.0 + 1e-9:
        return rel, Phrase("in the front arc", "fav.arc.front")
    if a <= 135.0 + 1e-9:
        return rel, Phrase("in reach of the free 45° turn", "fav.arc.turn")
    return rel, Phrase("behind: the model must turn first (1 PA)", "fav.arc.behind")


def ask_arc(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ArcAnswer:
    """arc SHOOTER TARGET [--window]: 180° front arc, the free 45° turn, or ±45° at a window or door."""
    v = args.parse(("SHOOTER", "TARGET"), flags={"window": "bool"})
    s, t = plan.model(v["SHOOTER"]), plan.model(v["TARGET"])
    rel, state = _arc_state(s, t.position_mm, bool(v.get("window")))
    can = state in ("in the front arc", "in reach of the free 45° turn", "in the arc")
    src = "Feu à Volonté, Tirer au travers d'une fenêtre ou d'une porte" if v.get("window") else SRC_ARC
    steps = [Step("arc", f"{t.model_id} is {abs(rel):.0f}° from {s.model_id}'s facing: {state}" if rel is not None
                  else state, src, value=round(rel, 2) if rel is not None else None,
                  msg="fav.arc.step" if rel is not None else "fav.arc.only",
                  params={"target": t.model_id, "deg": round(abs(rel)) if rel is not None else 0,
                          "who": s.model_id, "state": said(state)})]
    if not v.get("window"):
        steps.append(Step("free turn", "declaring a target turns the shooter up to 45° toward it for free",
                          SRC_SHOOT, msg="fav.arc.free_turn"))
    return ArcAnswer(rel, state, can, Phrase(state, "answer.fav.arc", state=said(state)), tuple(steps))


def ask_shooters(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> ShootersAnswer:
    """shooters TARGET SHOOTER... : who can fire on one target, +1 per extra shooter, the main (nearest) one."""
    v = args.parse(("TARGET", "SHOOTER"), rest="MORE")
    t = plan.model(v["TARGET"])
    names = [v["SHOOTER"], *v["MORE"]]
    able: list[Model] = []
    unable: dict[str, str] = {}
    for name in names:
        s = plan.model(name)
        sight = line_of_sight(plan, s.model_id, t.model_id, options=opts, ruleset=self)
        _, state = _arc_state(s, t.position_mm, False)
        if not sight.visible:
            unable[name] = Phrase("no line of sight", "fav.shooters.no_sight")
        elif state.startswith("behind"):
            unable[name] = state
        else:
            able.append(s)
    how = self.measure_how(opts)
    able.sort(key=lambda s: (model_distance_mm(s, t, how=how), s.model_id))
    bonus = max(len(able) - 1, 0)
    main = able[0].model_id if able else None
    steps = [Step("several shooters", f"{len(able)} can fire on {t.model_id}: +{bonus} to the attack "
                  "(+1 per extra shooter)", SRC_SHOOT, value=bonus, msg="fav.shooters.count",
                  params={"n": len(able), "target": t.model_id, "bonus": bonus})]
    if main:
        steps.append(Step("main shooter", f"the nearest to the target rolls: {main}", SRC_SHOOT,
                          msg="fav.shooters.main", params={"main": main}))
    steps += [Step("cannot fire", f"{k}: {r}", SRC_SHOOT, msg="fav.shooters.cannot", params={"who": k, "why": said(r)})
              for k, r in unable.items()]
    return ShootersAnswer(tuple(s.model_id for s in able), unable,
                          Phrase(f"main shooter {main}, +{bonus}", "answer.fav.main_shooter", main=main, bonus=bonus)
                          if main else Phrase("nobody can fire", "answer.fav.nobody_can_fire"), tuple(steps))


def ask_aura(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> AuraAnswer:
    """aura MODEL: a leader's or second's 3 UD (traits En avant, Inspire l'exemple, Cohésion; reserve dice)."""
    v = args.parse(("MODEL",))
    m = plan.model(v["MODEL"])
    if (m.role or "") not in COMMANDERS:
        raise InvalidActionError(f"aura: {m.model_id} is not a leader or a second (role {m.role!r})",
                                 msg_id="fav.aura.not_commander", params={"who": m.model_id})
    a = aura(plan, m.model_id, self.from_unit(3.0, opts), who="friends", how=self.measure_how(opts),
             rule="3 UD", source=SRC_TRAITS)
    steps = list(a.steps) + [Step("reserve dice", "the reserve dice may be added to the quality rolls of figures "
                                  "within 3 UD of the leader or a second", SRC_ROLE, msg="fav.aura.reserve")]
    return AuraAnswer(m.model_id, m.role, length_of(self, a.radius_mm, opts), tuple(a.inside), a.distances_mm,
                      Phrase(f"{len(a.inside)} friend(s) within 3 UD of {m.model_id}: {', '.join(a.inside) or 'none'}",
                             "answer.fav.aura", n=len(a.inside), model=m.model_id, friends=id_list(a.inside)),
                      tuple(steps))


def ask_radio(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> RadioAnswer:
    """radio [SIDE]: figures more than 4 UD from their leader and seconds pay +1 PA on their first action."""
    v = args.parse((), optional=("SIDE",))
    sides = sorted({u.side for u in plan.units})
    if "SIDE" in v and v["SIDE"] not in sides:
        raise InvalidActionError(f"radio: no side {v['SIDE']!r}; sides are: {', '.join(sides)}",
                                 msg_id="fav.radio.no_side", params={"side": v["SIDE"], "sides": id_list(sides)})
    how = self.measure_how(opts)
    limit = self.from_unit(4.0, opts)
    per: dict[str, RadioLink] = {}
    steps: list[Step] = []
    for side in ([v["SIDE"]] if "SIDE" in v else sides):
        ms = [m for m in plan.models if plan.unit(m.unit_id).side == side]
        chiefs = [m for m in ms if (m.role or "") in COMMANDERS]
        if not chiefs:
            steps.append(Step("disorganised", f"{side} has no leader or second left: every figure pays +1 PA on its "
                              "first action", SRC_RADIO, msg="fav.radio.side_disorganised", params={"side": side}))
        for m in ms:
            if m in chiefs:
                per[m.model_id] = RadioLink(side, 0, m.model_id, 0.0)
                continue
            if not chiefs:
                per[m.model_id] = RadioLink(side, 1, None, None)
                continue
            c = min(chiefs, key=lambda k: model_distance_mm(m, k, how=how))
            d = model_distance_mm(m, c, how=how)
            per[m.model_id] = RadioLink(side, int(d > limit + 1e-9), c.model_id, d)
    far = [k for k, p in per.items() if p.extra_pa]
    steps.append(Step("radio", f"more than 4 UD from the leader and every second: +1 PA on the first action: "
                      f"{', '.join(far) or 'none'}", SRC_RADIO, value=len(far), msg="fav.radio.far_list",
                      params={"figures": id_list(far)}))
    return RadioAnswer(per, Phrase(f"+1 PA for {', '.join(far)}", "answer.fav.radio", models=list(far)) if far
                       else Phrase("everyone in radio range", "answer.fav.radio_all"), tuple(steps))


def ask_spot(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> SpotAnswer:
    """spot MODEL: enemies closer than 2 UD detect a hidden figure automatically."""
    v = args.parse(("MODEL",))
    m = plan.model(v["MODEL"])
    a = aura(plan, m.model_id, self.from_unit(2.0, opts), who="enemies", how=self.measure_how(opts), strict=True,
             rule="spotted", source=SRC_HIDE)
    hidden = m.has_status("hidden")
    steps = list(a.steps) + [Step("spotting", f"{m.model_id} is {'hidden' if hidden else 'not hidden'}; "
                                  + ("an enemy closer than 2 UD detects it automatically" if a.inside
                                     else "others must roll Quality 7+ to spot it"), SRC_HIDE, msg="fav.spot.state",
                                  params={"who": m.model_id,
                                          "state": msg("fav.spot.is_hidden" if hidden else "fav.spot.not_hidden"),
                                          "how": msg("fav.spot.near" if a.inside else "fav.spot.needs_roll")})]
    return SpotAnswer(m.model_id, hidden, tuple(a.inside),
                      Phrase(f"spotted automatically by {', '.join(a.inside)}", "answer.fav.spotted",
                             by=list(a.inside)) if a.inside
                      else Phrase("not spotted automatically (Quality 7+ to spot)", "answer.fav.not_spotted"),
                      tuple(steps))


def ask_hide(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> HideAnswer:
    """hide MODEL: a figure closer than 1 UD to a piece of scenery may hide (1 PA)."""
    v = args.parse(("MODEL",))
    m = plan.model(v["MODEL"])
    import shapely
    how = self.measure_how(opts)
    best: tuple[float, str] | None = None
    for piece in plan.terrain:
        kind = self.kind_of(piece)
        if kind.sight == "clear" and not kind.cover:
            continue
        d = float(terrain_geometry(piece).distance(shapely.Point(m.position_mm)))
        d = max(0.0, d - m.base_mm / 2.0) if how == "edge" else d
        if best is None or d < best[0]:
            best = (d, piece.terrain_id)
    limit = self.from_unit(1.0, opts)
    ok = best is not None and best[0] < limit - 1e-9
    steps = [Step("hide", ("no scenery to hide behind" if best is None else
                           f"nearest scenery {best[1]} at {self.fmt(best[0], opts)}: "
                           + ("closer than 1 UD, the figure may hide" if ok else "not closer than 1 UD")),
                  SRC_HIDE, value=ok,
                  msg="fav.hide.none" if best is None else "fav.hide.may" if ok else "fav.hide.may_not",
                  params={} if best is None else {"piece": best[1], "distance": round(self.to_unit(best[0], opts), 2)})]
    return HideAnswer(m.model_id, ok, best[1] if best else None, length_of(self, best[0], opts) if best else None,
                      Phrase(("may hide" if ok else "may not hide") + (f" ({best[1]})" if best else ""),
                             "answer.fav.may_hide" if ok else "answer.fav.may_not_hide",
                             piece=msg("answer.fav.piece", piece=best[1]) if best else ""), tuple(steps))


def ask_grenade(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> GrenadeAnswer:
    """grenade THROWER X_MM Y_MM [--weapon grenade|mortar] [--deviation D6]: range, drift, 3 UD blast."""
    v = args.parse(("THROWER", "X_MM", "Y_MM"), flags={"weapon": "text", "deviation": "int"})
    thrower = plan.model(v["THROWER"])
    point = table_point(args, v, plan, "X_MM", "Y_MM")
    weapon = WEAPON_NAMES.get(str(v.get("weapon", "grenade")).lower())
    if weapon not in ("grenade", "mortar"):
        raise InvalidActionError("grenade: --weapon must be grenade or mortar", msg_id="fav.grenade.weapon")
    how = self.measure_how(opts)
    reach_ud = WEAPON_RANGE_UD[weapon]
    d = point_distance_mm(thrower, point, how="centre" if how == "centre" else "edge")
    in_range = d <= self.from_unit(reach_ud, opts) + 1e-6
    steps = [Step("range", f"{weapon} range {reach_ud:g} UD; the point is {self.fmt(d, opts)} away: "
                  f"{'in' if in_range else 'out of'} range", SRC_AREA, value=in_range,
                  msg="fav.grenade.in_range" if in_range else "fav.grenade.out_of_range",
                  params={"weapon": msg(f"fav.weapon.{weapon}"), "reach": reach_ud,
                          "distance": round(self.to_unit(d, opts), 2)})]
    impact = point
    if "deviation" in v:
        roll = int(v["deviation"])
        impact = deviate(point, thrower.position_mm, roll, self.from_unit(float(roll), opts))
        steps.append(Step("deviation", f"missed (under 7): the d6 gives {roll}: {roll} UD in direction {roll} "
                          "(4 straight away from the thrower, numbered clockwise)", SRC_AREA, value=roll,
                          msg="fav.grenade.deviation", params={"roll": roll}))
    radius = self.from_unit(3.0, opts)
    hit = []
    for m in plan.models:
        dm = point_distance_mm(m, impact, how=how)
        if dm <= radius + 1e-6:
            hit.append((dm, m.model_id))
    hit.sort()
    names = [k for _, k in hit]
    steps.append(Step("blast", f"every figure within 3 UD of the impact is hit: {', '.join(names) or 'none'}",
                      SRC_AREA, value=len(names), msg="fav.grenade.blast", params={"hit": id_list(names)}))
    answer = Phrase(("" if in_range else "out of range; ")
                    + f"{len(names)} figure(s) hit: {', '.join(names) or 'none'}",
                    "answer.fav.grenade" if in_range else "answer.fav.grenade_out", n=len(names), hit=id_list(names))
    return GrenadeAnswer(weapon, in_range, (impact[0], impact[1]), length_of(self, radius, opts), tuple(names), answer,
                         tuple(steps))


def ask_split(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> SplitAnswer:
    """split TARGET TARGET... : a rate of fire above 1 may be split between targets within 2 UD of each other."""
    v = args.parse(("TARGET", "OTHER"), rest="MORE")
    ms = [plan.model(k) for k in [v["TARGET"], v["OTHER"], *v["MORE"]]]
    how = self.measure_how(opts)
    limit = self.from_unit(2.0, opts)
    far = [TooFar(a.model_id, b.model_id, round(model_distance_mm(a, b, how=how), 2))
           for i, a in enumerate(ms) for b in ms[i + 1:] if model_distance_mm(a, b, how=how) > limit + 1e-9]
    steps = [Step("rate of fire", "shots of a rate of fire above 1 may be split between targets 2 UD apart at most"
                  + (f"; too far apart: {', '.join(f'{p.a}-{p.b}' for p in far)}" if far else ""), SRC_ROF,
                  value=not far, msg="fav.split.too_far" if far else "fav.split.ok",
                  params={"pairs": [f"{p.a}-{p.b}" for p in far]})]
    return SplitAnswer(tuple(far), Phrase("the shots may be split", "answer.fav.split") if not far
                       else Phrase("the targets are too far apart", "answer.fav.too_far_apart"),
                       tuple(steps))


def ask_move(self: "FeuAVolonte", plan: TablePlan, args: Args, opts: Mapping[str, Any]) -> MoveAnswer:
    """move MODEL X_MM Y_MM [--run] [--roll D6]: 4 UD, difficult halves the rest, -1 UD per linear obstacle."""
    v = args.parse(("MODEL", "X_MM", "Y_MM"), flags={"run": "bool", "roll": "int"})
    m = plan.model(v["MODEL"])
    end = table_point(args, v, plan, "X_MM", "Y_MM")
    prof = path_profile(m.position_mm, end, plan.terrain, lambda p: self.kind_of(p).movement)
    ud = self.unit(opts).mm
    difficult = prof.inside_mm("difficult")
    cost_mm = prof.length_mm + difficult  # a stretch of difficult ground costs double: the rest is halved
    problems: list[str] = []
    shoulder = 0.8 * m.height_mm if m.height_mm else None
    for tid, _kind, effect, height in prof.lines:
        if effect == "linear":
            if shoulder is not None and height is not None and height > shoulder:
                problems.append(Phrase(f"{tid} is higher than the figure's shoulder: impassable", "fav.move.shoulder",
                                       piece=tid))
            cost_mm += ud
    if prof.blocked:
        problems.append(Phrase(f"impassable: {', '.join(prof.blocked)}", "fav.move.impassable",
                               pieces=list(prof.blocked)))
    run = bool(v.get("run"))
    on_road = prof.length_mm > 0 and prof.inside_mm("road") >= prof.length_mm - 1e-6
    if run and difficult > 0:
        problems.append(Phrase("a running figure cannot cross difficult terrain", "fav.move.no_run_difficult"))
    base = 4.0 * ud
    need_ud = cost_mm / ud
    roll = v.get("roll")
    extra_allowed = run or on_road
    if need_ud <= 4.0 + 1e-9:
        ok_len = True
    elif extra_allowed:
        needed_roll = math.ceil(need_ud - 4.0 - 1e-9)
        ok_len = needed_roll <= 6 and (roll is None or roll >= needed_roll)
        if needed_roll > 6:
            problems.append(Phrase(f"it costs {need_ud:.2f} UD, more than 4 + 6 UD", "fav.move.over_max",
                                   cost=round(need_ud, 2)))
        elif roll is not None and roll < needed_roll:
            problems.append(Phrase(f"it costs {need_ud:.2f} UD; a roll of {roll} gives {4 + roll} UD",
                                   "fav.move.roll_short", cost=round(need_ud, 2), roll=roll, reach=4 + roll))
    else:
        ok_len = False
        problems.append(Phrase(f"it costs {need_ud:.2f} UD, more than the 4 UD of a walk", "fav.move.over_walk",
                               cost=round(need_ud, 2)))
    steps = [Step("movement", "walk 4 UD for 1 PA" + ("; running adds 1d6 UD (2 PA)" if run else "")
                  + ("; on the road 4 UD + 1d6 UD" if on_road else ""), SRC_MOVES, value=4,
                  msg="fav.move.walk" + ("_run" if run else "") + ("_road" if on_road else "")),
             Step("path", f"{prof.length_mm / ud:.2f} UD straight, {difficult / ud:.2f} UD of it in difficult terrain "
                  f"(counted double), {sum(1 for line in prof.lines if line[2] == 'linear')} linear obstacle(s) "
                  f"at 1 UD each: "
                  f"costs {need_ud:.2f} UD", SRC_MOVES, value=round(need_ud, 3), msg="fav.move.path",
                  params={"length": round(prof.length_mm / ud, 2), "difficult": round(difficult / ud, 2),
                          "lines": sum(1 for line in prof.lines if line[2] == "linear"), "cost": round(need_ud, 2)})]
    if extra_allowed and need_ud > 4.0 + 1e-9 and need_ud <= 10.0 + 1e-9:
        steps.append(Step("roll needed", f"needs a d6 of {math.ceil(need_ud - 4.0 - 1e-9)} or more", SRC_MOVES,
                          msg="fav.move.roll", params={"need": math.ceil(need_ud - 4.0 - 1e-9)}))
    steps += [Step("not allowed", p, SRC_MOVES, msg="fav.move.problem", params={"problem": said(p)}) for p in problems]
    allowed = ok_len and not problems
    return MoveAnswer(m.model_id, length_of(self, cost_mm, opts), need_ud, length_of(self, base, opts), allowed,
                      tuple(problems),
                      Phrase(f"costs {need_ud:.2f} UD: "
                             + ("allowed" if allowed else "not allowed: " + "; ".join(problems)),
                             "answer.fav.move", cost=round(need_ud, 2),
                             verdict=msg("answer.allowed") if allowed
                             else msg("answer.not_allowed", problems=semicolons([said(p) for p in problems]))),
                      tuple(steps))


def cohesion_rule(self: "FeuAVolonte", options: Mapping[str, Any]) -> tuple[float, float | None, str] | None:
    """Support groups (2-3 figures) stand in base contact (Feu à Volonté, Groupe d'appui)."""
    return (CONTACT_TOLERANCE_MM, None, SRC_SUPPORT)


def cohesion_how(self: "FeuAVolonte", options: Mapping[str, Any]) -> str:
    return "edge"


class FeuAVolonte(RuleSet):
    """Feu à Volonté v1.6."""

    name = "feu-a-volonte"
    title = "Feu à Volonté"
    aliases = ("fav", "feu a volonte", "feu-à-volonté")
    unit_key = "ud"
    terrain_kinds = TERRAIN_KINDS
    option_specs = (
        Option("measure", "centre", "choice",
               "where distances are measured (the text says centre to centre)", "rule-choices.md#feu-a-volonte-1",
               ("centre", "edge")),
        Option("ud_mm", DEFAULT_UD_MM, "number", "one UD in mm: 10 (10 mm figures), 20 (15-20 mm), 40 (28 mm)",
               "rule-choices.md#feu-a-volonte-2"),
        Option("band_boundary", "nearer", "choice",
               "a range of exactly 4, 8 or 12 UD belongs to the nearer band, or to the farther one",
               "rule-choices.md#feu-a-volonte-3", ("nearer", "farther")),
        Option("hit_location_die", "d4", "choice", "the die read for the wound location (a d8 halved without a d4)",
               "rule-choices.md#feu-a-volonte-6", ("d4", "d8")),
    )
    question_names = ("distance", "los", "cohesion", "template", "objectives", "terrain",
                      "range", "cover", "arc", "shooters", "aura", "radio", "spot", "hide",
                      "grenade", "split", "move", "convert", "climb", "victory")

    # -- questions and hooks written above as functions of the rule set ---------------------------
    ask_range = ask_range
    ask_cover = ask_cover
    ask_arc = ask_arc
    ask_shooters = ask_shooters
    ask_aura = ask_aura
    ask_radio = ask_radio
    ask_spot = ask_spot
    ask_hide = ask_hide
    ask_grenade = ask_grenade
    ask_split = ask_split
    ask_move = ask_move
    ask_climb = ask_climb
    cohesion_rule = cohesion_rule
    cohesion_how = cohesion_how
    # -- actions (rules/rulesets/feu_a_volonte/actions.py) and roster checks -----------------------------------
    actions = MappingProxyType({**ACTIONS, **MORE_ACTIONS, **SUPPORT_ACTIONS})  # more_actions, support: issue 13
    action_params = MappingProxyType({**PARAMS, **MORE_PARAMS, **SUPPORT_PARAMS})
    validate_roster = staticmethod(validate_roster)


FEU_A_VOLONTE: FeuAVolonte = FeuAVolonte()
