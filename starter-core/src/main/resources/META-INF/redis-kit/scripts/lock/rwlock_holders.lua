-- Who holds a read-write lock now, without changing anything (a holder whose lease ended holds nothing).
-- KEYS[1] hash, KEYS[2] readers (see rwlock_acquire.lua)
-- ARGV[1] owner asked about
-- Returns {1 when a writer holds it else 0, readers, the owner's write holds, the owner's read holds}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local writer = redis.call('HGET', KEYS[1], 'w')
local writing = 0
local writes = 0
if writer and tonumber(redis.call('HGET', KEYS[1], 'wd')) > now then
  writing = 1
  if writer == ARGV[1] then
    writes = tonumber(redis.call('HGET', KEYS[1], 'wc'))
  end
end
local reads = 0
local ends = redis.call('ZSCORE', KEYS[2], ARGV[1])
if ends and tonumber(ends) > now then
  reads = tonumber(redis.call('HGET', KEYS[1], 'rc:' .. ARGV[1]) or '0')
end
return {writing, redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf'), writes, reads}
