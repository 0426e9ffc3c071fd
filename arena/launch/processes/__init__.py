"""Bot processes: started with limits, supervised, counted and killed with their cgroups, probed before a match."""
