"""The HTTP pieces every area's routes share, once (issue 22, "HTTP concerns once"): the
`Cache-Control` of answers about a private resource, the texts the operations' descriptions
repeat, and the form of a stored resource's id (the refusals every operation with a body meets
are documented by `api.problem_codes`).

An area's own refusals stay in its routes; what is the same everywhere is here, so a new area
(or a change of the 64 KiB cap's wording) is one edit."""

from __future__ import annotations

import re

#: Answers about an account's or a sheet's private state: no cache keeps them.
NO_STORE = {"Cache-Control": "no-store"}

#: A stored resource's id (sheets, games, API keys): 32 lowercase hex digits; anything else
#: is looked up as nothing (404), never sent to the database.
HEX_ID = re.compile(r"[0-9a-f]{32}")

#: What the descriptions say of numbers (msgspec decodes strictly).
INTEGERS = "`4.0` where an integer is expected (`validation-error`): integers are never coerced"
#: What the descriptions say of a reused `Idempotency-Key`.
REUSED = "`idempotency-key-reused` (the key was used for another request)"
