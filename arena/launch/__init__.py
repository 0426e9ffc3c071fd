"""Starting bots: specs, plug-in discovery, processes, the sandbox, uids, cgroups, Pascal hosts."""
