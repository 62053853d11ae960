#!/usr/bin/env bash
# Calls each rate-limited endpoint of the running sample 10 times in a row, as one client, and prints how many
# calls each algorithm let through. Start the sample first: ./mvnw -pl sample-app -am spring-boot:run
#
#   sample-app/drive-rate-limits.sh [base-url] [calls]      (defaults: http://localhost:8080 and 10)
#
# Every run counts as a new client (X-Client: drive-<pid>-<time>), so earlier runs do not change the result.
# With the sample's limiters (5 per 10 s per client) and a burst shorter than 2 s it prints:
#
#   algorithm        allowed  denied  Retry-After of the first 429
#   sliding-log            5       5  10
#   sliding-window         5       5  ...
#   fixed-window           5       5  ...
#   token-bucket           8       2  2
#   gcra                   3       7  2
set -euo pipefail

base_url="${1:-http://localhost:8080}"
calls="${2:-10}"
client="drive-$$-$(date +%s)"
headers="$(mktemp)"
trap 'rm -f "$headers"' EXIT

if ! curl -s -o /dev/null "$base_url/actuator/health"; then
  echo "Nothing answers on $base_url: start the sample with ./mvnw -pl sample-app -am spring-boot:run" >&2
  exit 1
fi

printf '%-16s %7s %7s  %s\n' algorithm allowed denied "Retry-After of the first 429"
for algorithm in sliding-log sliding-window fixed-window token-bucket gcra; do
  allowed=0
  denied=0
  retry_after=-
  for _ in $(seq "$calls"); do
    status="$(curl -s -o /dev/null -D "$headers" -w '%{http_code}' -H "X-Client: $client" \
      "$base_url/api/ratelimit/$algorithm")"
    case "$status" in
      200) allowed=$((allowed + 1)) ;;
      429)
        denied=$((denied + 1))
        if [ "$retry_after" = - ]; then
          retry_after="$(tr -d '\r' < "$headers" | awk -F': ' 'tolower($1) == "retry-after" { print $2 }')"
        fi
        ;;
      *) echo "Unexpected HTTP $status from $base_url/api/ratelimit/$algorithm" >&2; exit 1 ;;
    esac
  done
  printf '%-16s %7d %7d  %s\n' "$algorithm" "$allowed" "$denied" "$retry_after"
done
