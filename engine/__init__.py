"""numrules engine: the Num Project rulesets as a pure, deterministic Python library.

>>> from engine import registry
>>> rules = registry.make("numwars")

The registry is imported with the package: it installs the rules lookup that
``engine.core.match.replay(record)`` uses (core imports no game), so a record replays
whatever part of the engine was imported first.
"""

from engine import registry as registry
