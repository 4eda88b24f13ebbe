"""Typed errors; all subclass ``ValueError`` so callers can catch one thing."""


class ScopaError(ValueError):
    """Base class of every error raised for bad input."""


class CardError(ScopaError):
    """A malformed card, or a card given twice."""


class RulesError(ScopaError):
    """An unknown preset or option, a bad value, or an invalid combination."""


class IllegalPlayError(ScopaError):
    """A play that the rules do not allow in the current state."""


class RecordError(ScopaError):
    """A game record that is malformed or does not follow from its rules."""


class ReviewError(ScopaError):
    """A game review that cannot run: an invalid record file, a missing line or seat, an
    unknown evaluator."""


class EquityError(ScopaError):
    """A match-equity table that cannot be used: a missing, unreadable or malformed file,
    one built for other rules (target or sides included), or rules it cannot serve."""
