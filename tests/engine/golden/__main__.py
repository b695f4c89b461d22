"""`python -m tests.engine.golden [ruleset …]`: write the golden records (see __init__)."""

from tests.engine.golden import main

raise SystemExit(main())
