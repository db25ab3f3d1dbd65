"""A minimal OTLP receiver for the telemetry tests: decodes each export with the official
opentelemetry-proto package and appends one JSON line per span to a file, and one per metric
to another when asked.

Usage: otlp-receiver.py [--grpc] [--metrics METRICS_FILE] PORT_FILE SPANS_FILE. Binds
127.0.0.1 on a free port and writes the port to PORT_FILE once it listens. Without --grpc it
takes OTLP/HTTP (protobuf POSTs to /v1/traces and /v1/metrics); with it, OTLP/gRPC through the
TraceService and MetricsService stubs opentelemetry-proto ships (served by grpcio)."""
import argparse
import http.server
import json
import threading

from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}

parser = argparse.ArgumentParser()
parser.add_argument("--grpc", action="store_true")
parser.add_argument("--metrics")
parser.add_argument("port_file")
parser.add_argument("spans_file")
args = parser.parse_args()
# grpcio serves from a pool of threads: one write at a time.
write_lock = threading.Lock()


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def service_name(resource):
    return {a.key: value(a.value) for a in resource.attributes}.get("service.name")


def record_spans(request):
    lines = []
    for resource in request.resource_spans:
        service = service_name(resource.resource)
        for scope in resource.scope_spans:
            for span in scope.spans:
                lines.append(json.dumps({
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
    append(args.spans_file, lines)


def record_metrics(request):
    if not args.metrics:
        return
    lines = []
    for resource in request.resource_metrics:
        service = service_name(resource.resource)
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                data = metric.WhichOneof("data")
                points = getattr(metric, data).data_points if data else []
                lines.append(json.dumps({
                    "service": service,
                    "name": metric.name,
                    "unit": metric.unit,
                    "type": data,
                    "count": sum(getattr(p, "count", 0) for p in points),
                }) + "\n")
    append(args.metrics, lines)


def append(path, lines):
    with write_lock, open(path, "a", encoding="utf-8") as out:
        out.writelines(lines)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/v1/traces":
            request = trace_service_pb2.ExportTraceServiceRequest()
            request.ParseFromString(body)
            record_spans(request)
        elif self.path == "/v1/metrics":
            request = metrics_service_pb2.ExportMetricsServiceRequest()
            request.ParseFromString(body)
            record_metrics(request)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


def serve_http():
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    write_port(server.server_address[1])
    server.serve_forever()


def serve_grpc():
    from concurrent import futures

    import grpc
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc

    class Traces(trace_service_pb2_grpc.TraceServiceServicer):
        def Export(self, request, context):
            record_spans(request)
            return trace_service_pb2.ExportTraceServiceResponse()

    class Metrics(metrics_service_pb2_grpc.MetricsServiceServicer):
        def Export(self, request, context):
            record_metrics(request)
            return metrics_service_pb2.ExportMetricsServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Traces(), server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(Metrics(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    write_port(port)
    server.wait_for_termination()


def write_port(port):
    with open(args.port_file, "w", encoding="utf-8") as port_file:
        port_file.write(str(port))


if args.grpc:
    serve_grpc()
else:
    serve_http()
