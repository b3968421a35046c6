"""``python -m arbiter.cli`` runs the ``arbiter`` command."""

from arbiter.cli import main

main()
