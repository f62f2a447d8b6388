"""The web page's own routes through the Flask test client: the rules page (docs/rules.md
rendered, its anchors, the 404 when the file is missing), the links of GET /variants into
it, the favicon, and the Domeng glossary of terms.js against the rules' Terms table."""

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from gateway_support import error
from table_page import rules_terms

from gateway import create_app

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "gateway" / "static"


class Page(HTMLParser):
    """The ids, headings, links and stylesheets of an HTML page."""

    def __init__(self, html: str):
        super().__init__()
        self.ids, self.headings, self.links, self.sheets, self.icons = set(), {}, [], [], []
        self._heading = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = (tag, attrs.get("id"), [])
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
        if tag == "link" and attrs.get("rel") == "stylesheet":
            self.sheets.append(attrs["href"])
        if tag == "link" and attrs.get("rel") == "icon":
            self.icons.append(attrs["href"])

    def handle_data(self, data):
        if self._heading:
            self._heading[2].append(data)

    def handle_endtag(self, tag):
        if self._heading and tag == self._heading[0]:
            self.headings["".join(self._heading[2]).strip()] = (tag, self._heading[1])
            self._heading = None


def test_the_rules_page_is_rules_md_rendered_with_anchors(client):
    r = client.get("/rules")
    assert r.status_code == 200 and r.mimetype == "text/html"
    page = Page(r.get_data(as_text=True))
    assert page.headings["Rules of play"] == ("h1", "rules-of-play")
    assert page.headings["Homo Homini Lupus (HHL)"] == ("h2", "homo-homini-lupus-hhl")
    assert page.headings["Domeng"] == ("h2", "domeng")
    assert page.headings["Terms"] == ("h3", "terms")
    # every heading of the Markdown is a heading of the page, with an id
    source = (ROOT / "docs" / "rules.md").read_text()
    for line in source.splitlines():
        m = re.match(r"(#+) (.*)", line)
        if m:
            title = re.sub(r"\*\*|`", "", m.group(2))
            assert page.headings[title][0] == f"h{len(m.group(1))}" and page.headings[title][1], title
    # a Markdown table is an HTML table; the CSS is the web page's; nothing from elsewhere
    assert "<table>" in r.get_data(as_text=True) and "<td>CUCUQ</td>" in r.get_data(as_text=True)
    assert page.sheets == ["/static/app.css"] and page.icons == ["/static/favicon.svg"]
    assert b"http://" not in r.data and b"https://" not in r.data
    # the table of contents points at headings that are there
    inner = [link[1:] for link in page.links if link.startswith("#")]
    assert {"homo-homini-lupus-hhl", "domeng"} <= set(inner) and set(inner) <= page.ids
    assert "/#/" in page.links


def test_every_ruling_is_an_anchor_of_the_rules_page(client):
    """/rules#HHL-8 lands where docs/rules.md#HHL-8 does: each ruling's <a id> survives the
    rendering (the toc extension's heading ids are lowercase, so they could not be it)."""
    ids = Page(client.get("/rules").get_data(as_text=True)).ids
    rulings = [f"HHL-{n}" for n in range(1, 11)] + [f"DOM-{n}" for n in range(1, 12)]
    assert [r for r in rulings if r not in ids] == []


def test_without_rules_md_the_rules_page_is_a_json_404(engine_address, tmp_path):
    app = create_app({"ENGINE_ADDRESS": engine_address, "RULES_PATH": str(tmp_path / "none.md")})
    body = error(app.test_client().get("/rules"), 404, "NO_RULES")
    assert "docs/rules.md" in body["message"]
    app.extensions["engine"].close()


def test_an_edited_rules_md_shows_on_the_next_request(engine_address, tmp_path):
    rules = tmp_path / "rules.md"
    rules.write_text("# Rules of play\n\n## Domeng\n\nfirst\n")
    app = create_app({"ENGINE_ADDRESS": engine_address, "RULES_PATH": str(rules)})
    web = app.test_client()
    assert b"first" in web.get("/rules").data
    rules.write_text("# Rules of play\n\n## Domeng\n\nsecond, longer\n")
    assert b"second, longer" in web.get("/rules").data
    app.extensions["engine"].close()


def test_every_rules_link_of_the_variants_is_an_anchor_of_the_rules_page(client):
    variants = client.get("/api/v1/variants").get_json()["variants"]
    assert {v["id"] for v in variants} == {"hhl", "domeng"}
    for v in variants:
        link = urlsplit(v["rules"])
        assert link.path == "/rules" and link.fragment, v["rules"]
        r = client.get(link.path)
        assert r.status_code == 200
        assert link.fragment in Page(r.get_data(as_text=True)).ids, v["rules"]
    # and the lobby's own links to the rules too
    lobby = Page(client.get("/").get_data(as_text=True))
    ids = Page(client.get("/rules").get_data(as_text=True)).ids
    for href in lobby.links:
        if href.startswith("/rules#"):
            assert href.split("#")[1] in ids, href
    assert "/rules" in lobby.links


def test_the_favicon_is_served_where_browsers_look_for_it(client):
    lobby = Page(client.get("/").get_data(as_text=True))
    assert lobby.icons == ["/static/favicon.svg"]
    svg = client.get("/static/favicon.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    r = client.get("/favicon.ico", follow_redirects=True)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and r.data == svg.data


def test_the_glossary_of_the_page_is_the_rules_terms_table():
    """terms.js repeats the Domeng Terms table of docs/rules.md: word for word."""
    rules = rules_terms()
    js = (STATIC / "terms.js").read_text()
    terms = dict(re.findall(r'^\s+"([A-Z ]+)": "([^"]*)",$', js, re.M))
    assert terms == rules
    required = {"CUCUQ", "MANGUNO", "MATTIKKENG", "MAPPAKULING", "PASSEBUNGE", "CEKI", "POLLO",
                "CAMAT", "LAST MAPPANO", "STONES", "FIRST CAPPU"}
    assert required <= set(terms)
