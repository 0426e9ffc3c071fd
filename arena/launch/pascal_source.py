"""Reading a Pascal module's source: directives, code tokens, and the 2001 contest's rules.

The lexer errs towards seeing too many directives (it feeds the refusals of arena/launch/pascal.py,
which keep a module from reading the environment or other files). The contest's own rules
("no other units, no compiler directives, an empty initialisation part", Pascal only) are
checked on the same tokens before anything is compiled.
"""

from __future__ import annotations

import bisect
import re
import struct
from typing import NamedTuple

_LEXEME = re.compile(r"\{|\(\*|//|'|[A-Za-z_][A-Za-z0-9_]*|;")
_STRING = re.compile(r"'(?:[^'\n]|'')*'")
_DIRECTIVE_START = re.compile(r"\{\$|\(\*\$")
_DIRECTIVE_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")


class Scan(NamedTuple):
    """What a lexer pass found in a source: directives, code tokens, an unclosed comment."""

    directives: list[int]  # offsets of every `{$` / `(*$` fpc may read as a directive
    tokens: list[tuple[str, int]]  # code words (lower case), `'` for a string literal, `;`
    open_comment: bool  # the text ends inside a comment (fpc carries it on into the includer)


def scan(text: str) -> Scan:
    """Find the directives of a source, erring towards seeing too many.

    Only a string literal hides directive-like text, and only while this lexer surely agrees
    with fpc on where strings are. It stops hiding after a comment that holds a comment
    opener (fpc nests comments in its own modes) or a directive with an odd number of
    quotes ($MESSAGE, $IF and others read quoted text, braces included, where this does not).
    """
    hidden: list[tuple[int, int]] = []
    tokens: list[tuple[str, int]] = []
    agree, open_comment, pos = True, False, 0
    while (found := _LEXEME.search(text, pos)) is not None:
        lexeme, start = found.group(), found.start()
        if lexeme in ("{", "(*"):
            closer = "}" if lexeme == "{" else "*)"
            end = text.find(closer, found.end())
            if end < 0:
                open_comment = True
                break
            body = text[found.end():end]
            if "{" in body or "(*" in body or (body.startswith("$") and body.count("'") % 2):
                agree = False
            pos = end + len(closer)
        elif lexeme == "//":
            end = text.find("\n", start)
            pos = len(text) if end < 0 else end
        elif lexeme == "'":
            string = _STRING.match(text, start)
            if string is None:  # unterminated: fpc gives up there, but what follows still counts
                pos = found.end()
                continue
            if agree:
                hidden.append((start, string.end()))
            tokens.append(("'", start))
            pos = string.end()
        else:
            tokens.append((lexeme.lower(), start))
            pos = found.end()
    starts = [span[0] for span in hidden]
    directives = []
    for directive in _DIRECTIVE_START.finditer(text):
        at = bisect.bisect_right(starts, directive.start()) - 1
        if at < 0 or directive.start() >= hidden[at][1]:
            directives.append(directive.start())
    return Scan(directives, tokens, open_comment)


def directive_at(text: str, start: int) -> tuple[str, list[tuple[str, str]]]:
    """A directive as written (one line) and its parts (NAME, argument); switches chain with commas."""
    paren = text.startswith("(*", start)
    closer = "*)" if paren else "}"
    end = text.find(closer, start + 2)
    end = len(text) if end < 0 else end
    shown = " ".join(text[start:end + len(closer)].split())
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    rest, parts = text[start + (3 if paren else 2):end], []
    while (found := _DIRECTIVE_NAME.match(rest)) is not None:
        name, after = found[1].upper(), rest[found.end():]
        if after[:1] not in ("+", "-") or not after:
            parts.append((name, after.strip()))
            break
        parts.append((name, after[0]))
        tail = after[1:].lstrip()  # fpc wants the comma at once; accepting spaces errs on the safe side
        if not tail.startswith(","):
            break
        rest = tail[1:]
    return shown, parts


# --- the 2001 contest's rules ---------------------------------------------------------------

RULES = ("contest", "fpc")  # a pascal: bot's `rules` option: the contest's (default) or Free Pascal's own
STATIC_DATA_LIMIT = 50 * 1024  # "the module's static data may not exceed 50 KB"
_OPENERS = frozenset({"begin", "case", "record", "try", "asm", "object"})


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def contest_problem(text: str, shown: str) -> str | None:
    """The first of the contest's module rules the source breaks, as one line naming it; None if it keeps all.

    The rules: no other units (no `uses`), no compiler directives, Pascal only (no `asm`), and
    an empty initialisation part (everything is set up in InitGame).
    """
    found = scan(text)
    if found.directives:
        offset = found.directives[0]
        written, _ = directive_at(text, offset)
        return (f"{shown}({_line(text, offset)}): the contest allows no compiler directives: {written} "
                "(rules=fpc turns the contest's rules off)")
    tokens = found.tokens
    for word, offset in tokens:
        if word == "uses":
            return (f"{shown}({_line(text, offset)}): the contest allows no other units: `uses` "
                    "(rules=fpc turns the contest's rules off)")
        if word == "asm":
            return f"{shown}({_line(text, offset)}): the contest allows Pascal only: `asm`"
    start = _initialisation(tokens)
    if start is not None:
        body = [(w, o) for w, o in tokens[start + 1:-1] if w not in (";", "finalization")]
        if body:
            return (f"{shown}({_line(text, body[0][1])}): the contest wants an empty initialisation part "
                    "(set everything up in InitGame)")
    return None


def _initialisation(tokens: list[tuple[str, int]]) -> int | None:
    """The token index of the unit's `initialization` or closing `begin`, if it has one."""
    stack: list[str] = []
    last_top_begin: int | None = None
    for i, (word, _) in enumerate(tokens):
        if word == "initialization" and not stack:
            return i
        if word == "case" and stack and stack[-1] == "record":
            continue  # a variant part shares its record's `end`
        if word in _OPENERS:
            if word == "begin" and not stack:
                last_top_begin = i
            stack.append(word)
        elif word == "end":
            if not stack:
                return None  # the unit's own `end.`: no initialisation part
            stack.pop()
            if not stack and last_top_begin is not None and i == len(tokens) - 1:
                return last_top_begin  # `begin ... end.` closing the unit
    return None


def static_data_size(object_file: bytes) -> int | None:
    """The bytes of .data and .bss sections (variables, typed constants) of an ELF object; None if not ELF."""
    if object_file[:4] != b"\x7fELF" or object_file[4] != 2:  # 64-bit ELF only (what fpc makes here)
        return None
    endian = "<" if object_file[5] == 1 else ">"
    shoff, = struct.unpack_from(endian + "Q", object_file, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(endian + "HHH", object_file, 0x3A)
    headers = [struct.unpack_from(endian + "IIQQQQ", object_file, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    total = 0
    for name, _, _, _, _, size in headers:
        end = object_file.index(b"\0", names_at + name)
        section = object_file[names_at + name:end].decode("ascii", errors="replace")
        if section.startswith((".data", ".bss")):
            total += size
    return total
