"""French typography's rules (issue 24), shared by the app's words (tests/api/test_app_typography.py)
and the API's and the engine's (tests/api/test_api_typography.py): the typographic apostrophe ’,
never '; a no-break space (U+00A0) before « : » and inside « guillemets », a narrow one
(U+202F) before « ? », « ! » and « ; », never an ordinary space, which a line may break at.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

#: Each fault of French typography: what it is, and the pattern that finds it.
RULES = [
    ("a straight apostrophe (')", re.compile("'")),
    ("an ordinary space before ?, !, : or ;", re.compile(r" [?!:;]")),
    ("an ordinary space inside « »", re.compile("« | »")),
    ("a no-break space (U+00A0) before ?, ! or ; (U+202F there)", re.compile("\u00a0[?!;]")),
    ("a narrow no-break space (U+202F) before : (U+00A0 there)", re.compile("\u202f:")),
    ("no space inside « »", re.compile("«[^\u00a0\u202f]|[^\u00a0\u202f]»")),
]


def typography_faults(texts: Iterable[str], allowed: Collection[str] = ()) -> list[tuple[str, str]]:
    """Each French text that breaks the typography, with what it breaks (the texts in
    `allowed`, fixed verbatim elsewhere, are left as they are)."""
    return [
        (text, what)
        for text in texts
        if text not in allowed
        for what, pattern in RULES
        if pattern.search(text)
    ]


#: A value quoted as the client sent it (`'x'`, `"x"`): a `'` opens one where no letter or
#: digit precedes it (an elision is ’), as a problem's detail finds them to cut them short.
QUOTED = re.compile(r"(?<!\w)'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def problem_faults(problem: dict[str, Any]) -> list[tuple[str, str]]:
    """The faults of a French problem's title, detail and entries' messages, the client's
    quoted values left out (a `{value!r}` quotes it as sent: a string told from a number)."""
    said = [problem["title"], problem["detail"], *(e["message"] for e in problem.get("errors", []))]
    return typography_faults(QUOTED.sub("Q", s) for s in said)
