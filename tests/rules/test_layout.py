"""The rules package's layering: one registry, no import that runs back up, one home per rule set."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rules
from rules.plan import parse_game
from rules.rulesets import RULESET_IDS, RULESETS, find_ruleset

ROOT = Path(__file__).resolve().parents[2] / "rules"
SHARED = ("plan", "dice", "explain", "frozen", "errors", "resolution", "measure", "terrain", "ontable",
          "visibility", "cohesion", "zones")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at module level or inside a function."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("name", SHARED)
def test_shared_modules_never_reach_up_to_the_rule_sets(name: str) -> None:
    up = {m for m in _imports(ROOT / f"{name}.py")
          if m.startswith(("rules.rulesets", "rules.questions", "rules.resolve"))}
    if name == "plan":  # the JSON edge parse_game reads the ids from the registry at call time
        up.discard("rules.rulesets")
    assert up == set()


def test_one_registry_gives_ids_units_and_actions() -> None:
    assert RULESET_IDS == tuple(rs.name for rs in RULESETS)
    assert [rs.unit_key for rs in RULESETS] == ["in", "in", "ud", "cm", "pas"]
    assert all(rs.actions for rs in RULESETS)
    assert not (ROOT / "combat").exists()
    for rs in RULESETS:  # each rule set's actions live in its own package
        pkg = type(rs).__module__
        homes = ("actions", "more_actions", "solo", "support")
        assert {f.__module__ for f in rs.actions.values()} <= {f"{pkg}.{m}" for m in homes}


def test_public_surface() -> None:
    assert set(rules.__all__) >= {"TablePlan", "load_game", "ask", "resolve", "RULESETS"}
    assert callable(rules.resolve) and callable(rules.ask)


def test_firefight_deployment_zones_hook_is_12_inches_from_each_edge() -> None:
    # Grimdark Future Firefight, Préparation (déploiement): within 12" of one's table edge.
    plan = parse_game({"ruleset": "firefight", "table": {"width_mm": 1219.2, "depth_mm": 1219.2},
                       "units": [{"id": "u", "side": "A"}, {"id": "v", "side": "B"}],
                       "models": [{"id": "a", "unit": "u", "x_mm": 100, "y_mm": 100, "base_mm": 25},
                                  {"id": "b", "unit": "v", "x_mm": 100, "y_mm": 1100, "base_mm": 25}]})
    rs = find_ruleset("firefight")
    zones = {z.side: z for z in rs.deployment_zones(plan, rs.resolve_options(plan))}
    assert {s: z.edge for s, z in zones.items()} == {"A": "top", "B": "bottom"}
    assert zones["A"].depth_mm == pytest.approx(304.8)
    assert zones["A"].zone.bounds == pytest.approx((0.0, 0.0, 1219.2, 304.8))
    assert find_ruleset("at-43").deployment_zones(plan, {}) == ()


@pytest.mark.parametrize("x_mm, band", [(120.0, "0"), (229.0, "1"), (555.0, "5")])
def test_at43_range_band_hook_is_the_portee_between_leaders(x_mm: float, band: str) -> None:
    # AT-43, Organes de visée: bands of 10 cm, base edge to base edge between the leaders.
    plan = parse_game({"ruleset": "at-43", "table": {"width_mm": 1200, "depth_mm": 1200},
                       "units": [{"id": "u", "side": "A", "leader": "a"}, {"id": "v", "side": "B", "leader": "b"}],
                       "models": [{"id": "a", "unit": "u", "x_mm": 0, "y_mm": 100, "base_mm": 30},
                                  {"id": "b", "unit": "v", "x_mm": x_mm, "y_mm": 100, "base_mm": 30}]})
    rs = find_ruleset("at-43")
    assert rs.range_band(plan, "u", "v", rs.resolve_options(plan)) == band
    answer = rules.ask(plan, "range", ["u", "v"])
    assert str(answer["band"]) == band
