"""What a contest keeps: its config, its database, its directory (movable, migrated on start), its backups and the events it tells."""
