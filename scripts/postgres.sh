# Sourced by scripts/test and scripts/pg-load: PostgreSQL for the tests.

# Installs Debian's PostgreSQL server when no /usr/lib/postgresql/*/bin/pg_ctl is there.
install_postgres() {
    if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
        echo "scripts: installing postgresql" >&2
        local sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
        $sudo apt-get update
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y postgresql
    fi
}

# Stops the server the tests started (its data folder is in target/postgres/data-path), if it runs.
stop_postgres() {
    local data pg_ctl
    data="$(cat target/postgres/data-path 2>/dev/null)" || return 0
    [ -f "$data/postmaster.pid" ] || return 0
    pg_ctl="$(ls -d /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1)"
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$pg_ctl" -D "$data" -m fast -w stop >/dev/null
    else
        "$pg_ctl" -D "$data" -m fast -w stop >/dev/null
    fi
}
