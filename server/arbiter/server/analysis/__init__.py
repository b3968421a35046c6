"""Analysis by workers: the shared queue of review and analysis-board jobs, and the reviews (SPEC section 18)."""
