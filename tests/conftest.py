"""Session-wide test settings."""

import os
import tempfile

# Logs of single matches are signed with the user's key: the tests (and every arena command
# they start, which inherits this) use a key of their own, never the real home's.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="arena-test-config-")

# The session adopts every orphan of the bots it starts (as a referee does), so the checks
# for surviving bot processes count them as descendants of this process, and only them.
from arena.launch.isolation import become_subreaper  # noqa: E402

become_subreaper()
