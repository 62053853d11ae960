-- Reads what a flow's children did, from the workflow hash (see workflow.lua). Read only.
-- KEYS: [1] the workflow hash
-- ARGV[1] the parent's id
-- Returns per child, in the order they were enqueued: its id and '' (not finished), or 's' and its result (none
-- when the handler gave none), or 'f' and the reason it failed; {} when the parent has no flow (any more).
local raw = redis.call('HGET', KEYS[1], 'f:' .. ARGV[1])
if not raw then
  return {}
end
local reply = {}
for _, child in ipairs(cjson.decode(raw).children) do
  reply[#reply + 1] = child
  reply[#reply + 1] = redis.call('HGET', KEYS[1], 'r:' .. ARGV[1] .. '\n' .. child) or ''
end
return reply
