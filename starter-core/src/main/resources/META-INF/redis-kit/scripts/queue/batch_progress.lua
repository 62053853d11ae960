-- Reads a batch's record from the workflow hash (see workflow.lua). Read only.
-- KEYS: [1] the workflow hash
-- ARGV[1] the batch's id
-- Returns {total, succeeded, failed, created at ms, finished at ms or -1}, or {} when there is no such batch (any
-- more: a finished batch is kept for the queue's dead-letter retention).
local raw = redis.call('HGET', KEYS[1], 'B:' .. ARGV[1])
if not raw then
  return {}
end
local record = cjson.decode(raw)
return {record.total, record.succeeded, record.failed, record.created, record.finished or -1}
