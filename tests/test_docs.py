"""The user docs in docs/: every field the loaders accept is documented, the examples load,
the rule choices have stable anchors, links resolve, and nothing cites an internal document."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from calibration.fields import Reader
from calibration.setup import load_setup, parse_setup
from rules.plan import load_game, parse_game
from rules.roster import load_roster, parse_roster
from tabletracker.cli import COMMANDS, main
from tabletracker.samples import ROSTERS_DIR, bundled_games

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SEEDS = ROOT.parent / "shared" / "seeds"
RULE_SETS = ("high-fire", "firefight", "feu-a-volonte", "at-43", "star-wars")

# Each numbered choice of the project's notes -> the anchors of docs/rule-choices.md that now
# explain it (the rules core's explanations will cite these pages).
CHOICE_ANCHORS: dict[str, tuple[str, ...]] = {
    "1": ("high-fire-1", "firefight-1", "feu-a-volonte-1", "at-43-1", "star-wars-1"),
    "2": ("high-fire-2", "firefight-2"),
    "3": ("high-fire-3",),
    "4": ("feu-a-volonte-3",),
    "5": ("feu-a-volonte-4",),
    "6": ("at-43-2",),
    "7": ("at-43-3",),
    "8": ("star-wars-2", "star-wars-3"),
    "9": ("high-fire-4", "firefight-4", "star-wars-4"),
    "10": ("feu-a-volonte-5",),
    "AT-43 universal resolution table": ("at-43-4", "at-43-5"),
    "Firefight cover": ("firefight-3",),
    "High Fire tables": ("high-fire-5",),
}


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _block(text: str, lang: str) -> str:
    found = re.search(rf"```{lang}\n(.*?)```", text, re.DOTALL)
    assert found, f"no ```{lang} example"
    return found.group(1)


@contextlib.contextmanager
def accepted_keys() -> Iterator[set[str]]:
    """Record every key a loader allows (``Reader.only``) while the block runs."""
    keys: set[str] = set()
    original = Reader.only

    def spy(self: Reader, allowed: Sequence[str]) -> None:
        keys.update(allowed)
        original(self, allowed)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Reader, "only", spy)
        yield keys


def _keys_of(load: Callable[[], Any]) -> set[str]:
    with accepted_keys() as keys:
        load()
    return keys


def _documented(doc: str, keys: set[str]) -> list[str]:
    return sorted(k for k in keys if f"`{k}`" not in doc and f"`{k}`," not in doc)


def test_every_setup_field_is_documented() -> None:
    doc = _doc("setup-file.md")
    example = json.loads(_block(doc, "json"))
    keys = _keys_of(lambda: (parse_setup(example, source="docs"),
                             load_setup(ROOT / "sample_images" / "sequence" / "setup.json")))
    assert {"table", "width_mm", "per_marker", "size_mm", "matrix", "diameters_mm"} <= keys
    assert not _documented(doc, keys), "setup fields missing from docs/setup-file.md"


def test_every_game_field_is_documented() -> None:
    doc = _doc("game-file.md")
    example = json.loads(_block(doc, "json"))

    def load() -> None:
        parse_game(example, source="docs")
        for path in bundled_games().values():
            load_game(path)

    keys = _keys_of(load)
    assert {"ruleset", "units", "models", "terrain", "objectives", "points_mm", "marker_id", "leader"} <= keys
    missing = _documented(doc, keys)
    assert not missing, f"game file fields missing from docs/game-file.md: {missing}"


def test_every_roster_field_is_documented() -> None:
    doc = _doc("roster.md")
    example = yaml.safe_load(_block(doc, "yaml"))

    def load() -> None:
        parse_roster(example, source="docs")
        for path in sorted(ROSTERS_DIR.glob("*.json")):
            load_roster(path)

    keys = _keys_of(load)
    assert {"side", "units", "models", "base_mm", "weapons", "notes"} <= keys
    missing = _documented(doc, keys)
    assert not missing, f"roster fields missing from docs/roster.md: {missing}"


def test_every_terrain_kind_and_bundled_name_is_documented() -> None:
    from rules.rulesets import find_ruleset

    doc = _doc("game-file.md")
    for name in RULE_SETS:
        for kind in find_ruleset(name).terrain_kinds:
            assert f"`{kind}`" in doc, f"{name} terrain kind {kind} missing from docs/game-file.md"
    for name in bundled_games():
        assert f"`{name}`" in doc
    rosters = _doc("roster.md")
    for path in ROSTERS_DIR.glob("*.json"):
        assert f"`{path.stem}`" in rosters


def test_rule_choices_have_stable_numbered_anchors_naming_their_section() -> None:
    text = _doc("rule-choices.md")
    anchors = re.findall(r'<a id="([a-z0-9-]+)"></a>', text)
    assert len(anchors) == len(set(anchors))
    for wanted in CHOICE_ANCHORS.values():
        assert set(wanted) <= set(anchors)
    for name in RULE_SETS:
        numbers = [int(a.rsplit("-", 1)[1]) for a in anchors if a.rsplit("-", 1)[0] == name]
        assert numbers == list(range(1, len(numbers) + 1)) and numbers, f"{name} choices not numbered 1..n"
    items = re.split(r'<a id="[a-z0-9-]+"></a>', text)[1:]
    assert all("*Interprets:" in item for item in items), "every choice names the section it interprets"


def test_every_rule_set_option_is_documented() -> None:
    from rules.rulesets import find_ruleset

    text = _doc("rule-choices.md")
    for name in RULE_SETS:
        section = text.split(f'<a id="{name}-1"></a>')[1].split("\n## ")[0]
        for option in find_ruleset(name).option_specs:
            assert f"`{option.name}`" in section, f"{name} option {option.name} missing from docs/rule-choices.md"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-zà-ÿœ0-9]+", text.lower())


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the rule texts are beside the project (../shared/seeds)")
def test_rule_choices_paraphrase_the_rule_texts() -> None:
    """No run of eight words of a rule text appears in the docs (quoted section titles are short)."""
    ours = _words(" ".join(_doc(p.name) for p in DOCS.glob("*.md")))
    mine = {tuple(ours[i:i + 8]) for i in range(len(ours) - 7)}
    for seed in SEEDS.iterdir():
        if seed.suffix not in (".txt", ".md") or seed.name == "README.md":
            continue
        words = _words(seed.read_text(encoding="utf-8", errors="replace"))
        pasted = [" ".join(words[i:i + 8]) for i in range(len(words) - 7) if tuple(words[i:i + 8]) in mine]
        assert not pasted, f"docs copy {seed.name}: {pasted[:3]}"


def _links(path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    return re.findall(r"\]\(([^)#\s]+\.md|[^)#\s]+\.png)(?:#([\w-]+))?\)", text)


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")) + ["../README.md"])
def test_links_between_pages_resolve(page: str) -> None:
    path = (DOCS / page).resolve()
    for target, anchor in _links(path):
        linked = (path.parent / target).resolve()
        assert linked.is_file(), f"{page} links to a missing {target}"
        if anchor:
            assert f'id="{anchor}"' in linked.read_text(encoding="utf-8"), f"{page}: no anchor #{anchor} in {target}"


def test_no_internal_document_is_cited_to_users(capsys: pytest.CaptureFixture[str]) -> None:
    internal = re.compile(r"CONVENTIONS|RULES-NOTES|shared/")
    for path in [ROOT / "README.md", *DOCS.glob("*.md")]:
        assert not internal.search(path.read_text(encoding="utf-8")), f"{path.name} cites an internal document"
    main(["--help"])
    for name in COMMANDS:
        with pytest.raises(SystemExit):
            main([name, "--help"])
    out = capsys.readouterr().out
    assert "docs/" in out
    assert not internal.search(out), "a --help text cites an internal document"


SOURCE_DIRS = ("rules", "server", "tabletracker", "calibration", "tracker")


def _source_files() -> list[Path]:
    return sorted(p for d in SOURCE_DIRS for p in (ROOT / d).rglob("*")
                  if p.suffix in (".py", ".js", ".html", ".po") and p.is_file())


def test_the_sources_cite_the_users_docs_never_an_internal_document() -> None:
    """What reaches a player (a step's source, an option's note) and what a reader of the code
    follows both name the user docs; the team's internal notes are not shipped."""
    internal = re.compile(r"RULES-NOTES|CONVENTIONS\.md")
    citing = [str(p.relative_to(ROOT)) for p in _source_files() if internal.search(p.read_text(encoding="utf-8"))]
    assert not citing, f"sources citing an internal document: {citing}"


def test_every_docs_link_a_source_cites_exists() -> None:
    """``docs/PAGE.md#anchor`` in a comment, ``rule-choices.md#anchor`` in a step's ``doc``: the page
    and its anchor exist."""
    pages = {p.name for p in DOCS.glob("*.md")}
    link = re.compile(r"(?:docs/)?\b([a-z0-9-]+\.md)(?:#([a-z0-9-]+))?")
    checked = 0
    for path in _source_files():
        text = path.read_text(encoding="utf-8")
        for found in link.finditer(text):
            page, anchor = found.groups()
            if not found.group(0).startswith("docs/") and page not in pages | {"rule-choices.md"}:
                continue  # another file (a seed, the README of a data folder)
            assert page in pages, f"{path.relative_to(ROOT)} cites a missing docs page {found.group(0)}"
            if anchor:
                assert f'id="{anchor}"' in _doc(page), f"{path.relative_to(ROOT)}: no anchor #{anchor} in {page}"
                checked += 1
    assert checked >= 20, "the sources cite the rule choices by their anchors"


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_option_names_its_rule_choice(name: str) -> None:
    from rules.rulesets import find_ruleset

    anchors = re.findall(r'<a id="([a-z0-9-]+)"></a>', _doc("rule-choices.md"))
    for option in find_ruleset(name).option_specs:
        page, _, anchor = option.note.partition("#")
        assert page == "rule-choices.md" and anchor in anchors and anchor.startswith(f"{name}-"), (
            f"{name} option {option.name}: {option.note!r} is not an entry of its rule set in docs/rule-choices.md")


def test_docs_are_in_the_sdist() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    assert "recursive-include docs" in manifest
