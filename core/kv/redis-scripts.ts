/**
 * The Lua scripts of the Redis kv. Each runs atomically on the
 * server and reads the server's TIME, so processes with skewed clocks still agree.
 */
import { LuaScript } from "./lua-script.ts";

/**
 * GCRA step, mirroring `stepGcra` in gcra.ts. KEYS[1] holds the TAT in integer µs.
 * ARGV: increment µs, tolerance µs. Returns {allowed 0/1, backlog µs, retry µs}.
 */
export const RATE_LIMIT = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local increment = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat or tat < now then tat = now end
local newTat = tat + increment
local allowAt = newTat - tolerance
if allowAt > now then
  return {0, tat - now, allowAt - now}
end
if increment > 0 then
  -- %.0f: tostring would print 1.7e+15 and lose the microseconds.
  redis.call('SET', KEYS[1], string.format('%.0f', newTat), 'PX', math.ceil((newTat - now) / 1000) + 1)
end
return {1, newTat - now, 0}
`);

/**
 * Budget reservation. KEYS[1]: hash of id -> "<expiresAt ms> <amount>"; KEYS[2]: the spent counter.
 * ARGV: id, amount, limit, ttl ms, epsilon. Prunes expired reservations, sums the live ones (other than this id,
 * which a grant replaces), and grants when spent + reserved + amount <= limit + epsilon. Returns 1 or 0.
 */
export const RESERVE = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id = ARGV[1]
local amount = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local expiresAt = now + tonumber(ARGV[4])
local epsilon = tonumber(ARGV[5])
local reserved = 0
local latest = expiresAt
local held = redis.call('HGETALL', KEYS[1])
for i = 1, #held, 2 do
  local field, value = held[i], held[i + 1]
  local sep = string.find(value, ' ', 1, true)
  local exp = sep and tonumber(string.sub(value, 1, sep - 1))
  local amt = sep and tonumber(string.sub(value, sep + 1))
  if not exp or not amt or exp <= now then
    redis.call('HDEL', KEYS[1], field)
  elseif field ~= id then
    reserved = reserved + amt
    if exp > latest then latest = exp end
  end
end
local spent = tonumber(redis.call('GET', KEYS[2])) or 0
if spent + reserved + amount > limit + epsilon then
  return 0
end
redis.call('HSET', KEYS[1], id, string.format('%.0f %.17g', expiresAt, amount))
-- The hash lives as long as its longest reservation, so an abandoned budget key cleans itself up.
redis.call('PEXPIREAT', KEYS[1], latest)
return 1
`);

/** INCRBYFLOAT and PEXPIRE as one step, so a counter never exists without its TTL. ARGV: amount, ttl ms. */
export const INCR_BY_WITH_TTL = new LuaScript(`
local value = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return value
`);
