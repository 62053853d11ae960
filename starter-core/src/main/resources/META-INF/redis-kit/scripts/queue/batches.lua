-- Lists batches that have not finished, with their records, from the workflow hash (see workflow.lua). Read only.
-- A scan of the hash, bounded: it stops once it found ARGV[1] batches or looked at about ARGV[2] fields, so a hash
-- of a million entries costs one bounded call, which may then list fewer than there are.
-- KEYS: [1] the workflow hash
-- ARGV[1] most batches, ARGV[2] most fields looked at
-- Returns {batches not finished (the count the hash keeps), whether the scan looked at every field (1 or 0), then
-- per batch: id, total, succeeded, failed, created at ms}.
local most, budget = tonumber(ARGV[1]), tonumber(ARGV[2])
local counted = redis.call('HGET', KEYS[1], 'n:batches')
local reply = {tonumber(counted) or 0, 1}
if not counted then
  return reply
end
local cursor, looked, found = '0', 0, 0
repeat
  local page = redis.call('HSCAN', KEYS[1], cursor, 'MATCH', 'B:*', 'COUNT', 500)
  cursor = page[1]
  looked = looked + 500
  local fields = page[2]
  for i = 1, #fields, 2 do
    local record = cjson.decode(fields[i + 1])
    if not record.finished and found < most then
      found = found + 1
      reply[#reply + 1] = string.sub(fields[i], 3)
      reply[#reply + 1] = record.total
      reply[#reply + 1] = record.succeeded
      reply[#reply + 1] = record.failed
      reply[#reply + 1] = record.created
    end
  end
until cursor == '0' or found >= most or looked >= budget
if cursor ~= '0' then
  reply[2] = 0
end
return reply
