"""``tabletracker`` entry point: dispatch to the subcommand modules.

Each subcommand lives in ``tabletracker/commands/<name>.py`` with ``add_arguments(parser)``
and ``run(args) -> int``. Modules are imported only when their command runs, so
``tabletracker --help`` is fast and one broken command cannot break the others.
Every error the project raises on bad input is a ``ValueError`` (or ``OSError``)
subclass with a message that says what is wrong: it is printed, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from tabletracker.errors import TabletrackerError


def _in_user_language(exc: BaseException) -> str:
    """The error in the user's language (``LANG``/``LC_ALL``/``LC_MESSAGES`` fr or en) when it has a message id."""
    from tabletracker import i18n

    texts = i18n.texts(exc) or {}
    lang = i18n.user_language()
    words = texts.get(lang) or (getattr(exc, "message_fr", None) if lang == "fr" else None)
    if not words or words == str(exc):
        return str(exc)
    if texts.get("en") != str(exc):
        # the core's own English sentence, worded otherwise (a source, a field's path): with -v, for whoever edits
        # the files; the user reads the catalogue's words alone, not the same refusal twice or in English
        logging.getLogger("tabletracker").info("%s", exc)
    return words


def _said_error(prog: str, message: str) -> str:
    from tabletracker import i18n

    return i18n.said("cli.error", prog=prog, message=message)


# name -> module; each command's one-line help is the message cli.command.<name> (tabletracker/locale/<lang>.cli.po)
COMMANDS: dict[str, str] = {
    "serve": "tabletracker.commands.serve",
    "markers": "tabletracker.commands.markers",
    "calibrate-camera": "tabletracker.commands.calibrate_camera",
    "calibrate": "tabletracker.commands.calibrate",
    "locate": "tabletracker.commands.locate",
    "track": "tabletracker.commands.track",
    "ask": "tabletracker.commands.ask",
    "resolve": "tabletracker.commands.resolve",
    "render-samples": "tabletracker.commands.render_samples",
}

EXIT_BAD_INPUT = 2


def quiet_opencv(*, verbose: bool = False) -> None:
    """Keep OpenCV's own ``[ WARN]`` lines (a camera probe, a codec) off the terminal.

    The program says what went wrong in its own words; ``-v`` lets OpenCV's warnings through.
    Must run before ``cv2`` is imported: the commands import it lazily.
    """
    if "OPENCV_LOG_LEVEL" not in os.environ:
        os.environ["OPENCV_LOG_LEVEL"] = "WARNING" if verbose else "ERROR"
    if "cv2" in sys.modules:
        import cv2

        levels = cv2.utils.logging
        levels.setLogLevel(levels.LOG_LEVEL_WARNING if verbose else levels.LOG_LEVEL_ERROR)


# argparse's own messages (English, from its gettext calls) and their message ids: said in the user's language
_ARGPARSE_MESSAGES = (
    (r"the following arguments are required: (?P<names>.+)", "cli.argparse.required"),
    (r"unrecognized arguments: (?P<names>.+)", "cli.argparse.unrecognized"),
    (r"argument (?P<name>\S+): invalid (?P<kind>\S+) value: (?P<value>.+)", "cli.argparse.invalid_value"),
    (r"argument (?P<name>\S+): invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)",
     "cli.argparse.invalid_choice"),
    (r"argument (?P<name>\S+): expected one argument", "cli.argparse.expected_one"),
    (r"argument (?P<name>\S+): expected at least one argument", "cli.argparse.expected_some"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.+)", "cli.argparse.ambiguous"),
    (r"argument (?P<name>\S+): not allowed with argument (?P<other>\S+)", "cli.argparse.not_allowed"),
)


def argparse_words(message: str, lang: str) -> str:
    """Return one of argparse's error messages in ``lang`` (as it is when not known).

    >>> argparse_words("the following arguments are required: source", "fr")
    'ces arguments sont obligatoires : source'
    >>> argparse_words("argument --fps: invalid float value: 'x'", "fr")
    "argument --fps : valeur invalide (float attendu) : 'x'"
    """
    from tabletracker import i18n

    return i18n.pattern_words(message, _ARGPARSE_MESSAGES, lang)


def metavar_word(shown: str, lang: str) -> str:
    """Return an argument's placeholder in the usage and help lines (``FILE``, ``KEY=VALUE``, ``game``) in ``lang``:
    its ``cli.metavar.<placeholder>`` message, the placeholder as it is without one.

    >>> metavar_word("KEY=VALUE", "fr"), metavar_word("game", "fr"), metavar_word("FILE", "en")
    ('CLÉ=VALEUR', 'partie', 'FILE')
    """
    from tabletracker import i18n

    return i18n.render(f"cli.metavar.{shown}", {}, lang) or shown


class _Formatter(argparse.HelpFormatter):
    """argparse's help and usage, the usage line headed in the user's language."""

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        from tabletracker import i18n

        super().add_usage(usage, actions, groups, i18n.said("cli.usage") if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """An argument parser that speaks the user's language: its usage line, headings and errors."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)
        from tabletracker import i18n

        self._positionals.title = i18n.said("cli.positionals")
        self._optionals.title = i18n.said("cli.options")
        for action in self._actions:
            if isinstance(action, argparse._HelpAction):
                action.help = i18n.said("cli.help")

    def _add_action(self, action: argparse.Action) -> argparse.Action:
        """Add ``action``, its help in the user's language: ``cli.arg.<command>.<dest>`` (the code's English else)."""
        from tabletracker import i18n

        lang = i18n.user_language()
        words = i18n.render(f"cli.arg.{self.prog.split()[-1]}.{action.dest}", {}, lang)
        if words and action.help:
            action.help = words
        if action.nargs != 0 and (action.metavar is not None or not action.choices):
            shown = action.metavar or (action.dest.upper() if action.option_strings else action.dest)
            action.metavar = metavar_word(shown, lang)
        return super()._add_action(action)

    def error(self, message: str) -> NoReturn:
        from tabletracker import i18n

        self.print_usage(sys.stderr)
        words = argparse_words(message, i18n.user_language())
        self.exit(EXIT_BAD_INPUT, i18n.said("cli.error", prog=self.prog, message=words) + "\n")


def build_parser() -> argparse.ArgumentParser:
    from tabletracker.i18n import said, user_language

    parser = Parser(prog="tabletracker", description=said("cli.description"), epilog=said("cli.epilog"))
    parser.add_argument("-v", "--verbose", action="store_true", help=said("cli.verbose"))
    sub = parser.add_subparsers(dest="command", metavar=metavar_word("COMMAND", user_language()))
    for name in COMMANDS:
        sub.add_parser(name, help=said(f"cli.command.{name}"), add_help=False)
    return parser


#: Commands that leave nothing to tidy when they return (no file being written, no thread at
#: work): the command line's run of one ends the process at once (see :func:`main`).
ENDS_AT_ONCE = frozenset({"locate"})


def main(argv: Sequence[str] | None = None) -> int:
    if argv is not None:
        return _main(list(argv))
    # The command line's own run: the process ends right after. Frozen objects are left out of
    # the collector's last pass over everything at exit (a tenth of a second once numpy,
    # OpenCV and a 4K image are loaded); a caller that goes on (tests) passes argv.
    command = _split_command(sys.argv[1:])[1][:1]
    at_once = bool(command) and command[0] in ENDS_AT_ONCE
    if at_once:
        # nor is there anything for the cycle collector to free before the end: its passes over
        # what the imports create (fifty-odd, 15 ms of CPU with the interpreter's lock held)
        # are left out
        gc.disable()
    try:
        code = _main(sys.argv[1:])
    finally:
        gc.freeze()
    if at_once:
        _end_now(code)
    return code


def _end_now(code: int) -> NoReturn:
    """End the process with ``code`` without the interpreter's teardown (every module and object
    freed one by one: 0.04 s once numpy, OpenCV and a 4K image are loaded), its output flushed."""
    logging.shutdown()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:           # the reader went away: the interpreter's own status for output it cannot flush
        os._exit(120)
    os._exit(code)


def _split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """The global options before the command, and the command with its arguments."""
    head: list[str] = []
    rest = list(argv)
    while rest and rest[0].startswith("-") and rest[0] not in ("-h", "--help"):
        head.append(rest.pop(0))
    return head, rest


def _main(argv: list[str]) -> int:
    from tabletracker import i18n

    parser = build_parser()
    # Parse only the global part; the subcommand parses the rest itself.
    head, argv = _split_command(argv)
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        parser.print_usage(sys.stderr)
        print(i18n.said("cli.error", prog="tabletracker", message=i18n.said(
            "cli.unknown_command", name=repr(name), commands=", ".join(COMMANDS))), file=sys.stderr)
        return EXIT_BAD_INPUT
    opts = parser.parse_args(head)
    quiet_opencv(verbose=opts.verbose)
    logging.basicConfig(level=logging.INFO if opts.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    module = importlib.import_module(COMMANDS[name])
    sub = Parser(prog=f"tabletracker {name}", description=i18n.said(f"cli.command.{name}"))
    module.add_arguments(sub)
    args = sub.parse_args(rest)
    try:
        return int(module.run(args) or 0)
    except (TabletrackerError, OSError) as exc:  # the project's errors: what the user gave is wrong
        print(_said_error(f"tabletracker {name}", _in_user_language(exc)), file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:
        # Not a project error: a bug, or a package still raising a plain ValueError for bad input
        # (being moved under TabletrackerError). Say it and keep the traceback in the log.
        logging.getLogger("tabletracker").error("unexpected %s in %s", type(exc).__name__, name, exc_info=exc)
        print(_said_error(f"tabletracker {name}", str(exc)), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
