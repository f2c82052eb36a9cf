# shellcheck shell=bash
# Sourced by scripts/fleet and scripts/fleet-bench: a fleet of `toolkit-mcp --http` instances
# on one PostgreSQL audit copy, behind HAProxy (scripts/haproxy.cfg.in). Run from the repository's
# root. Everything lives under target/fleet: the PostgreSQL cluster (target/fleet/pg, port
# FLEET_PG_PORT, default 25440: below the ephemeral ports a client connection may be given;
# 127.0.0.1 only, trust authentication for the `toolkit` user, database `fleet`), each
# instance's log, HAProxy's filled configuration and log.
#
#   fleet_install                  PostgreSQL and HAProxy from Debian when missing
#   fleet_pg_start                 the cluster (kept if it already runs) and its `fleet` database
#   fleet_start_instances N BASE [FLAGS...]   instances i1..iN on ports BASE+1..BASE+N, their
#                                  audit copy at FLEET_AUDIT (default: the cluster's database;
#                                  a file's path for SQLite; empty for none)
#   fleet_start_haproxy PORT       HAProxy on PORT in front of the running instances
#   fleet_stop_instances, fleet_stop_haproxy, fleet_pg_stop, fleet_stop (all of them)
#
# What runs is in FLEET_INSTANCE_PIDS, FLEET_INSTANCE_PORTS, FLEET_HAPROXY_PID and
# fleet_pg_pid; a stop function stops only what these functions started.

# shellcheck source=scripts/postgres.sh
. scripts/postgres.sh

FLEET_DIR="$PWD/target/fleet"
FLEET_PG_PORT="${FLEET_PG_PORT:-25440}"
FLEET_DB=fleet
FLEET_PG_URL="postgres://toolkit@127.0.0.1:$FLEET_PG_PORT/$FLEET_DB"
FLEET_BIN="${FLEET_BIN:-$PWD/target/release/toolkit-mcp}"
FLEET_HAPROXY=/usr/sbin/haproxy
FLEET_INSTANCE_PIDS=()
FLEET_INSTANCE_PORTS=()
FLEET_HAPROXY_PID=""
FLEET_PG_STARTED=""
FLEET_PG_DATA=""

fleet_say() { echo "fleet: $*" >&2; }

# Whether something accepts connections on 127.0.0.1:PORT.
fleet_port_busy() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

fleet_install() {
    install_postgres
    if [ ! -x "$FLEET_HAPROXY" ]; then
        fleet_say "installing haproxy"
        apt_install haproxy
    fi
}

# PostgreSQL's binaries: TOOLKIT_PG_BIN (as for the tests), else the newest Debian server's.
fleet_pg_bin() {
    local pg_ctl
    pg_ctl="$(printf '%s\n' /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1)"
    [ -z "${TOOLKIT_PG_BIN:-}" ] || pg_ctl="$TOOLKIT_PG_BIN/pg_ctl"
    [ -x "$pg_ctl" ] || { fleet_say "PostgreSQL is not installed (fleet_install installs it)"; return 1; }
    dirname "$pg_ctl"
}

# PostgreSQL refuses to run as root: as root, its programs run as Debian's `postgres` user.
fleet_as_pg() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Where the cluster's folder is: target/fleet/pg, or as root, when the `postgres` user cannot
# write there (a checkout under a private home folder), a folder of its own under /tmp.
fleet_pg_home() {
    local home="$FLEET_DIR/pg"
    mkdir -p "$home"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$home"
        if ! runuser -u postgres -- test -w "$home"; then
            home="/tmp/toolkit-fleet-pg-$FLEET_PG_PORT"
            mkdir -p "$home"
            chown postgres: "$home"
        fi
    fi
    echo "$home"
}

fleet_psql() {
    "$(fleet_pg_bin)/psql" -X -A -t -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$FLEET_PG_PORT" -U toolkit "$@"
}

# The postmaster's process id (the first line of postmaster.pid).
fleet_pg_pid() {
    [ -n "$FLEET_PG_DATA" ] && head -n 1 "$FLEET_PG_DATA/postmaster.pid" 2>/dev/null
}

fleet_pg_start() {
    local bin home
    bin="$(fleet_pg_bin)" || return 1
    home="$(fleet_pg_home)"
    FLEET_PG_DATA="$home/data"
    if [ -f "$FLEET_PG_DATA/postmaster.pid" ] && fleet_port_busy "$FLEET_PG_PORT"; then
        fleet_say "PostgreSQL already runs on port $FLEET_PG_PORT ($FLEET_PG_DATA): using it, leaving it running"
    else
        if fleet_port_busy "$FLEET_PG_PORT"; then
            fleet_say "port $FLEET_PG_PORT is in use by another program (set FLEET_PG_PORT)"
            return 1
        fi
        if [ ! -f "$FLEET_PG_DATA/PG_VERSION" ]; then
            fleet_as_pg "$bin/initdb" -D "$FLEET_PG_DATA" -U toolkit --auth=trust -E UTF8 --no-locale >/dev/null ||
                { fleet_say "initdb failed"; return 1; }
        fi
        # A FLEET_PG_PORT in Linux's ephemeral range may be held by a client's closed connection
        # in TIME-WAIT for up to a minute, so a refused bind is tried again for 80 seconds.
        local tries=0
        until fleet_as_pg "$bin/pg_ctl" -D "$FLEET_PG_DATA" -l "$home/server.log" -w -t 60 \
            -o "-p $FLEET_PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=300" \
            start >/dev/null 2>&1; do
            tries=$((tries + 1))
            if [ $tries -ge 40 ] || ! tail -n 5 "$home/server.log" | grep -q "Address already in use"; then
                fleet_say "PostgreSQL did not start: see $home/server.log"
                return 1
            fi
            [ $tries -eq 1 ] && fleet_say "port $FLEET_PG_PORT is still held by a closed connection: waiting"
            sleep 2
        done
        FLEET_PG_STARTED=1
    fi
    if [ -z "$(fleet_psql -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$FLEET_DB'")" ]; then
        fleet_psql -d postgres -c "CREATE DATABASE $FLEET_DB" || return 1
    fi
}

fleet_pg_stop() {
    [ -n "$FLEET_PG_STARTED" ] || return 0
    fleet_as_pg "$(fleet_pg_bin)/pg_ctl" -D "$FLEET_PG_DATA" -m fast -w stop >/dev/null ||
        fleet_say "could not stop PostgreSQL ($FLEET_PG_DATA)"
    FLEET_PG_STARTED=""
}

# Waits until instance log $1 says it serves, or its process $2 ends; up to 30 seconds.
fleet_wait_serving() {
    local log="$1" pid="$2" tries=0
    until grep -q "serving on" "$log" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null || [ $tries -ge 300 ]; then
            fleet_say "an instance did not start; its log ($log):"
            tail -n 20 "$log" >&2
            return 1
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
}

# Starts N instances on ports BASE+1..BASE+N, each with the audit copy at FLEET_AUDIT (default:
# PostgreSQL, FLEET_PG_URL; empty: none) at privacy metadata, then the extra flags. Each runs in a session of its own (setsid): a Ctrl+C in the
# terminal reaches the script, whose trap stops them.
fleet_start_instances() {
    local count="$1" base="$2" index port log identity=() audit=()
    shift 2
    local location="${FLEET_AUDIT-$FLEET_PG_URL}"
    [ -z "$location" ] || audit=(--audit "$location" --privacy metadata)
    if [ ${#FLEET_INSTANCE_PIDS[@]} -gt 0 ]; then
        fleet_say "instances already run: fleet_stop_instances first"
        return 1
    fi
    if [ ! -x "$FLEET_BIN" ]; then
        fleet_say "no toolkit-mcp binary at $FLEET_BIN (cargo build --release -p toolkit-mcp-cli)"
        return 1
    fi
    # --instance-id names the instance in OpenTelemetry's service.instance.id, where supported.
    if "$FLEET_BIN" --help 2>&1 | grep -q -- '--instance-id'; then identity=(--instance-id); fi
    mkdir -p "$FLEET_DIR"
    for ((index = 1; index <= count; index++)); do
        port=$((base + index))
        if fleet_port_busy "$port"; then
            fleet_say "port $port (instance i$index) is in use"
            return 1
        fi
        log="$FLEET_DIR/i$index.log"
        setsid "$FLEET_BIN" --http "$port" ${audit[@]+"${audit[@]}"} \
            ${identity[@]+"${identity[@]}" "i$index"} "$@" >"$log" 2>&1 &
        FLEET_INSTANCE_PIDS+=("$!")
        FLEET_INSTANCE_PORTS+=("$port")
    done
    for ((index = 0; index < count; index++)); do
        fleet_wait_serving "$FLEET_DIR/i$((index + 1)).log" "${FLEET_INSTANCE_PIDS[$index]}" || return 1
    done
}

# Stops a process: TERM, then KILL after 5 seconds.
fleet_kill() {
    local pid="$1" tries=0
    kill "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null && [ $tries -lt 50 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

fleet_stop_instances() {
    local pid
    for pid in ${FLEET_INSTANCE_PIDS[@]+"${FLEET_INSTANCE_PIDS[@]}"}; do fleet_kill "$pid"; done
    FLEET_INSTANCE_PIDS=()
    FLEET_INSTANCE_PORTS=()
}

# HAProxy on 127.0.0.1:PORT, round robin over the running instances: the template filled in
# (target/fleet/haproxy-PORT.cfg), checked, then run in the foreground of its own session.
fleet_start_haproxy() {
    local port="$1" config="$FLEET_DIR/haproxy-$1.cfg" servers="" index tries=0
    if fleet_port_busy "$port"; then
        fleet_say "port $port (the balancer) is in use"
        return 1
    fi
    for ((index = 0; index < ${#FLEET_INSTANCE_PORTS[@]}; index++)); do
        servers+="    server i$((index + 1)) 127.0.0.1:${FLEET_INSTANCE_PORTS[$index]}"$'\n'
    done
    mkdir -p "$FLEET_DIR"
    awk -v port="$port" -v servers="${servers%$'\n'}" \
        '{ gsub(/@PORT@/, port); if ($0 == "@SERVERS@") print servers; else print }' \
        scripts/haproxy.cfg.in >"$config"
    "$FLEET_HAPROXY" -c -q -f "$config" || { fleet_say "HAProxy refused $config"; return 1; }
    setsid "$FLEET_HAPROXY" -db -f "$config" >"$FLEET_DIR/haproxy.log" 2>&1 &
    FLEET_HAPROXY_PID=$!
    until fleet_port_busy "$port"; do
        if ! kill -0 "$FLEET_HAPROXY_PID" 2>/dev/null || [ $tries -ge 100 ]; then
            fleet_say "HAProxy did not start; its log ($FLEET_DIR/haproxy.log):"
            tail -n 20 "$FLEET_DIR/haproxy.log" >&2
            return 1
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
}

fleet_stop_haproxy() {
    if [ -n "$FLEET_HAPROXY_PID" ]; then fleet_kill "$FLEET_HAPROXY_PID"; fi
    FLEET_HAPROXY_PID=""
}

# Stops everything the functions above started. Never fails: it runs from EXIT traps.
fleet_stop() {
    fleet_stop_haproxy || true
    fleet_stop_instances || true
    fleet_pg_stop || true
}
