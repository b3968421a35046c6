"""Several server nodes as one server, over Redis: ``arbiter serve --cluster redis://…``.

- ``node.py``: a node's link to the others: the directory, requests routed to the node they are
  for, proxy sessions and hand-over; it wires the parts below to the hub;
- ``proxy.py``: the transport of a proxy session (frames to the player's home);
- ``failover.py``: a dead node's live matches adopted by a survivor;
- ``lobby.py``: the lobby of every node;
- ``ladder.py``: one ladder, paired by the node holding the lease;
- ``link.py``: the node as those parts see it (a protocol: none of them imports the node or another);
- ``keys.py``: what the nodes share in Redis.
"""

from .node import Cluster, ClusterError

__all__ = ["Cluster", "ClusterError"]
