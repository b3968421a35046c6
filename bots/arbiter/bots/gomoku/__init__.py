"""The alpha-beta gomoku bot: incremental line patterns, negamax, VCF threat search."""
