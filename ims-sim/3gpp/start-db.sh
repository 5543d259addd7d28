#!/usr/bin/env bash
# start-db.sh <rundir> — a private MariaDB for the I-CSCF: creates <rundir>/data on first use,
# then execs mariadbd in the foreground on <addr>:3306 (and a socket in <rundir>). --init-file
# (re)creates database icscf with Kamailio's I-CSCF schema, user icscf/icscf, the S-CSCF list
# (s_cscf: sip:scscf.<domain>:6060) and the trusted domain. The system's MariaDB is not touched.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"
rundir="${1:-}"
[ -n "$rundir" ] || { echo "usage: $0 <rundir>" >&2; exit 2; }
SCHEMA=/usr/share/doc/kamailio/examples/ims/icscf/icscf.sql
command -v mariadbd >/dev/null || { echo "mariadbd missing: apt-get install mariadb-server" >&2; exit 2; }
[ -f "$SCHEMA" ] || { echo "$SCHEMA missing: apt-get install kamailio-ims-modules" >&2; exit 2; }
mkdir -p "$rundir"
rundir="$(cd "$rundir" && pwd)"
# a few MB instead of MariaDB's 100 MB redo log: three tables of a handful of rows
SMALL="--innodb-log-file-size=4M --innodb-data-file-path=ibdata1:4M:autoextend"
if [ ! -d "$rundir/data/mysql" ]; then
  mariadb-install-db --no-defaults --datadir="$rundir/data" --user="$(id -un)" $SMALL \
    --auth-root-authentication-method=socket --skip-test-db >"$rundir/install.log" 2>&1 \
    || { echo "mariadb-install-db failed, see $rundir/install.log" >&2; exit 1; }
fi
{
  echo "DROP DATABASE IF EXISTS icscf;"
  echo "CREATE DATABASE icscf;"
  echo "USE icscf;"
  # the schema as single-line statements (the init file is read statement by statement)
  grep -v '^--' "$SCHEMA" | tr '\n' ' ' | sed 's/;/;\n/g' | sed 's/^ *//' | grep -v '^ *$'
  echo "INSERT INTO s_cscf (id, name, s_cscf_uri) VALUES (1, 'scscf', 'sip:scscf.$IMS3_DOMAIN:$IMS3_SCSCF_PORT');"
  echo "INSERT INTO s_cscf_capabilities (id, id_s_cscf, capability) VALUES (1, 1, 0);"
  echo "INSERT INTO nds_trusted_domains (id, trusted_domain) VALUES (1, '$IMS3_DOMAIN');"
  echo "CREATE USER IF NOT EXISTS 'icscf'@'%' IDENTIFIED BY 'icscf';"
  echo "CREATE USER IF NOT EXISTS 'icscf'@'localhost' IDENTIFIED BY 'icscf';"
  echo "GRANT ALL ON icscf.* TO 'icscf'@'%';"
  echo "GRANT ALL ON icscf.* TO 'icscf'@'localhost';"
} > "$rundir/init.sql"
exec mariadbd --no-defaults --datadir="$rundir/data" --user="$(id -un)" \
  --bind-address="$IMS3_ADDR" --port="$IMS3_DB_PORT" --socket="$rundir/mysqld.sock" \
  --pid-file="$rundir/mysqld.pid" --init-file="$rundir/init.sql" --skip-name-resolve \
  $SMALL --innodb-buffer-pool-size=16M --key-buffer-size=1M --performance-schema=OFF --log-error=
