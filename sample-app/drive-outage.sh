#!/usr/bin/env bash
# Puts the running sample under load with wrk while its Redis is paused (SIGSTOP) for a few seconds and then
# resumed (SIGCONT), and prints the answers by status and the latencies: no request should get a 500, and none
# should wait more than one command timeout (spring.data.redis.timeout, 2 s in the sample) plus the payment's
# 300 ms. docs/reliability.md has the figures of a run.
#
#   REDIS_PID=<pid> sample-app/drive-outage.sh [base-url] [pause-seconds] [connections]
#                                              (defaults: http://localhost:8080, 5 and 64)
#
# Needs wrk (Debian: apt-get install wrk) and the pid of the sample's redis-server, so start that server
# yourself and point the sample at it:
#
#   redis-server --port 6390 --save '' --appendonly no &
#   REDIS_PID=$!
#   ./mvnw -pl sample-app -am spring-boot:run -Dspring-boot.run.arguments=--spring.data.redis.port=6390 &
#   REDIS_PID=$REDIS_PID sample-app/drive-outage.sh
#
# Requests alternate between POST /orders/<new id>/pay (@DistributedLock, a payment of 300 ms) and
# GET /api/ratelimit/gcra (the api-per-ip route rule, then @RateLimited): mostly 429 once the rule's 100 per
# minute are used, 200 or 503 for the payments.
set -euo pipefail

base_url="${1:-http://localhost:8080}"
pause_seconds="${2:-5}"
connections="${3:-64}"
redis_pid="${REDIS_PID:?set REDIS_PID to the pid of the redis-server the sample uses}"

command -v wrk > /dev/null || { echo "wrk is not installed (Debian: apt-get install wrk)" >&2; exit 1; }
kill -0 "$redis_pid" 2> /dev/null || { echo "No process $redis_pid to pause" >&2; exit 1; }
if ! curl -s -o /dev/null "$base_url/actuator/health"; then
  echo "Nothing answers on $base_url: start the sample first (see the top of this script)" >&2
  exit 1
fi

script="$(mktemp --suffix=.lua)"
output="$(mktemp)"
# Whatever happens, Redis is not left paused.
trap 'kill -CONT "$redis_pid" 2> /dev/null || true; rm -f "$script" "$output"' EXIT

cat > "$script" <<'LUA'
local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
  sent = 0
  run = os.time()
end

function request()
  sent = sent + 1
  if sent % 2 == 0 then
    return wrk.format("POST", "/orders/wrk-" .. run .. "-" .. id .. "-" .. sent .. "/pay")
  end
  return wrk.format("GET", "/api/ratelimit/gcra", { ["X-Client"] = "wrk-" .. id })
end

function response(status, headers, body)
  local key = tostring(status)
  statuses[key] = (statuses[key] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  for status, count in pairs(total) do
    io.write(string.format("status %s: %d\n", status, count))
  end
  io.write(string.format("latency: p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    latency.max / 1000))
  io.write(string.format("socket errors: connect %d, read %d, write %d, timeout %d\n",
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
end
LUA

duration=$((pause_seconds + 10))
echo "wrk: ${connections} connections, ${duration}s; Redis (pid $redis_pid) paused from 3s to $((3 + pause_seconds))s"
wrk --threads 2 --connections "$connections" --duration "${duration}s" --timeout 30s --script "$script" \
  "$base_url" > "$output" &
wrk_pid=$!
sleep 3
kill -STOP "$redis_pid"
sleep "$pause_seconds"
kill -CONT "$redis_pid"
wait "$wrk_pid"
grep -E '^(status|latency|socket|Requests/sec)' "$output" | sort

if grep -q '^status 500:' "$output"; then
  echo "FAILED: some requests answered 500" >&2
  exit 1
fi
