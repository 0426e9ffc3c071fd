"""What names a bot: BOT specs, the registered bots, and a Pascal module's source checked before anything runs."""
