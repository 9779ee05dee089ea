"""``daskpad.strategies``: the hypothesis strategies of :mod:`daskpad.testing.strategies`,
by their public name. Needs ``hypothesis`` (the ``test`` extra)."""

from daskpad.testing.strategies import *  # noqa: F403
from daskpad.testing.strategies import __all__ as __all__
