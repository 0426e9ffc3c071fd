"""A seat's bot as the referee sees it: the process and the link it talks through."""

from __future__ import annotations

from dataclasses import dataclass

from arena.launch.processes.process import BotProcess
from arena.match.link import Link, LinkState


@dataclass(eq=False)
class Player:
    """A bot connected to the hub; a pool keeps it across matches."""

    name: str
    link: Link
    process: BotProcess | None = None
    seq: int = 0
    spec_text: str = ""
    launch_error: str = ""  # set when the process could not be started at all

    @property
    def own_program(self) -> bool:
        """True for a program of the user's own (exec:, stdio:), not a bot the SDK serves (which says why it fails)."""
        return self.process is not None and not self.process.spec.kind.served

    def next_seq(self) -> int:
        """The seq of the next request on this connection."""
        self.seq += 1
        return self.seq

    def output_mark(self) -> int:
        """How many bytes of output the bot's process has written so far."""
        return 0 if self.process is None else self.process.output_size()

    def output_since(self, mark: int) -> str:
        """What the process wrote after mark (bounded by the kept tail); a launch failure's text."""
        if self.process is None:
            return self.launch_error
        self.process.drain_output()
        return self.process.output_since(mark)

    def healthy(self) -> bool:
        """True when the process runs and its connection is intact and clean (it may play on)."""
        if self.launch_error or (self.process is not None and not self.process.alive):
            return False  # a seat without a process is a bot on another machine: its link says
        self.link.pump()
        return self.link.state is LinkState.CONNECTED
