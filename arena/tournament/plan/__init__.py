"""What a tournament plays: its config read and checked key by key, from a file or the command line; its schedule."""
