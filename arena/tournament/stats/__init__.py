"""The statistics of results: Elo, LOS and the SPRT of a series; Bradley–Terry and Plackett–Luce ratings."""
