"""The results: the store, strikes and points, the formats' next rounds, standings, series and reports."""
