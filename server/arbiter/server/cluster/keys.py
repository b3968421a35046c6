"""What the nodes of a cluster share in Redis: the key and channel names, and the scripts that
change them atomically. Everything in one place, so the layout can be read (and inspected with
``redis-cli``) without reading the code that uses it."""

from __future__ import annotations

PLAYERS = "arbiter:players"  # hash: player name → its home node
MATCHES = "arbiter:matches"  # hash: live match id → its owner node
MATCH_PLAYERS = "arbiter:match-players"  # hash: live match id → its players' names, tab-separated
PLAYING = "arbiter:playing"  # hash: player name → its live matches on every node (the ladder's capacity)
CHALLENGES = "arbiter:challenges"  # hash: open challenge or seek id → the node holding it
BEATS = "arbiter:beats"  # hash: node → its last heartbeat, wall clock ms (failover charges time by it)
NODES = "arbiter:nodes:listed"  # set: nodes that may have lobby entries (reaped when they die)
LADDER_AUTHORITY = "arbiter:ladder:authority"  # string with expiry: the node that pairs the ladder
EVERY_NODE = "arbiter:nodes"  # channel every node listens on


def alive_key(node: str) -> str:
    """Exists while the node's heartbeat is fresh."""
    return f"arbiter:alive:{node}"


GUEST_TOKEN_S = 86_400  # a guest's resume token is honoured on every node for a day after its last connection


def guest_key(resume_token: str) -> str:
    """A guest's resume token → its name: the guest resumes on any node."""
    return f"arbiter:guest:{resume_token}"


def guest_name_key(name: str) -> str:
    """A guest name in use on some node (a new guest elsewhere gets another)."""
    return f"arbiter:guest-name:{name}"


def journal_key(match_id: str) -> str:
    """A live match's accepted moves, each pushed before its ``moved`` goes out: what a survivor
    adds to the stored record when the match's node dies before its store wrote them."""
    return f"arbiter:moves:{match_id}"


def node_channel(node: str) -> str:
    """The channel of one node: requests forwarded to it, frames for its clients."""
    return f"arbiter:node:{node}"


def lobby_keys(node: str) -> tuple[str, str, str]:
    """The node's lobby entries, each a hash of msgpack entries: players by name, seeks by id,
    live matches by id. Each node writes only its own; the lobby is their union over live nodes."""
    return f"arbiter:lobby:{node}:players", f"arbiter:lobby:{node}:seeks", f"arbiter:lobby:{node}:matches"


# Delete a hash field only if it still holds our value (a later home or owner keeps its entry).
DELETE_IF_OURS = (
    "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0"
)

# Delete a lobby entry and announce it, only if this node had listed it (another node may list the
# player: its home, or the node holding its matches while it is away).
DELETE_AND_ANNOUNCE = (
    "if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then redis.call('PUBLISH', KEYS[2], ARGV[2]) end return 0"
)

# A dead node's lobby entries go: KEYS[1] is its hash, KEYS[2..] the same hash of every live node;
# ARGV[1] the channel, then pairs of (field, removal message). A removal is announced only for an
# entry no live node lists (a match another node adopted, a player who came back elsewhere) — all
# in one step, so no listing can slip between the check and the announcement.
REAP = """
for i = 2, #ARGV, 2 do
  local listed = false
  for k = 2, #KEYS do
    if redis.call('HEXISTS', KEYS[k], ARGV[i]) == 1 then listed = true break end
  end
  if not listed then redis.call('PUBLISH', ARGV[1], ARGV[i + 1]) end
end
return redis.call('DEL', KEYS[1])
"""

# The ladder's lease: take it if free, renew it if ours; answers the holder.
LEASE = """
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return holder
"""

# The ladder's lease goes at once when its holder leaves.
DELETE_IF_HOLDER = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"
