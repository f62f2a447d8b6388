"""Driving the table page (#/match/ID) in the browser: play every move of your seat by
clicking, read what the page wrote, and check its sentences."""

from __future__ import annotations

import json
import re
from pathlib import Path

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

# What a sentence of the page never says: "You leads", "1 tiles", "won by You".
BAD_GRAMMAR = [
    re.compile(r"\bYou (leads|plays|draws|passes|is|owes|wins)\b"),
    re.compile(r"\byou (leads|plays|draws|passes|is|owes|wins)\b"),
    re.compile(r"(?<![0-9])1 (tiles|STONES|stones|points|rounds|moves)\b"),
    re.compile(r"[a-z,;] You\b"),
    re.compile(r"\b[A-Z]{2,}s\b"),          # "STONEs"
]

TURN_OR_OVER = """(() => {
    if (!document.getElementById('tb-result').hidden) return 'over';
    if (document.querySelector('.tile-btn:not([disabled])')) return 'turn';
    return ''; })()"""


def play_by_clicking(b, most: int = 200) -> int:
    """Click a playable tile, then where it goes, whenever it is your turn, until the result
    shows; the number of moves made."""
    moves = 0
    for _ in range(most):
        if b.wait(TURN_OR_OVER, timeout=30) == "over":
            return moves
        b.click_until(".tile-btn:not([disabled])", "!!document.querySelector('#tb-where .where-btn')")
        b.click_until("#tb-where .where-btn",
                      "!document.querySelector('.tile-btn:not([disabled])') || "
                      "!document.getElementById('tb-result').hidden")
        moves += 1
    raise AssertionError(f"the match did not end in {most} moves")


def log_lines(b) -> list[str]:
    return b.js("[...document.querySelectorAll('#tb-log li')].map(li => li.textContent)")


def page_sentences(b) -> list[str]:
    """Everything the table page wrote in words: the log, the seats, the result, the turn."""
    return b.js("[...document.querySelectorAll('#tb-log li, #tb-seats li, #tb-pool, #tb-result p, "
                "#tb-turn, #tb-status')].map(e => e.textContent)")


def assert_good_grammar(lines: list[str]) -> None:
    for line in lines:
        for bad in BAD_GRAMMAR:
            assert not bad.search(line), (bad.pattern, line)


def terms_on_the_page(b, where: str) -> list[dict]:
    """Each <abbr class="term"> under `where`: its word and its title."""
    return b.js(f"""[...document.querySelectorAll({json.dumps(where + ' abbr.term')})]
        .map(a => ({{word: a.textContent, title: a.title}}))""")


def rules_terms() -> dict[str, str]:
    """The Domeng Terms table of docs/rules.md: word -> meaning."""
    table = RULES_MD.read_text().split("### Terms", 1)[1].split("\n\n")[1]
    rows = [line.strip("|").split("|") for line in table.splitlines()[2:]]
    return {word.strip(): meaning.strip() for word, meaning in rows}


# The forms the page writes for a word of the table.
SAME = {"CAPPU": "FIRST CAPPU", "STONE": "STONES"}


def assert_terms_explained(found: list[dict]) -> None:
    """Every Domeng word the page marked has its meaning from the rules as its title."""
    meanings = rules_terms()
    for t in found:
        assert t["title"] == meanings[SAME.get(t["word"], t["word"])], t
