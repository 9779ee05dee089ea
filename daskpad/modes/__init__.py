"""The mode families, one module each: its graph builder, its kernels (plain numpy, run on
workers) and its fill program, registered in :mod:`daskpad.core.registry` on import.

=================  ==========================================  ======================
module             modes                                       builder family
=================  ==========================================  ======================
``constant``       constant, empty                             ``"fill"``
``edge``           edge                                        ``"edge"``
``reflect``        reflect, symmetric, wrap                    ``"gather"``
``ramp``           linear_ramp                                 ``"ramp"``
``statistics``     maximum, mean, median, minimum              ``"stat"``
``function``       a user function (``mode=callable``)         ``"edge_function"``
=================  ==========================================  ======================
"""

from daskpad.modes import constant, edge, function, ramp, reflect, statistics

__all__ = ["constant", "edge", "function", "ramp", "reflect", "statistics"]
