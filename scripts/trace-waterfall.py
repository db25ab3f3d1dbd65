"""Renders the spans `scripts/otlp-receiver.py` decoded (one JSON object a line) as a waterfall
HTML page: one row per span, children under their parent, a bar from its start to its end on
the trace's time line, and the attributes that say what it was.

Usage: trace-waterfall.py SPANS_FILE OUT_HTML. Our own renderer, not Jaeger's: it shows what
a real OTLP receiver decoded from our export, nothing more."""
import html
import json
import sys

# What a row shows beside the name, when the span has it.
SHOWN = [
    "gen_ai.tool.call.id",
    "gen_ai.request.model",
    "gen_ai.response.id",
    "gen_ai.response.finish_reasons",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.conversation.id",
    "server.address",
    "error.type",
]


def rows(spans):
    """The spans depth first, each child after its parent, siblings by start time."""
    ids = {span["span_id"] for span in spans}
    children = {}
    for span in spans:
        parent = span["parent_span_id"] if span["parent_span_id"] in ids else None
        children.setdefault(parent, []).append(span)
    out = []

    def walk(parent, depth):
        for span in sorted(children.get(parent, []), key=lambda s: s["start_ns"]):
            out.append((depth, span))
            walk(span["span_id"], depth + 1)

    walk(None, 0)
    return out


def label(span):
    parts = []
    for key in SHOWN:
        if key in span["attributes"]:
            found = span["attributes"][key]
            if isinstance(found, list):
                found = ",".join(str(v) for v in found)
            short = key.removeprefix("gen_ai.").removeprefix("usage.").removeprefix("response.")
            parts.append(f"{short}={found}")
    return " ".join(parts)


def main():
    spans = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    start = min(span["start_ns"] for span in spans)
    end = max(span["end_ns"] for span in spans)
    total = max(end - start, 1)
    lines = []
    for depth, span in rows(spans):
        left = 100 * (span["start_ns"] - start) / total
        width = max(100 * (span["end_ns"] - span["start_ns"]) / total, 0.3)
        took = (span["end_ns"] - span["start_ns"]) / 1e6
        failed = "error.type" in span["attributes"]
        lines.append(
            f'<tr><td class="name" style="padding-left:{8 + 18 * depth}px">'
            f'<b>{html.escape(span["name"])}</b> <span class="kind">{span["kind"]} · '
            f'{html.escape(span["service"] or "")}</span><br>'
            f'<span class="attrs">{html.escape(label(span))}</span></td>'
            f'<td class="lane"><div class="bar{" failed" if failed else ""}" '
            f'style="left:{left:.2f}%;width:{width:.2f}%"></div>'
            f'<span class="took" style="left:{min(left + width, 90):.2f}%">{took:.1f} ms</span></td></tr>'
        )
    trace = spans[0]["trace_id"]
    page = f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ font: 13px sans-serif; margin: 16px; color: #222; }}
h1 {{ font-size: 16px; margin: 0 0 4px; }} p {{ margin: 0 0 12px; color: #555; }}
table {{ border-collapse: collapse; width: 100%; }}
td {{ border-bottom: 1px solid #eee; padding: 4px 8px; vertical-align: middle; }}
td.name {{ width: 46%; }} .kind {{ color: #777; font-size: 11px; }}
.attrs {{ color: #555; font: 11px monospace; }}
td.lane {{ position: relative; }}
.bar {{ position: absolute; top: 35%; height: 30%; background: #4a7bd0; border-radius: 2px; }}
.bar.failed {{ background: #d04a4a; }}
.took {{ position: absolute; top: 22%; margin-left: 6px; padding: 0 3px; font-size: 11px; color: #333; background: #fff; }}
</style></head><body>
<h1>trace {trace} — {len(spans)} spans, {total / 1e6:.1f} ms</h1>
<p>Spans as a real OTLP receiver (scripts/otlp-receiver.py, the official opentelemetry-proto
package) decoded them from pi-tool's export, drawn by scripts/trace-waterfall.py (not Jaeger).
Red: error.type set.</p>
<table>{''.join(lines)}</table></body></html>"""
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(page)


main()
