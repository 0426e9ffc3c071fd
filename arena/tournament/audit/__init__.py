"""A results directory afterwards: `arena verify` checks it whole, `arena standings` reports it."""
