"""Gomocup's pbrain protocol: any Arbiter brain as an engine for Gomocup managers (``arbiter pbrain``)."""
