"""Interrupts for a front door that runs the use-case functions: SIGTERM turned into
:class:`Terminated` (a ``KeyboardInterrupt``, so that a run stops as on Ctrl-C), and
whether an interrupted search was left running in a thread (then the process should end
at once rather than wait for it).

* :func:`interrupt_on_sigterm`: a context in which SIGTERM raises :class:`Terminated`;
* :class:`Terminated`: the ``KeyboardInterrupt`` it raises;
* :func:`abandoned`: whether an interrupted search still runs in a thread;
* :func:`ignore_interrupts`: no further Ctrl-C or SIGTERM while an interrupted front door
  ends, and :func:`end_on_interrupt`, which a command line calls so that its pools do so
  as they stop (a notebook's kernel never has its handlers changed);
* :func:`dies_with_parent`: a ``preexec_fn`` that ends a program started by a front door
  (or a benchmark) with the process that started it.

They are :mod:`scopa_sim.sim.pool`'s, which every long function runs its work on.
"""

from __future__ import annotations

from scopa_sim.sim.pool import (
    Terminated,
    abandoned,
    dies_with_parent,
    end_on_interrupt,
    ignore_interrupts,
    interrupt_on_sigterm,
)

__all__ = [
    "Terminated",
    "abandoned",
    "dies_with_parent",
    "end_on_interrupt",
    "ignore_interrupts",
    "interrupt_on_sigterm",
]
