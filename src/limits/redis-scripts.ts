// The Lua scripts of the Redis limiter (src/limits/redis-limiter.ts): every change to a rate window
// or a slot set happens inside one of them, so a decision is atomic across nodes. Lease times come
// from the Redis clock (TIME), so nodes whose clocks disagree still agree on when a lease ends.

const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
// The key lives exactly as long as its longest lease, so idle accounts leave nothing behind.
const EXPIRE_WITH_LAST_LEASE = `local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], tonumber(last[2])) end`;

/**
 * The admissions and slot releases this node has queued since its last call (see AdmitBatcher),
 * in one script call. KEYS and ARGV are read in order:
 *   ARGV: r, then r slot ids (KEYS: their r slot keys): releases, done first (they happened first);
 *   ARGV: a, then for each of the a admissions its spec: n, each window's seconds and limit, then
 *   1 with max and leaseMs or 0; or -1 for the previous admission's spec (under load most
 *   admissions of a call are one plan's: each admission is then two arguments, not nine); then
 *   the slot id if the spec asks for a slot. KEYS: n window counters, then the slot key if asked.
 * -> one array per admission: {count_1, pttl_1, ..., count_n, pttl_n, slot...}: each count includes
 * the request; it is counted in every window only when none goes over its limit, and only then is
 * a slot taken ({1, inUse, 0} or {0, inUse, ms until the first lease ends}; nothing when refused
 * or no slot was asked for).
 *
 * Admissions are decided in order, exactly as separate calls would decide them, but each key is
 * read once and written once per call: under load most admissions of a turn are one account's, so
 * a batch of four costs ~11 Redis commands instead of ~40 (Redis's CPU is shared with the nodes).
 * Expired leases are swept only when a set looks full (below the maximum they cannot change the
 * answer); a slot key's expiry is only ever pushed later (PEXPIREAT ... GT, Redis 7), to its newest
 * lease, so idle accounts leave nothing behind. A slot asked for alone (acquireSlot) is an
 * admission with no windows.
 */
export const BATCH = `${NOW_MS}
local ki, ai = 1, 1
local function arg() local v = ARGV[ai]; ai = ai + 1; return v end

local released, releasedKeys = {}, {}
for i = 1, tonumber(arg()) do
  local key = KEYS[ki]
  ki = ki + 1
  if not released[key] then released[key] = {}; releasedKeys[#releasedKeys + 1] = key end
  local ids = released[key]
  ids[#ids + 1] = arg()
end
for _, key in ipairs(releasedKeys) do redis.call('ZREM', key, unpack(released[key])) end

local windows, windowKeys = {}, {}
local function window(key, seconds)
  local w = windows[key]
  if w then return w end
  local count = redis.call('GET', key)
  if count then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then
      redis.call('EXPIRE', key, seconds)
      ttl = seconds * 1000
    end
    w = {count = tonumber(count), ttl = ttl, added = 0}
  else
    -- The window starts with this call's first counted request.
    w = {count = 0, ttl = seconds * 1000, fresh = seconds, added = 0}
  end
  windows[key] = w
  windowKeys[#windowKeys + 1] = key
  return w
end

local sets, setKeys = {}, {}
local function take_slot(key, max, lease, id)
  local s = sets[key]
  if not s then
    s = {stored = redis.call('ZCARD', key), adds = {}, pending = 0, firstPending = nil, lastEnd = 0, swept = false}
    sets[key] = s
    setKeys[#setKeys + 1] = key
  end
  if s.stored + s.pending >= max and not s.swept then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    s.stored = redis.call('ZCARD', key)
    s.swept = true
  end
  local n = s.stored + s.pending
  if n >= max then
    local wait = 1000
    local first = s.stored > 0 and redis.call('ZRANGE', key, 0, 0, 'WITHSCORES') or {}
    if first[2] then wait = tonumber(first[2]) - now
    elseif s.firstPending then wait = s.firstPending - now end
    return {0, n, wait}
  end
  local ends = now + lease
  s.adds[#s.adds + 1] = ends
  s.adds[#s.adds + 1] = id
  s.pending = s.pending + 1
  if not s.firstPending or ends < s.firstPending then s.firstPending = ends end
  if ends > s.lastEnd then s.lastEnd = ends end
  return {1, n + 1, 0}
end

local results = {}
local spec
for j = 1, tonumber(arg()) do
  local n = tonumber(arg())
  if n >= 0 then
    spec = {n = n, seconds = {}, limits = {}}
    for i = 1, n do spec.seconds[i], spec.limits[i] = tonumber(arg()), tonumber(arg()) end
    if tonumber(arg()) == 1 then spec.max, spec.lease = tonumber(arg()), tonumber(arg()) end
  end
  n = spec.n
  local out, ws = {}, {}
  local allowed = true
  for i = 1, n do
    local w = window(KEYS[ki + i - 1], spec.seconds[i])
    ws[i] = w
    out[2 * i - 1], out[2 * i] = w.count + 1, w.ttl
    if w.count + 1 > spec.limits[i] then allowed = false end
  end
  if allowed then
    for i = 1, n do
      ws[i].count = ws[i].count + 1
      ws[i].added = ws[i].added + 1
    end
  end
  ki = ki + n
  if spec.max then
    local id = arg()
    if allowed then
      local slot = take_slot(KEYS[ki], spec.max, spec.lease, id)
      for k = 1, 3 do out[2 * n + k] = slot[k] end
    end
    ki = ki + 1
  end
  results[j] = out
end

for _, key in ipairs(windowKeys) do
  local w = windows[key]
  if w.added > 0 then
    if w.fresh then redis.call('SET', key, w.count, 'EX', w.fresh) else redis.call('INCRBY', key, w.added) end
  end
end
for _, key in ipairs(setKeys) do
  local s = sets[key]
  if s.pending > 0 then
    redis.call('ZADD', key, unpack(s.adds))
    -- A set that was empty has no expiry for GT to compare with.
    if s.stored == 0 then
      redis.call('PEXPIREAT', key, s.lastEnd)
    else
      redis.call('PEXPIREAT', key, s.lastEnd, 'GT')
    end
  end
end
return results`;

/** KEYS[1] slots; ARGV slotId, leaseMs. An expired lease is not renewed: its slot may be someone else's now. */
export const RENEW = `${NOW_MS}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) <= now then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
${EXPIRE_WITH_LAST_LEASE}
return 1`;

export const COUNT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])`;
