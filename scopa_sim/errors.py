"""The one error hierarchy: every error raised for bad input is a :class:`ScopaError`, and
all subclass ``ValueError`` so callers can catch one thing.  The command line turns any
of them into a one-line message."""


class ScopaError(ValueError):
    """Base class of every error raised for bad input."""


class InputError(ScopaError):
    """Arguments a function refuses before it starts any work: a count or seed out of
    range, two settings that exclude each other, a missing one. The command line reports
    it as a usage error (exit status 2)."""


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


class PolicyError(ScopaError):
    """An unknown policy name or parameter."""


class DatasetError(ScopaError):
    """A run directory that is missing, corrupt, foreign or inconsistent."""


class PositionError(ScopaError):
    """A position that cannot occur under the rules, or contradictory card lists."""


class MatchError(ScopaError):
    """A match that did not end within :data:`scopa_sim.sim.match.MAX_HANDS_PER_MATCH`
    hands (the rules' target range makes that all but impossible: see ``rules.MAX_TARGET``)."""


class SimulationError(ScopaError):
    """A run that cannot start or go on (bad directory, mismatched resume, ...)."""


class TournamentError(ScopaError):
    """A tournament that cannot be run as asked."""


class RankingError(TournamentError):
    """A measurement the best bot's rule (:mod:`scopa_sim.sim.ranking`) cannot read, or
    one from which it cannot pick."""


class AnalysisError(ScopaError):
    """Input that cannot be analysed: unknown grouping or metric, incompatible runs."""


class WarmError(ScopaError):
    """An unknown warm-up task (``scopa-sim warm``) or a bad number of processes."""


class WorkerError(ScopaError):
    """A worker process of the process pool died (killed, or out of memory)."""


class FileError(ScopaError):
    """A file that cannot be read or written (a full disk, a missing directory, a device
    where a file was expected, a file too large to be what it claims)."""


class BoardError(ScopaError):
    """A request the analysis board (``scopa-sim board``) cannot serve: a malformed body,
    a missing or mistyped field, a file too large, too much work queued."""
