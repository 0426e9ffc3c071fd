"""A contest checked afterwards: `arena verify` against the signed logs, and its results read for `arena integrity`."""
