/**
 * The Redis kv's byte-bounded pools (core/kv/kv.ts `poolPut`), mirroring memory-pool.ts. A pool `P` keeps its values
 * at `P:v:<key>` (with PX, so Redis expires them on its own), a sorted set `P:idx` of keys by expiry, a hash `P:meta`
 * of each key's "bytes\tgroup\tgroup…", the byte total at `P:bytes` and one set per group at `P:g:<group>`. Writes
 * and drops run as one script each, so every node sees the same total. The scripts name keys they derive from the
 * pool's own (a single Redis, or a cluster with the pool under one hash tag).
 */
import { LuaScript } from "./lua-script.ts";

/** Expired entries one write drops at most beyond what it needs room for (bounds a script's run after a long idle). */
export const PRUNE_PER_WRITE = 1_000;

const FORGET = `
local function forget(k)
  local meta = redis.call('HGET', KEYS[2], k)
  redis.call('ZREM', KEYS[1], k)
  redis.call('DEL', vprefix .. k)
  if not meta then return end
  local first = true
  for field in string.gmatch(meta, '[^\\t]+') do
    if first then
      redis.call('DECRBY', KEYS[3], tonumber(field))
      first = false
    else
      redis.call('SREM', gprefix .. field, k)
    end
  end
  redis.call('HDEL', KEYS[2], k)
end
`;

/**
 * KEYS: idx, meta, bytes. ARGV: key, value, ttl ms, max bytes, group prefix, value prefix, prune bound, groups….
 * Returns {stored 0/1, bytes, evicted}.
 */
export const POOL_PUT = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key, value, ttl, max = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local gprefix, vprefix = ARGV[5], ARGV[6]
local bound = tonumber(ARGV[7])
local size = string.len(value)
if size > max then return {0, size, 0} end
${FORGET}
forget(key)
local evicted, pruned = 0, 0
while true do
  local total = tonumber(redis.call('GET', KEYS[3]) or '0')
  local top = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #top == 0 then break end
  local exp = tonumber(top[2])
  local fits = total + size <= max
  if fits and (exp > now or pruned >= bound) then break end
  forget(top[1])
  if exp > now then evicted = evicted + 1 else pruned = pruned + 1 end
end
if tonumber(redis.call('GET', KEYS[3]) or '0') < 0 then redis.call('SET', KEYS[3], 0) end
redis.call('SET', vprefix .. key, value, 'PX', ttl)
redis.call('ZADD', KEYS[1], now + ttl, key)
local meta = tostring(size)
for i = 8, #ARGV do
  meta = meta .. '\\t' .. ARGV[i]
  redis.call('SADD', gprefix .. ARGV[i], key)
end
redis.call('HSET', KEYS[2], key, meta)
redis.call('INCRBY', KEYS[3], size)
return {1, size, evicted}
`);

/** KEYS: idx, meta, bytes, the group's set. ARGV: group prefix, value prefix. Returns how many entries went. */
export const POOL_DROP = new LuaScript(`
local gprefix, vprefix = ARGV[1], ARGV[2]
${FORGET}
local members = redis.call('SMEMBERS', KEYS[4])
for _, k in ipairs(members) do forget(k) end
redis.call('DEL', KEYS[4])
return #members
`);

/** The keys of pool `pool`. */
export function poolKeys(pool: string) {
  return { idx: `${pool}:idx`, meta: `${pool}:meta`, bytes: `${pool}:bytes`, groupPrefix: `${pool}:g:`, valuePrefix: `${pool}:v:` };
}
