"""Where matches are played: a worker's pool of bot processes, and the local and Dask executors."""
