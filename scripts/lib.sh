# Shared helpers of the entry-point scripts. Sourced, not run.

TIDEPOOL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIDEPOOL_BUILD=${TIDEPOOL_BUILD:-$TIDEPOOL_ROOT/build}
TIDEPOOL_DATA=${TIDEPOOL_DATA:-$(cd "$TIDEPOOL_ROOT/.." && pwd)/shared/data}

# Debian packages the build and the tests need. One list, so that build and CI agree. qemu-user and the cross compilers
# build and run isabench for the cross-ISA slowdown (agents/crossisa); clang and libFuzzer build scripts/fuzz. The console
# (ui/, app/tidepool) needs Qt Widgets (qt6-base-dev), Qt Charts, Qt Linguist's CMake support and tools (lupdate,
# lrelease) and Qt's own catalogues (qtbase_zh_CN.qm). Reports: a CJK font for Chinese in PDFs (fonts-wqy-microhei;
# the console's screenshots use fonts-noto-cjk) and poppler-utils (pdftotext, pdftoppm) for their tests. The store's
# PostgreSQL backend links libpq (libpq-dev); its tests run against a throwaway server (postgresql, see below).
TIDEPOOL_PACKAGES=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-charts-dev qt6-tools-dev qt6-l10n-tools qt6-translations-l10n
  fonts-wqy-microhei poppler-utils
  libexpected-dev nlohmann-json3-dev
  libboost-dev libssl-dev openssl libsqlite3-dev libpq-dev postgresql
  qemu-user-static gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu
  iproute2
  clang-14 libfuzzer-14-dev
)

# Installs whichever of TIDEPOOL_PACKAGES is missing (as root, or through sudo when there is one).
tidepool_install_packages() {
  local missing=()
  for p in "${TIDEPOOL_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "tidepool: installing Debian packages: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
}

tidepool_build() {
  tidepool_install_packages
  local werror=OFF
  [ "${CI:-}" = "true" ] && werror=ON
  cmake -S "$TIDEPOOL_ROOT" -B "$TIDEPOOL_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTIDEPOOL_WERROR=$werror >&2
  cmake --build "$TIDEPOOL_BUILD" -j"$(nproc)" >&2
}

# Starts a throwaway PostgreSQL server for the store's PostgreSQL suites (tst_store_postgres, tst_history_postgres) and
# exports TIDEPOOL_TEST_POSTGRES, a connection string of it where they may create databases. The cluster lives in a
# temporary directory and listens on a Unix socket there only (no TCP port, so nothing else on the machine is
# touched or in the way); it needs neither systemd nor Debian's own cluster. initdb refuses to run as root, so as root
# the cluster belongs to the postgres user. Stop it with tidepool_stop_postgres (a trap).
tidepool_start_postgres() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ ! -x "$bin/initdb" ]; then
    echo "tidepool: no PostgreSQL server found (Debian package postgresql); the PostgreSQL store suites will fail" >&2
    return 1
  fi
  TIDEPOOL_PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tidepool-pg.XXXXXX")
  local as=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$TIDEPOOL_PG_DIR"
    as=(runuser -u postgres --)
  fi
  TIDEPOOL_PG_CTL=("${as[@]}" "$bin/pg_ctl")
  "${as[@]}" "$bin/initdb" -D "$TIDEPOOL_PG_DIR/data" -U tidepool -A trust -E UTF8 --no-locale >"$TIDEPOOL_PG_DIR/initdb.log" 2>&1 ||
    { cat "$TIDEPOOL_PG_DIR/initdb.log" >&2; return 1; }
  "${as[@]}" "$bin/pg_ctl" -D "$TIDEPOOL_PG_DIR/data" -l "$TIDEPOOL_PG_DIR/server.log" -w \
    -o "-c listen_addresses='' -k $TIDEPOOL_PG_DIR" start >/dev/null ||
    { cat "$TIDEPOOL_PG_DIR/server.log" >&2; return 1; }
  export TIDEPOOL_TEST_POSTGRES="host=$TIDEPOOL_PG_DIR dbname=postgres user=tidepool"
}

tidepool_stop_postgres() {
  [ -n "${TIDEPOOL_PG_DIR:-}" ] || return 0
  "${TIDEPOOL_PG_CTL[@]}" -D "$TIDEPOOL_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$TIDEPOOL_PG_DIR"
  TIDEPOOL_PG_DIR=
}
