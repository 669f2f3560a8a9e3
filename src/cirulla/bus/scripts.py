"""The Lua scripts that keep the ownership leases, run atomically inside Redis.

Apart from the bus because they are another language with their own contract (KEYS,
ARGV and the answer of each), best read together: every lease script starts from the
cluster's epoch, which tells a node that Redis lost its data (see bus/redis_bus.py).
"""

from __future__ import annotations

__all__ = ["CLAIM", "EPOCH", "RELEASE", "RENEW"]

# Every lease script starts here: the cluster's epoch, set if Redis has none (it was
# just started empty, or flushed). KEYS[1] is the epoch key, ARGV[1] a new value.
EPOCH = """
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  redis.call('SET', KEYS[1], ARGV[1])
  epoch = ARGV[1]
end
"""

# The lease is ours if it names us; claiming a free table sets it, claiming our own
# extends it. GET-then-SET in one script, so two nodes never both see "free". A wary
# claim (ARGV[5] = '1') is refused if the epoch is not the one the node knows (ARGV[4]):
# the leases were lost with Redis' data, and their owners must get them back first.
# Answers {epoch, 1 or 0}.
CLAIM = (
    EPOCH
    + """
if ARGV[5] == '1' and epoch ~= ARGV[4] then
  return {epoch, 0}
end
local holder = redis.call('GET', KEYS[2])
if not holder then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  return {epoch, 1}
end
if holder == ARGV[2] then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return {epoch, 1}
end
return {epoch, 0}
"""
)

# The epoch, then one flag per lease key: 1 if the lease was ours and is extended, 2 if
# nobody holds it, 0 if someone else does (then it is left alone).
RENEW = (
    EPOCH
    + """
local out = {epoch}
for i = 2, #KEYS do
  local holder = redis.call('GET', KEYS[i])
  if holder == ARGV[2] then
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    out[i] = 1
  elseif not holder then
    out[i] = 2
  else
    out[i] = 0
  end
end
return out
"""
)

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
