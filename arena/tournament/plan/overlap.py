"""Bots' own folders that overlap: each bot would be shown another's files, the config or the results.

A bot's own folder (docs/isolation.md) is shown to it whole. Entrants kept as files of one folder,
with the config and the results beside them, would each see everyone's sources, the config, the
results store and earlier matches' logs (with the other bots' output), so a tournament refuses
such a layout unless `shared_dirs = true` says the bots are trusted. `arena match` plays the
user's own bots: it warns only when one bot is shown what the other is not (a folder holding the
other's), since two versions side by side in one folder are shown the same files and neither
gains on the other.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.launch.sandbox.sandbox import shown_to_every_bot
from arena.launch.specs.botspec import BotKind, BotSpec

FIX = "give each bot a folder of its own with `dir` in its entry, or set shared_dirs = true for trusted bots"


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def bot_files(spec: BotSpec) -> tuple[str, ...]:
    """The files a bot's spec names (resolved): its program, module or file, and other paths on its command line."""
    if spec.kind == BotKind.PYTHON:  # path/bot.py[:Class], or module:Class (no file of its own)
        head = spec.target.split(".py:", 1)[0] + ".py" if ".py:" in spec.target else spec.target
        return (head,) if head.endswith(".py") and os.path.isabs(head) and not shown_to_every_bot(head) else ()
    if spec.kind == BotKind.PASCAL:
        return (os.path.realpath(spec.target),)
    if spec.kind in (BotKind.EXEC, BotKind.STDIO):
        found = []
        for word in spec.argv:
            if os.path.isabs(word) and os.path.exists(word):
                real = os.path.realpath(word)
                if not shown_to_every_bot(real):
                    found.append(real)
        return tuple(found)
    return ()


def folder_conflict(bots: list[tuple[str, BotSpec]], config_file: str | os.PathLike[str] | None = None,
                    results: str | os.PathLike[str] | None = None, alike: bool = False) -> str:
    """The first overlap of the bots' own folders, as one line naming both sides ("" when none).

    bots: (label, spec) pairs, the label naming the bot in the message (`bots[1] (alice)`). The
    same program listed twice (other options, another name) is one entrant, not a conflict;
    with alike, neither are bots shown one and the same folder (each sees what the other sees).
    """
    files = [bot_files(spec) for _, spec in bots]
    for i, (label, spec) in enumerate(bots):
        own = spec.files
        if not own:
            continue
        for j, (other, other_spec) in enumerate(bots):
            if j == i or (other_spec.files == own and (alike or files[j] == files[i])):
                continue
            theirs = other_spec.files
            if theirs and j > i and theirs == own:
                return f"{label} and {other} share the folder {own}: each would read the other's files"
            if theirs and theirs != own and _inside(theirs, own):
                return (f"the folder of {other}, {theirs}, is inside that of {label}, {own}: "
                        f"{label} would read its files")
            for path in files[j]:
                if _inside(path, own):
                    return f"the folder of {label}, {own}, holds {path}, a file of {other}"
        if config_file is not None:
            config = str(Path(config_file).resolve())
            if _inside(config, own):
                return f"the folder of {label}, {own}, holds the config {config}"
        if results is not None:
            out = str(Path(results).resolve())
            if _inside(out, own) or _inside(own, out):
                return f"the folder of {label}, {own}, and the results directory {out} overlap"
    return ""
