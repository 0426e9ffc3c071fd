"""The sandbox a bot runs in: its modes and launch chain, the system-call filter, its file system, /proc and uid."""
