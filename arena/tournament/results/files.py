"""Files written whole or not at all: through a temporary file beside them, then renamed."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write data (text as UTF-8) so that path is never seen half written.

    OSError when writing fails (a full disk, a read-only folder); the partial temporary file is
    removed first, so it takes none of the space a later run needs.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise
