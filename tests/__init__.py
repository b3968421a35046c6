"""The test suite, a package so that its shared helpers import as ``tests.support``."""
