"""A minimal OTLP/HTTP receiver for the telemetry tests: decodes each POST to /v1/traces with
the official opentelemetry-proto package and appends one JSON line per span to a file.

Usage: otlp-receiver.py PORT_FILE SPANS_FILE. Binds 127.0.0.1 on a free port and writes the
port to PORT_FILE once it listens."""
import http.server
import json
import sys

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/v1/traces":
            request = trace_service_pb2.ExportTraceServiceRequest()
            request.ParseFromString(body)
            with open(sys.argv[2], "a", encoding="utf-8") as out:
                for resource in request.resource_spans:
                    service = {a.key: value(a.value) for a in resource.resource.attributes}.get("service.name")
                    for scope in resource.scope_spans:
                        for span in scope.spans:
                            out.write(json.dumps({
                                "service": service,
                                "name": span.name,
                                "kind": KINDS.get(span.kind, str(span.kind)),
                                "trace_id": span.trace_id.hex(),
                                "span_id": span.span_id.hex(),
                                "parent_span_id": span.parent_span_id.hex(),
                                "attributes": {a.key: value(a.value) for a in span.attributes},
                                "start_ns": span.start_time_unix_nano,
                                "end_ns": span.end_time_unix_nano,
                            }) + "\n")
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w", encoding="utf-8") as port_file:
    port_file.write(str(server.server_address[1]))
server.serve_forever()
