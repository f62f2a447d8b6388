"""The rules of both games as a web page: docs/rules.md rendered to HTML on the server.

One source for the rules: the page is the Markdown file the repository keeps, so the two
never drift apart. Every heading gets an id (the `toc` extension), which GET /variants'
`rules` links point at.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import markdown

# The repository's docs/, next to the gateway package (gateway/../docs/rules.md).
RULES_PATH = Path(__file__).resolve().parents[1] / "docs" / "rules.md"

# Anchors of the rendered page that other parts of the gateway link to (variants.py);
# tests/gateway checks each is really there. The rulings' anchors (/rules#HHL-8) are not
# heading ids, which `toc` lowercases, but `<a id="HHL-8">` elements written in rules.md:
# Markdown passes raw HTML through, so a renderer that escaped it would lose them.
ANCHORS = {"hhl": "homo-homini-lupus-hhl", "domeng": "domeng", "domeng_terms": "terms"}

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — Dominoes</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/app.css">
</head>
<body>
<header class="top">
  <a href="/#/" class="brand">Dominoes</a>
  <nav><a href="/#/">Lobby</a> · <a href="/#/ladders">Ladders</a> ·
    <a href="/rules" aria-current="page">Rules</a> · <a href="/api/v1/docs">API</a></nav>
</header>
<main class="rules">
<article class="panel rules-text">
{body}
</article>
<p><a href="/#/">Back to the lobby</a></p>
</main>
</body>
</html>
"""


def render(path: Path) -> str | None:
    """The whole HTML page, or None when the file is not there (an installed package
    without the repository's docs/)."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return _render(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _render(path: str, mtime_ns: int, size: int) -> str:
    # Keyed on the file's mtime and size: an edited rules.md shows on the next request,
    # an unchanged one is not converted again.
    md = markdown.Markdown(extensions=["toc", "tables", "sane_lists"],
                           extension_configs={"toc": {"toc_depth": "2-2"}})
    body = md.convert(Path(path).read_text(encoding="utf-8"))
    contents = f'<nav class="rules-toc" aria-label="Contents">\n{md.toc}</nav>\n'
    body = body.replace("</h1>", "</h1>\n" + contents, 1)   # right under the title
    return PAGE.format(title="Rules of play", body=body)
