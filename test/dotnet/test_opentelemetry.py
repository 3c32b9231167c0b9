"""Zero-code OpenTelemetry export (plugins/tracer/opentelemetry) in the real runtime: an HTTP
server on HttpListener and its client on HttpClient (test/dotnet/otelshop), two processes on
127.0.0.1, both run under clrie with the tracer plugin and the
factory Clrie.Tracing.OpenTelemetry.SpanFactory, installed as clrie installs them
(Tracer/OpenTelemetry/ beside the plugin), configured by OTEL_* variables only. The spans go
over OTLP/HTTP (protobuf) to a receiver this script runs, which decodes them by hand:

  - both processes' spans are ONE trace (traceparent went from HttpClient to the server);
  - each span's parent: Shop.Run <- Shop.Fetch <- the HttpClient request (kind Client, source
    System.Net.Http) <- Store.Handle (kind Server, in the other process) <- Store.Lookup, and
    Shop.Fetch <- Shop.Check;
  - names (Type.Method), code.* attributes, the Error status and the exception event where the
    second request threw (Lookup and Handle in the server, Check in the client);
  - service.name from OTEL_SERVICE_NAME per process (over OTEL_RESOURCE_ATTRIBUTES, whose
    other attributes arrive);
  - the client's spans arrive although its OTEL_BSP_SCHEDULE_DELAY is a minute: the flush at
    the process's exit sends them; the server exports every 200 ms, and the SDK's own
    requests (HttpClient's, like the app's) are no spans;
  - both apps' output and exit code are those they have without clrie;
  - the server starts the exporter before Main (DOTNET_STARTUP_HOOKS names the library too),
    the client at its first traced call.

Then again with OTEL_TRACES_SAMPLER=always_off: no span is exported, the apps unchanged.

On .NET 8 and 9 (CLRIE_TEST_RUNTIME), whose DiagnosticSource is older than the one the SDK
needs, the SDK runs in a load context of its own (plugins/tracer/opentelemetry/Bridge.cs): the
same checks hold.

Usage: test_opentelemetry.py --engine SO --plugin SO --library DLL --config FILE
                             --otel DLL --apps-out DIR [--keep] [--verbose]
Exit: 0 all passed, 1 a check failed, 77 no dotnet on this machine."""
import argparse
import functools
import gzip
import http.server
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dotnet_apps  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OTEL_PROJECT = os.path.join(HERE, "..", "..", "plugins", "tracer", "opentelemetry",
                            "Clrie.Tracing.OpenTelemetry.csproj")
FOLDER_VARIABLE = "CLRIE_SETTING_1DACE3F14BE947BAAB0894AF32E0BDCC_Folder"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--engine", required=True, help="the built libInstrumentationEngine.so")
parser.add_argument("--plugin", required=True, help="the built libclrie-tracer.so")
parser.add_argument("--library", required=True, help="the built Clrie.Tracing.dll")
parser.add_argument("--config", required=True, help="the built Tracer.config")
parser.add_argument("--otel", required=True,
                    help="the built Clrie.Tracing.OpenTelemetry.dll, its assemblies beside it")
parser.add_argument("--apps-out", required=True, help="where the C# apps are built")
parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
parser.add_argument("--verbose", action="store_true", help="print both apps' stderr")
args = parser.parse_args()
dotnet, checks = dotnet_apps.start(args, ("engine", "plugin", "library", "config", "otel"),
                                   folders=("apps_out",))
if os.environ.get(dotnet_apps.RID_VARIABLE):
    print("%s=%s: this test runs on this machine's architecture only: skipped" % (
        dotnet_apps.RID_VARIABLE, os.environ[dotnet_apps.RID_VARIABLE]))
    sys.exit(dotnet_apps.SKIP)
started = time.monotonic()
args.library = dotnet_apps.tracing_library(dotnet, args.library, args.apps_out)
if dotnet_apps.test_runtime():
    # The factory built for the runtime under test, as Clrie.Tracing is (and as a user of
    # .NET 8 or 9 builds it: docs/tracers.md).
    args.otel = dotnet_apps.build_library(dotnet, OTEL_PROJECT, "Clrie.Tracing.OpenTelemetry",
                                          args.apps_out, ["ClrieTracing=" + args.library])
    print("Clrie.Tracing.OpenTelemetry.dll built for .NET %s: %s" % (
        dotnet_apps.test_runtime(), args.otel), flush=True)


# ---- a minimal protobuf reader and the OTLP trace messages -----------------------------------

def fields(data):
    """The (number, value) pairs of a protobuf message: varints and fixed as ints, the
    length-delimited ones as bytes."""
    i = 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 1:
            value, i = struct.unpack_from("<Q", data, i)[0], i + 8
        elif wire == 5:
            value, i = struct.unpack_from("<I", data, i)[0], i + 4
        elif wire == 2:
            length, i = varint(data, i)
            value, i = data[i:i + length], i + length
            if i > len(data):
                raise ValueError("a field runs past the message")
        else:
            raise ValueError("wire type %d" % wire)
        yield number, value


def varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


def any_value(data):
    for number, value in fields(data):
        if number == 1:
            return value.decode()
        if number == 2:
            return bool(value)
        if number == 3:
            return value - (1 << 64) if value >= 1 << 63 else value
        if number == 4:
            return struct.unpack("<d", struct.pack("<Q", value))[0]
        return value
    return None


def attributes(pairs):
    """KeyValue messages (field numbers already chosen) as a dict."""
    out = {}
    for data in pairs:
        key = value = None
        for number, v in fields(data):
            if number == 1:
                key = v.decode()
            elif number == 2:
                value = any_value(v)
        out[key] = value
    return out


KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer",
         5: "consumer"}
STATUSES = {0: "unset", 1: "ok", 2: "error"}


def span(data, service, scope):
    s = {"service": service, "scope": scope, "parent": "", "kind": "unspecified",
         "status": "unset", "events": [], "start": 0, "end": 0}
    attrs = []
    for number, value in fields(data):
        if number == 1:
            s["trace"] = value.hex()
        elif number == 2:
            s["id"] = value.hex()
        elif number == 4:
            s["parent"] = value.hex()
        elif number == 5:
            s["name"] = value.decode()
        elif number == 6:
            s["kind"] = KINDS.get(value, str(value))
        elif number == 7:
            s["start"] = value
        elif number == 8:
            s["end"] = value
        elif number == 9:
            attrs.append(value)
        elif number == 11:
            event = {"attributes": []}
            for n, v in fields(value):
                if n == 2:
                    event["name"] = v.decode()
                elif n == 3:
                    event["attributes"].append(v)
            event["attributes"] = attributes(event["attributes"])
            s["events"].append(event)
        elif number == 15:
            for n, v in fields(value):
                if n == 3:
                    s["status"] = STATUSES.get(v, str(v))
    s["attributes"] = attributes(attrs)
    return s


def export_request(data):
    """An ExportTraceServiceRequest: its spans, and each resource's attributes."""
    spans, resources = [], []
    for number, resource_spans in fields(data):
        if number != 1:
            continue
        resource, scopes = {}, []
        for n, v in fields(resource_spans):
            if n == 1:
                resource = attributes(kv for m, kv in fields(v) if m == 1)
            elif n == 2:
                scopes.append(v)
        resources.append(resource)
        for scope_spans in scopes:
            scope = ""
            for n, v in fields(scope_spans):
                if n == 1:
                    scope = next((x.decode() for m, x in fields(v) if m == 1), "")
            for n, v in fields(scope_spans):
                if n == 2:
                    spans.append(span(v, resource.get("service.name"), scope))
    return spans, resources


class Receiver(http.server.ThreadingHTTPServer):
    """An OTLP/HTTP receiver on 127.0.0.1: every POST's path, content type and spans."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), ReceiverHandler)
        self.lock = threading.Lock()
        self.posts = []
        self.spans = []
        self.resources = []
        self.errors = []


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        server = self.server
        with server.lock:
            server.posts.append((self.path, self.headers.get("Content-Type")))
            try:
                spans, resources = export_request(body)
                server.spans.extend(spans)
                server.resources.extend(resources)
            except (ValueError, IndexError, UnicodeDecodeError) as error:
                server.errors.append("%s: %r" % (error, body[:200]))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *arguments):
        pass


# ---- the two apps ----------------------------------------------------------------------------

POINTS = """<Tracing>
  <Tracer factory="Clrie.Tracing.OpenTelemetry.SpanFactory"
          library="../Tracer/OpenTelemetry/Clrie.Tracing.OpenTelemetry.dll">
    <Method assembly="otelshop" type="OtelShop.Shop" name="Run"/>
    <Method assembly="otelshop" type="OtelShop.Shop" name="Fetch"/>
    <Method assembly="otelshop" type="OtelShop.Shop" name="Check"/>
    <Method assembly="otelshop" type="OtelShop.Store" name="Handle"/>
    <Method assembly="otelshop" type="OtelShop.Store" name="Lookup"/>
  </Tracer>
</Tracing>
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_pair(app, env_of=None):
    """Starts the server, waits for its 'listening', runs the client against it, waits for the
    server to exit. env_of(role): the variables of that process under clrie, or None without
    a profiler. Returns (server result, client result)."""
    port = str(free_port())

    def environment(role):
        env = dotnet_apps.quiet_environment()
        if env_of:
            env.update(CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=dotnet_apps.PROFILER_CLSID,
                       CORECLR_PROFILER_PATH=args.engine)
            env.update(env_of(role))
        return env

    server = subprocess.Popen(dotnet_apps.app_command(dotnet, app) + ["server", port, "2"],
                              env=environment("server"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        client = subprocess.run(dotnet_apps.app_command(dotnet, app) + ["client", port],
                                env=environment("client"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, timeout=120)
        rest, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    return subprocess.CompletedProcess(server.args, server.returncode, first + rest, err), client


apps = dotnet_apps.Apps(dotnet, args.apps_out)


@functools.lru_cache(maxsize=None)
def baseline():
    """The app and its two processes' results without clrie, run once."""
    app = apps.app("otelshop")
    base_server, base_client = run_pair(app)
    checks.expect(base_client.stdout == "/item/1: apple\n/item/2: error 500\n",
                  "the client's answers without clrie", base_client)
    checks.expect(base_server.stdout == "listening\nserved /item/1\n"
                  "failed /item/2: no item at /item/2\n", "the server's output without clrie",
                  base_server)
    return app, base_server, base_client


def scenario(sampler):
    """Both processes under clrie with OTEL_TRACES_SAMPLER=sampler."""
    app, base_server, base_client = baseline()
    sb = dotnet_apps.Sandbox("clrie-otel", sampler, keep=args.keep)
    receiver = Receiver()
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    try:
        sb.copy(args.plugin, "Tracer/libclrie-tracer.so")
        library = sb.copy(args.library, "Tracer/Clrie.Tracing.dll", mode=0o644)
        config = sb.copy(args.config, "Tracer/Tracer.config", mode=0o644)
        otel_folder = os.path.dirname(args.otel)
        for name in sorted(os.listdir(otel_folder)):
            if name.endswith(".dll") and name != "Clrie.Tracing.dll":
                sb.copy(os.path.join(otel_folder, name), "Tracer/OpenTelemetry/" + name,
                        mode=0o644)
        sb.write("points/otel.xml", POINTS)
        endpoint = "http://127.0.0.1:%d" % receiver.server_address[1]

        def env_of(role):
            return {
                dotnet_apps.CONFIG_VAR + "Tracer": config,
                FOLDER_VARIABLE: sb.path("points"),
                # the server starts the exporter before Main (the library's startup hook),
                # the client at its first traced call
                "DOTNET_STARTUP_HOOKS": library if role == "client" else
                library + os.pathsep + sb.path("Tracer/OpenTelemetry/Clrie.Tracing.OpenTelemetry.dll"),
                "OTEL_SERVICE_NAME": "shop-" + role,
                "OTEL_RESOURCE_ATTRIBUTES": "service.name=overridden,deployment.environment=test",
                "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
                "OTEL_TRACES_SAMPLER": sampler,
                # The client exports nothing on a timer: only the flush at its exit sends its
                # spans. The server exports every 200 ms: the first request's spans while the
                # client pauses, with HttpClient, whose spans would show at the exit's flush.
                "OTEL_BSP_SCHEDULE_DELAY": "60000" if role == "client" else "200",
            }

        pair_started = time.monotonic()
        server, client = run_pair(app, env_of)
        print("   both apps ran in %.1f s under clrie" % (time.monotonic() - pair_started))
        if args.verbose:
            for what, result in (("server", server), ("client", client)):
                print("  [%s] exit %d, stderr:\n%s" % (what, result.returncode, "\n".join(
                    "    " + line for line in result.stderr.splitlines())))
        checks.same_as_baseline("client", client, base_client, stderr="contained")
        checks.same_as_baseline("server", server, base_server, stderr="contained")
        with receiver.lock:
            spans, posts, resources = list(receiver.spans), list(receiver.posts), \
                list(receiver.resources)
            checks.expect(not receiver.errors, "every export decodes", seen=receiver.errors)
        for resource in resources:
            checks.expect(resource.get("service.name") in ("shop-client", "shop-server") and
                          resource.get("deployment.environment") == "test",
                          "service.name from OTEL_SERVICE_NAME, the other attributes from "
                          "OTEL_RESOURCE_ATTRIBUTES", seen=resource)
        print("   %d export requests" % len(posts))
        if sampler == "always_off":
            checks.expect(not spans, "always_off: no span exported", seen=spans)
            return
        checks.expect(posts and all(p == ("/v1/traces", "application/x-protobuf")
                                    for p in posts),
                      "OTLP/HTTP protobuf posts to /v1/traces", seen=posts)
        check_spans(spans)
    finally:
        receiver.shutdown()
        receiver.server_close()
        sb.close()


def check_spans(spans):
    def show(s):
        return "%s %s/%s %s parent=%s trace=%s %s" % (s["service"], s["scope"], s["name"],
                                                     s["kind"], s["parent"][:8],
                                                     s["trace"][:8], s["status"])
    print("   %d spans:" % len(spans))
    for s in spans:
        print("     " + show(s))
    seen = [show(s) for s in spans]

    def named(service, name):
        return [s for s in spans if s["service"] == service and s["name"] == name]

    by_id = {s["id"]: s for s in spans}
    traces = {s["trace"] for s in spans}
    checks.expect(len(traces) == 1, "one trace across both processes", seen=seen)
    run = named("shop-client", "OtelShop.Shop.Run")
    fetch = named("shop-client", "OtelShop.Shop.Fetch")
    check = named("shop-client", "OtelShop.Shop.Check")
    requests = [s for s in spans if s["service"] == "shop-client" and
                s["scope"] == "System.Net.Http"]
    handle = named("shop-server", "OtelShop.Store.Handle")
    lookup = named("shop-server", "OtelShop.Store.Lookup")
    if not checks.expect((len(run), len(fetch), len(check), len(requests), len(handle),
                          len(lookup)) == (1, 2, 2, 2, 2, 2) and len(spans) == 11,
                         "the spans: Run once, and Fetch, Check, the HTTP request, Handle, "
                         "Lookup twice", seen=seen):
        return

    def parent(s):
        return by_id.get(s["parent"])

    run = run[0]
    checks.expect(run["parent"] == "" and run["kind"] == "internal", "Shop.Run is the root",
                  seen=show(run))
    for s in fetch:
        checks.expect(parent(s) is run and s["kind"] == "internal",
                      "Shop.Fetch's parent is Shop.Run", seen=show(s))
    for s in check:
        checks.expect(parent(s) in fetch, "Shop.Check's parent is a Shop.Fetch", seen=show(s))
    for s in requests:
        checks.expect(parent(s) in fetch and s["kind"] == "client",
                      "the HttpClient request's span: kind client, its parent a Shop.Fetch",
                      seen=show(s))
    for s in handle:
        checks.expect(parent(s) in requests and s["kind"] == "server",
                      "Store.Handle: kind server, its parent the client's request span (the "
                      "traceparent the server got)", seen=show(s))
    for s in lookup:
        checks.expect(parent(s) in handle and s["kind"] == "internal",
                      "Store.Lookup's parent is a Store.Handle", seen=show(s))
    # one request each: Fetch -> request -> Handle -> Lookup, and Fetch -> Check
    chains = sorted((parent(parent(h))["id"], h["status"], l_["status"])
                    for h in handle for l_ in lookup if parent(l_) is h)
    checks.expect(sorted(parent(parent(h))["id"] for h in handle) == sorted(f["id"] for f in fetch)
                  and sorted(parent(c)["id"] for c in check) == sorted(f["id"] for f in fetch),
                  "each Shop.Fetch has one request, one Handle and one Check", seen=chains)
    statuses = sorted(s["status"] for s in handle), sorted(s["status"] for s in lookup), \
        sorted(s["status"] for s in check)
    checks.expect(statuses == (["error", "unset"],) * 3,
                  "one Handle, one Lookup and one Check end in error, the others unset",
                  seen=statuses)
    # Fetch is async: its span ends when its task completes (IAsyncTracer), so the second one
    # ends in error, after its awaited request and Check
    checks.expect(sorted(s["status"] for s in fetch) == ["error", "unset"] and
                  run["status"] == "unset", "Run unset, one Fetch unset and the other in error "
                  "(its task faulted after the awaits)", seen=[show(s) for s in fetch + [run]])
    checks.expect(all(f["end"] >= c["end"] for f in fetch for c in check if parent(c) is f),
                  "each Shop.Fetch ends after its awaited Shop.Check",
                  seen=[show(s) for s in fetch + check])
    failed = [s for s in lookup + handle + check if s["status"] == "error"]
    expected_types = {"OtelShop.Store.Lookup": "System.Collections.Generic.KeyNotFoundException",
                      "OtelShop.Store.Handle": "System.Collections.Generic.KeyNotFoundException",
                      "OtelShop.Shop.Check": "System.Net.Http.HttpRequestException"}
    for s in failed:
        events = [e for e in s["events"] if e.get("name") == "exception"]
        checks.expect(len(events) == 1 and
                      events[0]["attributes"].get("exception.type") == expected_types[s["name"]]
                      and events[0]["attributes"].get("exception.message"),
                      "%s in error: one exception event with its type and message" % s["name"],
                      seen=s["events"])
    for s in run, *fetch, *check, *handle, *lookup:
        method = s["name"].rsplit(".", 1)
        checks.expect(s["scope"] == "Clrie.Tracing.OpenTelemetry" and
                      s["attributes"].get("code.namespace") == method[0] and
                      s["attributes"].get("code.function") == method[1] and
                      s["attributes"].get("code.function.name") == s["name"],
                      "%s: its scope and code.* attributes" % s["name"], seen=s["attributes"])
    for s in handle:
        checks.expect(s["attributes"].get("http.request.method") == "GET" and
                      s["attributes"].get("url.path") in ("/item/1", "/item/2"),
                      "Store.Handle: the request's method and path", seen=s["attributes"])


dotnet_apps.run_scenarios(checks, [
    ("pair", "pair: a client and a server under clrie, spans exported over OTLP",
     lambda: scenario("parentbased_always_on")),
    ("off", "off: the same with OTEL_TRACES_SAMPLER=always_off, nothing exported",
     lambda: scenario("always_off")),
], {"pair", "off"})
print("   %.1f s in all" % (time.monotonic() - started))
sys.exit(checks.finish("two processes under clrie exported one trace over OTLP"))
