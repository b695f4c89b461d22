"""French typography of the app's words (issue 24): every French string of the message table
(app/src/i18n.ts: the `fr` table, the rules' section names and `de`) uses the typographic
apostrophe ’, never ', and a no-break space before « : » and inside « guillemets » (U+00A0),
a narrow one before « ? », « ! » and « ; » (U+202F), never an ordinary space, which a line
may break at (the rules: tests/typography.py, which the API's texts follow too). The words
api-contract.md fixes verbatim as accessible names (« Ta tranche d'âge », the terms checkbox's
« conditions d'utilisation », « Mot de passe oublié ? », « Bienvenue ! ») are left as the
contract writes them.

The strings are read from the source, as TypeScript string literals: a template literal's text
parts (not the code of its `${…}`, whose own string literals are read as strings), with their
escapes (`\\u00a0`) decoded.
"""

from __future__ import annotations

import re

from tests.conftest import ROOT
from tests.typography import typography_faults

SOURCE = ROOT / "app" / "src" / "i18n.ts"

#: The accessible names api-contract.md ("The app") fixes verbatim, as it writes them.
CONTRACT = {
    "Ta tranche d'âge",
    "J'accepte les conditions d'utilisation",
    "Lire les conditions d'utilisation",
    "Mot de passe oublié ?",
    "Bienvenue !",
}


def _decode(text: str) -> str:
    """A literal's text as the app shows it: its JavaScript escapes decoded."""
    return re.sub(
        r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|.)",
        lambda m: (
            chr(int(m[1][1:].strip("{}"), 16)) if m[1].startswith("u") and len(m[1]) > 1 else m[1]
        ),
        text,
    )


def _code(source: str, i: int, out: list[str]) -> int:
    """Reads code from `i` to its unmatched `}` (or the end), each string literal's text into
    `out`; where it stopped."""
    depth = 0
    while i < len(source):
        char = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
        elif char == '"':
            j = i + 1
            while source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            out.append(_decode(source[i + 1 : j]))
            i = j + 1
        elif char == "`":
            i = _template(source, i + 1, out)
        elif char == "{":
            depth, i = depth + 1, i + 1
        elif char == "}":
            if depth == 0:
                return i + 1
            depth, i = depth - 1, i + 1
        else:
            i += 1
    return i


def _template(source: str, i: int, out: list[str]) -> int:
    """Reads a template literal from after its opening backtick: its text parts into `out`."""
    start = i
    while True:
        if source[i] == "\\":
            i += 2
        elif source[i] == "`":
            out.append(_decode(source[start:i]))
            return i + 1
        elif source.startswith("${", i):
            out.append(_decode(source[start:i]))
            i = _code(source, i + 2, out)
            start = i
        else:
            i += 1


def strings(source: str) -> list[str]:
    """The text of every string literal of `source`."""
    out: list[str] = []
    _code(source, 0, out)
    return out


def french_strings() -> list[str]:
    """The French table's strings, the rules' section names' and `de`'s."""
    source = SOURCE.read_text(encoding="utf-8")
    found: list[str] = []
    for start, end in (
        ("const RULE_SECTIONS_FR", "\n};\n"),
        ("export function de(", "\n}\n"),
        ("const fr = {", "\n};\n"),
    ):
        lo = source.index(start)
        found += strings(source[lo : source.index(end, lo)])
    return found


def faults(texts: list[str]) -> list[tuple[str, str]]:
    """Each French text that breaks the typography, with what it breaks."""
    return typography_faults(texts, CONTRACT)


def test_the_reader_finds_the_faults() -> None:
    source = (
        'const fr = {\n  a: "C\'est là : oui ?",\n  b: (n: number) => `Manche ${n < 2 ? "une" : "deux"} !`,\n'
        '  c: "Dis «\\u00a0oui »\\u00a0;",\n  d: "Bien\\u202f!",\n  // comment : l\'air ?\n};\n'
    )
    texts = strings(source)
    assert texts == [
        "C'est là : oui ?",
        "Manche ",
        "une",
        "deux",
        " !",
        "Dis «\u00a0oui »\u00a0;",
        "Bien\u202f!",
    ]
    assert [what for _, what in faults(texts)] == [
        "a straight apostrophe (')",
        "an ordinary space before ?, !, : or ;",
        "an ordinary space before ?, !, : or ;",
        "an ordinary space inside « »",
        "a no-break space (U+00A0) before ?, ! or ; (U+202F there)",
        "no space inside « »",
    ]
    assert (
        faults(["Mot de passe oublié ?", "Bienvenue !", "l’air\u00a0: «\u00a0oui\u00a0»\u202f?"])
        == []
    )


def test_french_strings_are_typeset() -> None:
    texts = french_strings()
    assert len(texts) > 300  # the whole table was read
    assert "Mot de passe oublié ?" in texts and "Ta tranche d'âge" in texts  # as the contract
    assert faults(texts) == []
