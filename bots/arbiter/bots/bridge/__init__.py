"""Outside engines as Arbiter bots: ``arbiter bridge pbrain`` runs a Gomocup engine on a server."""
