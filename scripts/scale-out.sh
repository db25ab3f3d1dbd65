#!/usr/bin/env bash
# Past one machine, on one machine: three `pi-tool serve --http` processes behind HAProxy on
# loopback, MCP clients calling `echo` through it, one backend killed (SIGKILL) mid-run.
# Stateless mode first (any backend answers any request), then sessions with affinity by
# Mcp-Session-Id (a stick table), then sessions without affinity as the control.
# Installs HAProxy (Debian package) when missing. Not part of CI.
# Usage: scripts/scale-out.sh [CLIENTS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-16}" seconds="${2:-10}"
command -v haproxy >/dev/null || { apt-get install -y -q haproxy >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q haproxy >/dev/null; }; }
cargo build --release -q -p pi-cli --bin pi-tool
cargo build --release -q -p pi-bench --example scale_out
work="$(mktemp -d)"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
token="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run MODE AFFINITY: starts 3 backends and HAProxy, drives the clients, kills backend b midway.
run() {
  local mode="$1" affinity="$2" ports=() backends=() flags=()
  [ "$mode" = stateless ] && flags=(--stateless)
  for name in a b c; do
    local port; port="$(free_port)"; ports+=("$port")
    PI_TOOL_TOKEN="$token" target/release/pi-tool serve --http "127.0.0.1:$port" "${flags[@]}" 2>/dev/null &
    backends+=("$!"); pids+=("$!"); disown "$!"  # killed on purpose: no job notice
  done
  local lb; lb="$(free_port)"
  {
    echo "global"
    echo "  maxconn 4096"
    echo "defaults"
    echo "  mode http"
    echo "  timeout connect 1s"
    echo "  timeout client 30s"
    echo "  timeout server 30s"
    echo "  retries 3"
    echo "  option redispatch"
    echo "frontend mcp"
    echo "  bind 127.0.0.1:$lb"
    echo "  default_backend pi"
    echo "backend pi"
    echo "  balance roundrobin"
    # A live backend answers an unauthenticated request with 401: that is the health check.
    echo "  option httpchk GET /mcp"
    echo "  http-check expect status 401"
    echo "  default-server check inter 200ms fall 2 rise 2"
    if [ "$affinity" = yes ]; then
      echo "  stick-table type string len 64 size 100k expire 30m"
      echo "  stick store-response res.hdr(mcp-session-id)"
      echo "  stick match req.hdr(mcp-session-id)"
    fi
    for i in 0 1 2; do echo "  server ${i} 127.0.0.1:${ports[$i]}"; done
  } > "$work/haproxy.cfg"
  haproxy -f "$work/haproxy.cfg" -db >/dev/null 2>&1 &
  local proxy=$!; pids+=("$proxy"); disown "$proxy"
  sleep 1
  ( sleep "$(echo "$seconds * 0.4" | bc -l)"; kill -9 "${backends[1]}" ) &
  local killer=$!
  local label="$mode"; [ "$mode" = sessions ] && label="sessions, affinity $affinity"
  printf '| %s ' "$label"
  local status=0
  target/release/examples/scale_out "http://127.0.0.1:$lb/mcp" "$token" "$clients" "$seconds" || status=$?
  wait "$killer" 2>/dev/null || true
  kill "$proxy" "${backends[@]}" 2>/dev/null || true
  sleep 0.3
  return "$status"
}

echo "$clients clients, $seconds s per mode, 3 backends behind HAProxy, backend b killed at 40%"
echo
echo "| mode | answered | calls/s | p50 ms | p99 ms | retries | reconnects | lost | crossed |"
echo "|---|---|---|---|---|---|---|---|---|"
failed=0
run stateless no || failed=1
run sessions yes || failed=1
# The control: sessions spread over backends that do not share them.
run sessions no || true
exit "$failed"
