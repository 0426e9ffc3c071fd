"""Fuzz target: reading the static data of a compiled Pascal module (static_data_size of an ELF object).

The object file comes out of the build, which the module's author controls more than anyone:
every input is an object file. The answer is a size (bytes of .data and .bss), None for what
is not a 64-bit ELF file, or a one-line ObjectFileError for one that is broken.
"""

from __future__ import annotations

import struct

import harness

with harness.instrument(__name__):
    from arena.launch.specs.pascal_source import ObjectFileError, static_data_size

MEMORY_PER_BYTE = 16
MEMORY_BASE = 1 << 20


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Measure one object file; raise Finding (or any other exception) when the answer is wrong."""
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        try:
            size = static_data_size(data)
        except ObjectFileError as exc:
            harness.one_line(exc)
            return
    if size is not None and not (isinstance(size, int) and size >= 0):
        raise harness.Finding(f"a static data size of {size!r}")


def elf_object(sections: list[tuple[str, int]], endian: str = "<") -> bytes:
    """A minimal 64-bit ELF relocatable file with the named sections (name, size) and a name table."""
    names = b"\0" + b"".join(name.encode() + b"\0" for name, _ in sections) + b".shstrtab\0"
    header_size, entry = 64, 64
    table_at = header_size + len(names)
    shstrndx = len(sections) + 1
    ident = b"\x7fELF" + bytes([2, 1 if endian == "<" else 2, 1]) + bytes(9)
    header = ident + struct.pack(endian + "HHIQQQIHHHHHH", 1, 62, 1, 0, 0, table_at, 0, header_size,
                                 0, 0, entry, len(sections) + 2, shstrndx)
    rows = [struct.pack(endian + "IIQQQQIIQQ", *[0] * 10)]
    at = 1
    for name, size in sections:
        rows.append(struct.pack(endian + "IIQQQQIIQQ", at, 8 if name.startswith(".bss") else 1, 3, 0,
                                header_size, size, 0, 0, 1, 0))
        at += len(name) + 1
    rows.append(struct.pack(endian + "IIQQQQIIQQ", at, 3, 0, 0, header_size, len(names), 0, 0, 1, 0))
    return header + names + b"".join(rows)


def seeds() -> list[bytes]:
    """Objects with data and bss sections in both byte orders, and the start of a 32-bit one."""
    return [
        elf_object([(".text", 100), (".data", 20), (".bss", 60_000)]),
        elf_object([(".data.rel.ro", 7), (".bss.n_u_board", 1 << 40), (".rodata", 5)], ">"),
        elf_object([]),
        b"\x7fELF\x01\x01\x01" + bytes(45),
    ]


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
