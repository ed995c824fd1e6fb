"""The project's own docs (``docs/*.md``) served as plain HTML pages, for the links the page shows.

The explanations cite the program's rule choices by their entry in ``docs/rule-choices.md``;
``/docs/rule-choices#firefight-1`` opens it. The markdown is rendered by a small, safe
converter (headings, paragraphs, lists, bold, italics, code, links, and the ``<a id>``
anchors the docs use): nothing else of the file's HTML passes.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort

bp = Blueprint("docs", __name__)

_PAGE = re.compile(r"[a-z0-9][a-z0-9-]{0,60}")
_ANCHOR = re.compile(r'^<a id="([A-Za-z0-9_-]+)"></a>$')


def docs_dir() -> Path | None:
    """Return the docs folder: in the checkout, else inside the installed package (tabletracker/docs)."""
    import tabletracker

    for candidate in (Path(__file__).resolve().parents[1] / "docs",
                      Path(tabletracker.__file__).resolve().parent / "docs",
                      Path(sys.prefix) / "share" / "tabletracker" / "docs"):
        if candidate.is_dir():
            return candidate
    return None


def _inline(text: str) -> str:
    out = html.escape(text, quote=True)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"(?<![*\w])\*([^*]+)\*(?!\w)", r"<i>\1</i>", out)

    def link(m: re.Match[str]) -> str:
        target = m.group(2)
        if target.endswith(".md") or ".md#" in target:
            target = target.replace(".md", "")
        if re.match(r"^(https?:|[a-z0-9-]+(#[\w-]+)?$|#[\w-]+$)", target):
            return f'<a href="{target}">{m.group(1)}</a>'
        return m.group(1)

    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", link, out)


def markdown_to_html(text: str) -> str:
    """Render the docs' markdown as HTML.

    >>> markdown_to_html('# Title\\n<a id="x-1"></a>\\n**1. A** b `c`\\n\\n- one\\n- two <i>').split("\\n")
    ['<h1>Title</h1>', '<a id="x-1"></a>', '<p><b>1. A</b> b <code>c</code></p>', '<ul><li>one</li>', \
'<li>two &lt;i&gt;</li></ul>']
    """
    blocks: list[str] = []
    para: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            blocks.append("<ul>" + "\n".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for raw in text.splitlines():
        line = raw.strip()
        anchor = _ANCHOR.match(line)
        heading = re.match(r"^(#{1,4})\s+(.*)$", line)
        if not line:
            flush()
        elif anchor:
            flush()
            blocks.append(f'<a id="{anchor.group(1)}"></a>')
        elif heading:
            flush()
            n = len(heading.group(1))
            blocks.append(f"<h{n}>{_inline(heading.group(2))}</h{n}>")
        elif re.match(r"^[-*]\s+", line):
            if para:
                flush()
            items.append(re.sub(r"^[-*]\s+", "", line))
        elif items and raw.startswith((" ", "\t")):
            items[-1] += " " + line
        else:
            if items:
                flush()
            para.append(line)
    flush()
    return "\n".join(blocks)


@bp.get("/docs/<page>")
def page(page: str) -> Any:
    """One doc page as HTML (``/docs/rule-choices``); 404 for a page the docs do not have."""
    name = page[:-3] if page.endswith(".md") else page
    folder = docs_dir()
    if not _PAGE.fullmatch(name) or folder is None or not (folder / f"{name}.md").is_file():
        abort(404)
    body = markdown_to_html((folder / f"{name}.md").read_text(encoding="utf-8"))
    title = html.escape(name.replace("-", " "))
    doc = (f'<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
           f'<title>tabletracker · {title}</title><link rel="stylesheet" href="../static/docs.css"></head>'
           f"<body>{body}</body></html>")
    return Response(doc, mimetype="text/html")
