"""What entrants send, built in the sandbox: archives read within bounds, unpacked, built and collected."""
