"""The rules core: the table plan, geometry, dice and the five rule sets.

Pure functions over immutable data; no cv2, no flask, no file I/O outside the
edge loaders (``load_game``, ``load_roster``). Imports only ``calibration.units`` and
``calibration.fields`` (standard library) from the other packages.

Layers, bottom up (each imports only from those below it):

- ``errors``, ``frozen``, ``explain``, ``plan``, ``dice``, ``resolution``: values;
- ``measure``, ``terrain``, ``ontable``, ``visibility``, ``cohesion``, ``zones``: shared
  geometry, which takes the rule set (or the values it needs) as an argument;
- ``roster``: roster files; ``rulesets.base``, ``rulesets.common``, ``rulesets.kit``;
- ``rulesets.<name>``: one package per rule set (class, questions, actions, dice, data);
- ``rulesets`` (the registry ``RULESETS``), then ``questions.ask`` and ``resolve.resolve``.

The JSON edges ``plan.parse_game`` and ``roster.parse_roster`` read the rule-set ids
from the registry at call time.

Note that ``rules.resolve`` is the function; its module is ``sys.modules["rules.resolve"]``
(``from rules.resolve import actions_of`` works as usual).
"""

from rules.errors import GameFileError, IllegalActionError, InvalidActionError, MissingTableError, RosterError
from rules.plan import Model, Objective, TablePlan, Terrain, Unit, dump_game, game_to_dict, load_game, parse_game
from rules.questions import ask
from rules.resolution import Resolution
from rules.resolve import describe_actions, resolve
from rules.rulesets import RULESET_IDS, RULESETS, RuleSet, find_ruleset

__all__ = [
    "GameFileError", "IllegalActionError", "InvalidActionError", "MissingTableError", "RosterError",
    "Model", "Objective", "TablePlan", "Terrain", "Unit",
    "dump_game", "game_to_dict", "load_game", "parse_game",
    "ask", "resolve", "describe_actions", "Resolution",
    "RULESETS", "RULESET_IDS", "RuleSet", "find_ruleset",
]
