"""What `arena verify` found, and how it says it: a run still to finish in one line, each kind of problem once.

A directory written by a run that was stopped is not wrong, only unfinished: its matches
without a row are one `incomplete` line with the hint to resume. Problems proper are lines
naming a match or a file; a kind of them that repeats (every log signed with another key)
is said once, counted, with the first examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Report:
    """What `arena verify` found: the problem lines, the matches still to play, and how much was checked."""

    directory: Path
    problems: list[str] = field(default_factory=list)
    busy: str = ""  # the run writing the directory now: what it has not written yet is no fault
    matches: int = 0  # result rows checked
    logs: int = 0  # log files read
    scheduled: int = 0  # matches the schedule holds
    unplayed: list[str] = field(default_factory=list)  # matches without a row that should have one: a run to finish
    unplayed_why: str = ""  # why those are still to play (an undecided SPRT, a pair begun)
    reports_pending: bool = False  # the run never ended, so it wrote no reports yet

    @property
    def ok(self) -> bool:
        """True when nothing disagrees, nothing is left to play and no run is writing the directory."""
        return not self.problems and not self.unplayed and not self.busy

    def summary(self) -> str:
        """The last line: how much was verified and the verdict."""
        count = len(self.problems) + bool(self.busy)
        found = f"{count} problem{'s' if count != 1 else ''}"
        if self.unplayed:
            rest = f", {found}" if count else ", nothing else wrong"
            return (f"verified {self.matches} matches, {self.logs} logs: incomplete ({len(self.unplayed)} of "
                    f"{self.scheduled} matches to play){rest}")
        return f"verified {self.matches} matches, {self.logs} logs: {'OK' if self.ok else found}"

    def preamble(self) -> list[str]:
        """What comes before the problems: the run writing the directory now, the matches still to play."""
        out = [self.busy] if self.busy else []
        if self.unplayed:
            some = len(self.unplayed)
            why = f" ({self.unplayed_why})" if self.unplayed_why else ""
            reports = "; its reports are written when it ends" if self.reports_pending else ""
            out.append(f"incomplete: {self.scheduled - some} of {self.scheduled} matches have a result, "
                       f"{some} {'has' if some == 1 else 'have'} none yet{why} ({_examples(self.unplayed)}){reports}; "
                       f"the same command with --resume --out {self.directory} finishes it")
        return out

    def lines(self, every: bool = False) -> list[str]:
        """What to print above the summary: the preamble, then each kind of problem once.

        A kind of problem found more than EXAMPLES times is one line with its count and the first
        examples (every=True: every line as found).
        """
        return self.preamble() + (list(self.problems) if every else grouped(self.problems))


EXAMPLES = 3  # the examples a line of many problems of one kind shows
_SUBJECT = re.compile(r"^(match (?P<match>[^ :]+)|(?P<path>[^ :]*/[^ :]*)): ")
_DETAIL = re.compile(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]|-?\d+(\.\d+)?")


def _examples(subjects: list[str]) -> str:
    shown = ", ".join(subjects[:EXAMPLES])
    return f"e.g. {shown}, ..." if len(subjects) > EXAMPLES else shown


def grouped(problems: list[str]) -> list[str]:
    """Problem lines with each kind that repeats (same words about another match or file) said once, counted."""
    kinds: dict[str, list[tuple[str, str]]] = {}
    for line in problems:
        found = _SUBJECT.match(line)
        if found is None:
            kinds.setdefault(line, []).append(("", line))
            continue
        subject = found.group("match") or Path(found.group("path")).name
        kinds.setdefault(_DETAIL.sub("#", line[found.end():]), []).append((subject, line))
    out = []
    for members in kinds.values():
        if len(members) <= EXAMPLES:
            out += [line for _, line in members]
            continue
        first = members[0][1]
        said = first[_SUBJECT.match(first).end():]  # type: ignore[union-attr]
        out.append(f"{len(members)} times: {said} ({_examples([subject for subject, _ in members])}; "
                   "--all lists every one)")
    return out
