"""An OTLP/HTTP trace receiver for the tests: decodes every export with the official protobuf
definitions (opentelemetry-proto) and appends it, as JSON, one line per request, to the file
given as the first argument; the raw request bodies go to the same path with `.raw`. Prints the
port it listens on (127.0.0.1), then serves until killed."""

import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

OUT = sys.argv[1]


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        with open(OUT + ".raw", "ab") as raw:
            raw.write(body)
        with open(OUT, "a", encoding="utf-8") as out:
            out.write(json.dumps({"path": self.path, "request": MessageToDict(request)}) + "\n")
        reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Receiver)
print(server.server_address[1], flush=True)
server.serve_forever()
