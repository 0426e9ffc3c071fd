"""The `arena` command line: the entry point and the commands of no other package."""
