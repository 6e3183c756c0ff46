"""Progress of the long commands, on a terminal only.

``cardroom fairness --rebuild``, ``archive``, ``audit``, ``demo`` and ``import`` draw a
bar (rich) while they work, when standard output and standard error are both
a terminal; what the command prints meanwhile goes above the bar, and the bar
goes when the work is done. Elsewhere (a pipe, a file, a cron job, CI) and
with ``--json`` nothing is drawn, and the commands print exactly what they
print without it. rich's own ``TTY_COMPATIBLE=1`` (or ``FORCE_COLOR``) makes
it draw anyway; ``TTY_COMPATIBLE=0`` keeps it off on a terminal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Quiet:
    """Progress that draws nothing."""

    def step(self) -> None:
        """One unit of work done (a game, an event)."""

    def note(self, text: str) -> None:
        """What is being done now (shown beside the label)."""


class Bar(Quiet):
    """Progress drawn by rich: one task of ``total`` units under ``label``."""

    def __init__(self, progress: Progress, label: str, total: int | None) -> None:
        self._progress = progress
        self._label = label
        self._task: TaskID = progress.add_task(label, total=total)

    def step(self) -> None:
        self._progress.advance(self._task)

    def note(self, text: str) -> None:
        self._progress.update(self._task, description=f"{self._label}: {text}")


def shown(quiet: bool = False) -> bool:
    """Whether progress is drawn: not ``quiet``, and standard output and error
    both a terminal (as rich sees them, so its ``TTY_COMPATIBLE`` and
    ``FORCE_COLOR`` count)."""
    return not quiet and Console().is_terminal and Console(stderr=True).is_terminal


@contextmanager
def progress(label: str, total: int | None, *, quiet: bool = False) -> Iterator[Quiet]:
    """Progress of ``total`` units (``None``: not known) under ``label``: a
    :class:`Bar` on a terminal, else (or ``quiet``) a :class:`Quiet`."""
    if not shown(quiet):
        yield Quiet()
        return
    drawn = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(),  # the terminal of both streams; prints go above the bar
        transient=True,  # gone once the work is done: what stays is what the command printed
    )
    with drawn:
        yield Bar(drawn, label, total)
