"""``daskpad.strategies``: the hypothesis strategies of
:mod:`daskpad.testing.hypothesis_strategies`, by their public name. Needs ``hypothesis``
(the ``test`` extra)."""

from daskpad.testing.hypothesis_strategies import *  # noqa: F403
from daskpad.testing.hypothesis_strategies import __all__ as __all__
