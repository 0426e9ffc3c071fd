"""Reading a Pascal module's source: directives, code tokens, and the 2001 contest's rules.

The lexer errs towards seeing too many directives (it feeds the refusals of arena/launch/pascal/pascal.py,
which keep a module from reading the environment or other files). The contest's own rules
("no other units, no compiler directives, an empty initialisation part", Pascal only) are
checked on the same tokens before anything is compiled.
"""

from __future__ import annotations

import bisect
import re
import struct
from array import array
from typing import NamedTuple

_LEXEME = re.compile(r"\{|\(\*|//|'|[A-Za-z_][A-Za-z0-9_]*|;")
_STRING = re.compile(r"'(?:[^'\n]|'')*'")
_DIRECTIVE_START = re.compile(r"\{\$|\(\*\$")
_DIRECTIVE_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")
_SPACE = re.compile(r"\s*")
MAX_DIRECTIVE = 512  # characters of one directive, its braces included: fpc's own strings stop at 255


class Scan(NamedTuple):
    """What a lexer pass found in a source: directives, code tokens, an unclosed comment.

    Offsets are kept in arrays and equal words share one string: a source of a million
    tokens costs tens of megabytes, not hundreds.
    """

    directives: array[int]  # offsets of every `{$` / `(*$` fpc may read as a directive
    words: list[str]  # code tokens: words (lower case), `'` for a string literal, `;`
    offsets: array[int]  # where each of words starts
    open_comment: bool  # the text ends inside a comment (fpc carries it on into the includer)


def scan(text: str) -> Scan:
    """Find the directives of a source, erring towards seeing too many.

    Only a string literal hides directive-like text, and only while this lexer surely agrees
    with fpc on where strings are. It stops hiding after a comment that holds a comment
    opener (fpc nests comments in its own modes) or a directive with an odd number of
    quotes ($MESSAGE, $IF and others read quoted text, braces included, where this does not).
    """
    hidden_starts, hidden_ends = array("q"), array("q")
    words: list[str] = []
    offsets = array("q")
    shared: dict[str, str] = {}
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
                hidden_starts.append(start)
                hidden_ends.append(string.end())
            words.append("'")
            offsets.append(start)
            pos = string.end()
        else:
            word = lexeme.lower()
            words.append(shared.setdefault(word, word))
            offsets.append(start)
            pos = found.end()
    directives = array("q")
    for directive in _DIRECTIVE_START.finditer(text):
        at = bisect.bisect_right(hidden_starts, directive.start()) - 1
        if at < 0 or directive.start() >= hidden_ends[at]:
            directives.append(directive.start())
    return Scan(directives, words, offsets, open_comment)


def directive_end(text: str, start: int) -> int | None:
    """Where the directive at start ends (past its closer, or at the end of an unclosed text).

    None when it runs on for more than MAX_DIRECTIVE characters: no directive of fpc's is that
    long, and bounding each keeps a source of many unclosed directives cheap to check.
    """
    closer = "*)" if text.startswith("(*", start) else "}"
    limit = start + MAX_DIRECTIVE
    end = text.find(closer, start + 2, limit)
    if end >= 0:
        return end + len(closer)
    return len(text) if len(text) <= limit else None


def directive_at(text: str, start: int) -> tuple[str, list[tuple[str, str]]]:
    """A directive as written (one line) and its parts (NAME, argument); switches chain with commas.

    A directive longer than MAX_DIRECTIVE is read up to there (directive_end tells).
    """
    paren = text.startswith("(*", start)
    closer = "*)" if paren else "}"
    end = directive_end(text, start) or start + MAX_DIRECTIVE
    body_end = end - len(closer) if text.endswith(closer, start + 2, end) else end
    shown = " ".join(text[start:end].split())
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    body, parts, pos = text[start + (3 if paren else 2):body_end], [], 0
    while (found := _DIRECTIVE_NAME.match(body, pos)) is not None:
        name, at = found[1].upper(), found.end()
        sign = body[at:at + 1]
        if sign not in ("+", "-"):
            parts.append((name, body[at:].strip()))
            break
        parts.append((name, sign))
        at = _SPACE.match(body, at + 1).end()  # fpc wants the comma at once; accepting spaces errs on the safe side
        if not body.startswith(",", at):
            break
        pos = at + 1
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
    words, offsets = found.words, found.offsets
    for word, offset in zip(words, offsets):
        if word == "uses":
            return (f"{shown}({_line(text, offset)}): the contest allows no other units: `uses` "
                    "(rules=fpc turns the contest's rules off)")
        if word == "asm":
            return f"{shown}({_line(text, offset)}): the contest allows Pascal only: `asm`"
    start = _initialisation(words)
    if start is not None:
        for i in range(start + 1, len(words) - 1):
            if words[i] not in (";", "finalization"):
                return (f"{shown}({_line(text, offsets[i])}): the contest wants an empty initialisation part "
                        "(set everything up in InitGame)")
    return None


def _initialisation(words: list[str]) -> int | None:
    """The token index of the unit's `initialization` or closing `begin`, if it has one."""
    stack: list[str] = []
    last_top_begin: int | None = None
    for i, word in enumerate(words):
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
            if not stack and last_top_begin is not None and i == len(words) - 1:
                return last_top_begin  # `begin ... end.` closing the unit
    return None


class ObjectFileError(ValueError):
    """A compiled module's object file is a 64-bit ELF file whose section table cannot be read."""


_SECTION = 64  # bytes of an ELF64 section header; name, type, flags, address, offset and size come first


def static_data_size(object_file: bytes) -> int | None:
    """The bytes of .data and .bss sections (variables, typed constants) of an ELF object; None if not ELF.

    Only 64-bit ELF files are read (what fpc makes here); ObjectFileError, one line, when the
    section table or its names lie outside the file.
    """
    if object_file[:4] != b"\x7fELF" or object_file[4:5] != b"\x02":
        return None
    size = len(object_file)
    if size < 0x40 or object_file[5] not in (1, 2):
        raise ObjectFileError(f"an ELF header of {size} bytes, byte order {object_file[5:6].hex() or 'missing'}")
    endian = "<" if object_file[5] == 1 else ">"
    shoff, = struct.unpack_from(endian + "Q", object_file, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(endian + "HHH", object_file, 0x3A)
    if shnum == 0:
        return 0
    if shentsize < _SECTION or shoff + shnum * shentsize > size or shstrndx >= shnum:
        raise ObjectFileError(f"a section table of {shnum} entries of {shentsize} bytes at {shoff} "
                              f"(names in entry {shstrndx}) does not fit in {size} bytes")
    headers = [struct.unpack_from(endian + "IIQQQQ", object_file, shoff + i * shentsize) for i in range(shnum)]
    names_at, names_size = headers[shstrndx][4], headers[shstrndx][5]
    names_end = names_at + names_size
    if names_end > size:
        raise ObjectFileError(f"the section names ({names_size} bytes at {names_at}) lie outside {size} bytes")
    total = 0
    for name, _, _, _, _, section_size in headers:
        end = object_file.find(b"\0", names_at + name, names_end)
        if end < 0:
            raise ObjectFileError(f"a section name at {name} runs past the {names_size} bytes of names")
        if object_file.startswith((b".data", b".bss"), names_at + name, end):
            total += section_size
    return total
