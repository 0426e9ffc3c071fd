"""What a contest keeps: its config, database, movable directory, backups and event lines."""
