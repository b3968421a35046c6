"""One script per hot path, each printing its figures and a ratio to a baseline measured in the same run
(``python benchmarks/NAME.py``; docs/PERFORMANCE.md). A package only so that the tests can import a
script's own code; the strength tools are in arbiter.lab and the soaks in arbiter.soak."""
