"""Shared test fixtures: where the conformance cases live."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The shared conformance folder sits beside the repository (../shared/conformance), in
#: development and in CI alike; NUMRULES_CONFORMANCE_DIR points elsewhere if needed.
CONFORMANCE_DIR = Path(
    os.environ.get("NUMRULES_CONFORMANCE_DIR", ROOT.parent / "shared" / "conformance")
)
