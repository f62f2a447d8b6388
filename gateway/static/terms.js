// The Domeng words, each with its one-line meaning from docs/rules.md (its "Terms" table;
// tests/gateway checks the two agree), and text with those words shown as <abbr title>.
// Built with DOM APIs only: the text may carry names people typed.

export const TERMS = {
  "LEMPA": "a double",
  "PASS": "a Seat with no legal play passes; play moves on",
  "PASSEBUNGE": "a PASS by a Seat that has not yet laid a Tile this round",
  "LAST MAPPANO": "the Seat that laid the most recent Tile",
  "MAPPAKULING": "a play after which both ends of the Line show the same number",
  "FIRST CAPPU": "the first Seat to lay its last Tile; it wins the round",
  "CEKI": "becoming FIRST CAPPU with a MAPPAKULING by a non-double",
  "POLLO": "becoming FIRST CAPPU with a MAPPAKULING by a LEMPA",
  "MANGUNO": "the LAST MAPPANO after whose Tile every Seat, itself included, must PASS",
  "MATTIKKENG": "another Seat whose pips in Hand are at most the MANGUNO's",
  "CUCUQ": "the Seat before the FIRST CAPPU (or before a MANGUNO with no MATTIKKENG)",
  "STONES": "penalty counters; a game cycle starts with 25 on the table",
  "CAMAT": "the FIRST CAPPU who holds no STONES when the table is empty",
};

// Forms the page writes that mean a word above.
const SAME = { "CAPPU": "FIRST CAPPU", "STONE": "STONES" };

export function meaning(word) {
  return TERMS[word] || TERMS[SAME[word]] || null;
}

// The id of a word's entry in the glossary list.
export function termId(word) {
  return `term-${(SAME[word] || word).toLowerCase().replace(/ /g, "-")}`;
}

// Longest first, so that "LAST MAPPANO" wins over a shorter word and PASSEBUNGE over PASS.
const WORDS = [...Object.keys(TERMS), ...Object.keys(SAME)].sort((a, b) => b.length - a.length);
const PATTERN = new RegExp(`\\b(${WORDS.join("|")})\\b`, "g");

// `text` as a fragment: plain text nodes, and each Domeng word an <abbr class="term">.
export function termText(value) {
  const text = String(value);
  const out = document.createDocumentFragment();
  let at = 0;
  for (const m of text.matchAll(PATTERN)) {
    if (m.index > at) out.append(document.createTextNode(text.slice(at, m.index)));
    const abbr = document.createElement("abbr");
    abbr.className = "term";
    abbr.title = meaning(m[0]);
    abbr.textContent = m[0];
    out.append(abbr);
    at = m.index + m[0].length;
  }
  if (at < text.length) out.append(document.createTextNode(text.slice(at)));
  return out;
}

// The glossary list (<dl>) of every word, for the table's "What the Domeng words mean".
export function glossary(dl) {
  dl.replaceChildren();
  for (const [word, text] of Object.entries(TERMS)) {
    const dt = document.createElement("dt");
    dt.textContent = word;
    dt.id = termId(word);
    const dd = document.createElement("dd");
    dd.append(termText(text));
    dl.append(dt, dd);
  }
}
