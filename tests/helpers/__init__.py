"""Helpers shared by several test modules (no test module imports another one).

``tests/`` is on ``sys.path`` (pyproject's ``[tool.pytest.ini_options] pythonpath``), so
a test imports them as ``from helpers.board import make_records``; the plain-Python
reference of the rules is ``tests/reference.py``, imported as ``import reference``.

* :mod:`helpers.board`: game records to open, the board served by the installed command;
* :mod:`helpers.belief`: hands played to a point, beliefs by brute force;
* :mod:`helpers.golden`: the fifteen family's rule sets and golden legal-play counts.
* :mod:`helpers.figures`: the figures of a report folder that no report links;
* :mod:`helpers.procs`: the processes below a command (/proc), and whether one has ended;
* :mod:`helpers.cli`: the command line run in-process, and its one-line errors;
* :mod:`helpers.positions`: Cirulla hands played some plays into.
"""
