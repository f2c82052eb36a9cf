# Sourced by scripts/test and scripts/pg-load: Debian packages, and PostgreSQL for the tests.

# Installs Debian packages (as root, or through sudo): one update for all of them.
apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "$@"
}

# Whether a PostgreSQL server must be installed: no TOOLKIT_PG_BIN (the tests' choice of
# binaries) and no Debian server (/usr/lib/postgresql/*/bin/pg_ctl).
postgres_missing() {
    [ -z "${TOOLKIT_PG_BIN:-}" ] && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1
}

# Installs Debian's PostgreSQL server when it is missing.
install_postgres() {
    if postgres_missing; then
        echo "scripts: installing postgresql" >&2
        apt_install postgresql
    fi
}

# Stops the server the tests started (its data folder is in target/postgres/data-path), if it
# runs, with the binaries the tests used. Never fails the script that calls it: it runs from an
# EXIT trap, after the tests have said what they had to say.
stop_postgres() {
    local data pg_ctl
    data="$(cat target/postgres/data-path 2>/dev/null)" || return 0
    [ -f "$data/postmaster.pid" ] || return 0
    if [ -n "${TOOLKIT_PG_BIN:-}" ]; then
        pg_ctl="$TOOLKIT_PG_BIN/pg_ctl"
    else
        pg_ctl="$(ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -n 1)" || return 0
    fi
    [ -x "$pg_ctl" ] || return 0
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$pg_ctl" -D "$data" -m fast -w stop >/dev/null
    else
        "$pg_ctl" -D "$data" -m fast -w stop >/dev/null
    fi || echo "scripts: could not stop the PostgreSQL server of $data" >&2
}
