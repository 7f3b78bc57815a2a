#!/usr/bin/env bash
# Per-statement profile of Toolgate's PostgreSQL statements during the storage benchmark: the server's
# own execution time of each statement (log_min_duration_statement = 0 on a database of its own), the
# count and the median and mean per statement kind, Toolgate's table and the raw baseline's apart.
#
#   examples/demo-host/src/bench/pg-statement-profile.sh [database] [postgres log file]
#
# It creates the database (default toolgate_profile), runs StorageBenchmark -Dbench.only=postgres on
# it, and reads the server log from the line it had reached before. Needs psql as a superuser (trust
# auth on 127.0.0.1, as on the development machines).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
db="${1:-toolgate_profile}"
log="${2:-$(ls -t /var/log/postgresql/postgresql-*-main.log | head -n 1)}"
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" \
  -c "ALTER DATABASE $db SET log_min_duration_statement = 0"
from=$(wc -l <"$log")
TOOLGATE_BENCH_PG_URL="jdbc:postgresql://127.0.0.1:5432/$db?user=postgres" \
  ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.StorageBenchmark \
  -Dbench.only=postgres >/dev/null
psql -h 127.0.0.1 -U postgres -qc "ALTER DATABASE $db RESET log_min_duration_statement"
tail -n +"$from" "$log" | grep -a ' duration: ' | grep -a ' execute ' \
  | sed -E 's/.* duration: ([0-9.]+) ms +execute [^:]*: (.*)/\2\t\1/' \
  | awk -F'\t' '{ key = substr($1, 1, 60)
      if (index($1, "toolgate_session_room")) key = key " ... toolgate_session_room"
      else if (index($1, "bench_raw_call")) key = key " (raw baseline)"
      print key "\t" $2 }' \
  | LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2n \
  | awk -F'\t' '
      function flush() { if (n >= 100) printf "%8d  median %7.1f us  mean %7.1f us  %s\n", n, v[int((n + 1) / 2)] * 1000, s / n * 1000, k }
      $1 != k { flush(); k = $1; n = 0; s = 0 }
      { n++; s += $2; v[n] = $2 }
      END { flush() }' \
  | sort -k1,1nr
