-- The earliest due time, in ms, among the delayed zsets given as KEYS (math.huge when all are empty): run as the
-- function 'earliest_due' inside the scripts that place messages (enqueue.lua, enqueue_members.lua, workflow.lua), in
-- their call, before they place any, so that each publishes a wake-up only for a due time earlier than every one
-- before (a consumer already sleeps until the earliest).
-- KEYS: the delayed zsets, any number. ARGV: none.
local first = math.huge
for _, key in ipairs(KEYS) do
  local head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if head[2] and tonumber(head[2]) < first then
    first = tonumber(head[2])
  end
end
return first
