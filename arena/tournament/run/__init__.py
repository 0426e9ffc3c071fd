"""One run of a tournament: the coordinator, its session, its progress line and its directory's lock."""
