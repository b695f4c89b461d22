"""`If-Match` parsed by its grammar (RFC 9110 §13.1.1, api/http/conditions.py): a fuzzer found a
tag holding a comma (`"j^Rw,i_C5r0"`, a valid entity tag) refused, since the list was split
on commas."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from api.http.conditions import parse_if_match
from api.http.problems import ProblemError

ETAGC = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters='"'),
    max_size=12,
)
OWS = st.text(alphabet=" \t", max_size=3)


@given(
    tags=st.lists(st.tuples(st.booleans(), ETAGC), min_size=1, max_size=5),
    spaces=st.lists(OWS, min_size=12, max_size=12),
)
def test_every_list_of_entity_tags_is_read_whole(
    tags: list[tuple[bool, str]], spaces: list[str]
) -> None:
    parts = [f'{"W/" if weak else ""}"{tag}"' for weak, tag in tags]
    header = (
        spaces[0]
        + "".join(
            (f"{spaces[i]},{spaces[i + 6]}" if i else "") + part for i, part in enumerate(parts)
        )
        + spaces[11]
    )
    parsed = parse_if_match(header)
    assert parsed is not None and not parsed.any
    assert parsed.versions == {tag for weak, tag in tags if not weak}


def test_a_comma_inside_a_tag_is_part_of_it() -> None:
    parsed = parse_if_match('W/"r)*H",  "", "j^Rw,i_C5r0", "3"')
    assert parsed is not None and parsed.versions == {"", "j^Rw,i_C5r0", "3"}
    assert parsed.matches(3) and not parsed.matches(4)


@pytest.mark.parametrize("header", ["3", '"3', '"3" "4"', '"3",', "W/3", '""3"', ""])
def test_what_is_no_list_of_tags_is_refused(header: str) -> None:
    with pytest.raises(ProblemError) as refused:
        parse_if_match(header)
    assert refused.value.problem.errors[0].field == "If-Match"
