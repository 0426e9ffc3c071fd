"""What an entrant uploads, read: a file or an archive checked, and its reader in the sandbox."""
