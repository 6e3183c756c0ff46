"""The public fairness report: are the deals as random as promised?

- :mod:`.features` — what each deal says (jokers, trumps, troys…), per hand.
- :mod:`.expectations` — the exact expected distribution of every feature.
- :mod:`.stats` — goodness of fit, Benjamini-Hochberg, effect sizes (scipy).
- :mod:`.projection` — the counts in Redis, kept by the workers, rebuildable.
- :mod:`.report` — the report served at ``/fairness/report`` and printed by
  ``cardroom fairness``.

See ``docs/fairness.md``.
"""
