#!/usr/bin/env bash
# One entry point for a fresh Debian/Ubuntu machine:
#   bash run.sh chapter [render.py options]   set up if needed, render the chapter (1080p) into media/
#   bash run.sh test [pytest options]         set up if needed, run the test suite
#   bash run.sh lab [render.py lab options]   set up if needed, start the lab (a local web page per clip)
#   bash run.sh setup                         only set up
# Set-up installs missing system packages (apt-get, through sudo when not root)
# and the virtual environment .venv/ from requirements.txt; a second run only checks.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES="libcairo2-dev libpango1.0-dev pkg-config fonts-noto-cjk fonts-noto-core texlive-latex-base \
texlive-latex-extra texlive-latex-recommended texlive-fonts-recommended dvisvgm gcc espeak-ng chromium chromium-driver poppler-utils \
libreoffice-impress-nogui"

system_packages() {
  local missing=()
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
  python3 -c "import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" \
    || missing+=(python3-dev)
  [ ${#missing[@]} -eq 0 ] && return
  echo "Installing system packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

python_env() {
  local stamp=.venv/.requirements.sha256
  local want
  want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
  if [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return
  fi
  echo "Setting up .venv/ from requirements.txt"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install -q -r requirements.txt
  # the project itself, editable (pyproject.toml): `scenes` imports from any folder, plain `manim` runs too
  .venv/bin/pip install -q --no-deps --no-build-isolation -e .
  echo "$want" > "$stamp"
}

system_packages
python_env

command=${1:-chapter}
shift || true
case "$command" in
  chapter) exec .venv/bin/python render.py chapter --quality high --out media "$@" ;;
  test)    exec .venv/bin/python -m pytest "$@" ;;
  lab)     exec .venv/bin/python render.py lab "$@" ;;
  setup)   echo "Set-up complete." ;;
  *)       echo "usage: bash run.sh chapter|test|lab|setup" >&2; exit 2 ;;
esac
