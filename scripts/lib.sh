# Shared helpers of the entry-point scripts. Sourced, not run.

TIDEPOOL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIDEPOOL_BUILD=${TIDEPOOL_BUILD:-$TIDEPOOL_ROOT/build}
TIDEPOOL_DATA=${TIDEPOOL_DATA:-$(cd "$TIDEPOOL_ROOT/.." && pwd)/shared/data}

# Debian packages the build and the tests need. One list, so that build and CI agree. qemu-user and the cross compilers
# build and run isabench for the cross-ISA slowdown (agents/crossisa); clang and libFuzzer build scripts/fuzz. The console
# (ui/, app/tidepool) needs Qt Widgets (qt6-base-dev), Qt Charts, Qt Linguist's CMake support and tools (lupdate,
# lrelease) and Qt's own catalogues (qtbase_zh_CN.qm). Reports: a CJK font for Chinese in PDFs (fonts-wqy-microhei;
# the console's screenshots use fonts-noto-cjk) and poppler-utils (pdftotext, pdftoppm) for their tests.
TIDEPOOL_PACKAGES=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-charts-dev qt6-tools-dev qt6-l10n-tools qt6-translations-l10n
  fonts-wqy-microhei poppler-utils
  libexpected-dev nlohmann-json3-dev
  libboost-dev libssl-dev openssl libsqlite3-dev
  qemu-user-static gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu
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
