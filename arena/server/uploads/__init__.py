"""What an entrant uploads, read: a source file or an archive checked member by member, and the reader that unpacks it in the sandbox."""
