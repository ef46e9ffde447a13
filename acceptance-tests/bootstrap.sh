#!/usr/bin/env bash
# Create or refresh the acceptance-test venv and put the `terraform` shim in its bin.
# Idempotent: pip runs only when requirements.txt changed (sha256 stamp in the venv).
#   venv: ${HYPERPOD_VENV:-$HOME/.cache/terraform-provider-hyperpod/venv}
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${HYPERPOD_VENV:-$HOME/.cache/terraform-provider-hyperpod/venv}"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '' 2>/dev/null \
    && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  state="up to date"
else
  # Debian's python3 ships venv without ensurepip unless python3-venv is installed.
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  # --clear: a venv whose interpreter vanished or whose pins changed is rebuilt from scratch.
  python3 -m venv --clear "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" >"$stamp"
  state="installed"
fi

# Always (cheap): keeps the shim current and bound to this venv's python.
sed "1s|.*|#!$venv/bin/python|" "$here/tools/terraform" >"$venv/bin/terraform.tmp"
chmod 0755 "$venv/bin/terraform.tmp"
mv "$venv/bin/terraform.tmp" "$venv/bin/terraform"

echo "bootstrap: venv $state at $venv ($("$venv/bin/terraform" version 2>/dev/null | head -1))"
