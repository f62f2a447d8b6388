"""The repository stands alone (docs/design.md, "Style"): whoever clones it has everything
it refers to.

- No tracked file cites the team's workspace outside the repository or an issue by its
  number: the rulings, the design and the error model are in docs/, in the project's words.
- docs/rules.md has an anchor for every ruling, HHL-1..HHL-10 and DOM-1..DOM-11, and it
  survives rendering, so docs/rules.md#HHL-8 and the web page's /rules#HHL-8 land on it.
- Every ruling id cited anywhere is one of those anchors, so a mistyped id fails.
- The code each ruling block of docs/rules.md points to is there.
"""

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

from gateway.rules_page import render

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = ROOT / "docs" / "rules.md"
RULINGS = [f"HHL-{n}" for n in range(1, 11)] + [f"DOM-{n}" for n in range(1, 12)]

# The workspace's files (its rulings, its design page, its seeds) by any path that reaches
# them, and an issue by number: "(issue N)", "issue N", "issue #N", "issues N and M".
# Plain English ("an issue", "the issue's note") has no number and is fine. Written so
# that this file, which holds the patterns, does not match them.
CITATION = re.compile(r"shared/(rules-notes|design\.md|seeds)|\.\./shared\b|rules-notes\.md"
                      r"|\bissues?\s+#?\d+", re.IGNORECASE)
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
# Not text, or not ours to word: the files git holds that no person wrote.
SKIP = {"bots/js/package-lock.json"}


@cache
def tracked_texts() -> dict[str, list[str]]:
    """Every tracked text file (path relative to the repository root) and its lines."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    texts = {}
    for name in filter(None, names):
        path = ROOT / name
        if name in SKIP or not path.is_file():   # a file deleted but not yet committed
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            texts[name] = data.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            continue
    return texts


def where(pattern: re.Pattern) -> list[str]:
    """file:line: text of every line that pattern finds something in."""
    return [f"{name}:{n}: {line.strip()[:120]}"
            for name, lines in sorted(tracked_texts().items())
            for n, line in enumerate(lines, 1) if pattern.search(line)]


def test_the_citation_pattern_finds_citations_and_leaves_plain_english():
    # Built here, not written out, so that this file does not cite anything itself.
    cited = ["see ../" + "shared/rules-" + "notes.md", "(issue " + "12)", "Issue #" + "7",
             "issues " + "12 and 13", "shared/" + "design.md, Errors",
             "the full wording is in `rules-" + "notes.md`", "/work/shared/" + "seeds/001.md",
             "../" + "shared"]
    plain = ["an issue", "the issue's note", "issues of scale", "tissue 3",
             "shared by all streams", "shared-cache mode", "docs/design.md", "docs/rules.md#HHL-8"]
    assert [c for c in cited if not CITATION.search(c)] == []
    assert [p for p in plain if CITATION.search(p)] == []


def test_no_tracked_file_cites_the_workspace_or_an_issue_number():
    found = where(CITATION)
    assert not found, ("cite the repository's own docs (docs/rules.md#HHL-8, docs/design.md, "
                       "docs/security.md) or drop the issue number:\n" + "\n".join(found))


def anchors_in_source() -> list[str]:
    return ANCHOR.findall(RULES_MD.read_text(encoding="utf-8"))


def test_rules_md_has_one_anchor_for_each_ruling_and_rendering_keeps_it():
    anchors = anchors_in_source()
    assert [r for r in RULINGS if anchors.count(r) != 1] == [], "each ruling needs one anchor"
    page = render(RULES_MD)
    assert page is not None
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert [r for r in RULINGS if ids.count(r) != 1] == [], "an anchor lost on /rules"


def test_every_ruling_id_cited_is_an_anchor_of_rules_md():
    known = set(anchors_in_source()) & set(RULINGS)
    unknown = re.compile(r"\b(?!(?:" + "|".join(sorted(known, key=len, reverse=True))
                         + r")\b)(?:HHL|DOM)-\d+\b")
    found = where(unknown)
    assert not found, "ruling ids with no anchor in docs/rules.md:\n" + "\n".join(found)
    # (the one past the last ruling, built so that this file does not cite it)
    assert unknown.search("see HHL-" + "11") and not unknown.search("HHL-1..10, DOM-1..11")


def top_level_names(path: Path) -> dict[str, ast.AST]:
    """What a module defines or imports at its top level, by name."""
    names = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        names[n.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[alias.asname or alias.name] = node
    return names


def members(cls: ast.ClassDef) -> set[str]:
    out = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def test_the_code_each_ruling_points_to_is_there():
    """Each ruling block's "Code:" names modules (a path) and, after each, names in it:
    `NAME` or `Class.member`. A module moved or a function renamed shows up here."""
    text = RULES_MD.read_text(encoding="utf-8")
    blocks = re.findall(r"^- \*\*Code:\*\*(.*?)(?=\n\S|\n\n|\Z)", text, re.M | re.S)
    assert len(blocks) == len(RULINGS)
    missing = []
    for block in blocks:
        module = names = None
        for token in re.findall(r"`([^`]+)`", block):
            if token.endswith(".py"):
                module = ROOT / token
                names = top_level_names(module) if module.is_file() else {}
                if not module.is_file():
                    missing.append(token)
                continue
            head, _, member = token.partition(".")
            node = names.get(head) if names is not None else None
            if node is None or (member and not (isinstance(node, ast.ClassDef)
                                                and member in members(node))):
                missing.append(f"{module.relative_to(ROOT) if module else '?'} {token}")
    assert not missing, "docs/rules.md points to code that is not there:\n" + "\n".join(missing)
