-- Pauses, resumes or reads a recurring job's pause flag (the flag recurring.lua checks: while it exists, due slots
-- are passed over, nothing is enqueued). One job, three sides sharing the key: pause and resume write, read writes
-- nothing.
-- KEYS[1] the job's pause flag
-- ARGV[1] 'pause', 'resume' or 'read'; ARGV[2] for pause, how long the flag is kept, in ms
-- Returns 1 if the job is paused afterwards, else 0.
local mode = ARGV[1]
if mode == 'pause' then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
  return 1
elseif mode == 'resume' then
  redis.call('DEL', KEYS[1])
  return 0
end
return redis.call('EXISTS', KEYS[1])
