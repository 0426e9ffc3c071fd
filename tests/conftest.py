"""Session-wide test settings."""

import os
import tempfile

# Logs of single matches are signed with the user's key: the tests (and every arena command
# they start, which inherits this) use a key of their own, never the real home's.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="arena-test-config-")
