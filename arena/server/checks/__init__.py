"""A contest checked afterwards: `arena verify` by its signed logs, and `arena integrity`."""
