"""numrules engine: the Num Project rulesets as a pure, deterministic Python library.

>>> from engine import registry
>>> rules = registry.make("numwars")
"""
