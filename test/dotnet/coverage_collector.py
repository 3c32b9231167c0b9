"""A fake of the collector of Microsoft.CodeCoverage, enough for Microsoft's coverage plugin
(libCoverageInstrumentationMethod.so, Microsoft.CodeCoverage 18.11.0) to instrument methods
it is told about, so that a test can load that plugin, which was built for CLRIE by someone
else, into clrie and into CLRIE and compare what it did.

What the plugin expects was found with strings, objdump and strace on the plugin, and with
reflection over the message classes of the package's Microsoft.CodeCoverage.Core.dll
(docs/testing.md has the whole account):

- Environment: CODE_COVERAGE_PIPE_PATH, the path of a Unix stream socket the collector
  listens on (unset: the plugin's Initialize calls strncpy on NULL and the process dies with
  SIGSEGV, under either engine); CODE_COVERAGE_DATA_PREFIX, the prefix of the module data
  files; CODE_COVERAGE_FLAGS, a decimal number (1 dynamic instrumentation, 2 skip engine
  initialisation, 4 skip the socket, 8 probe blocks already covered, 16 library mode).
- Framing: each message is a little-endian u32 length, then the message: a u16 tag
  (ControlMessageTag) and its fields, little-endian. Strings of the module messages are a u16
  count of UTF-16 code units and the units.
- Initialize: the plugin connects and sends InitializeClient (tag 12: u32 schema version 1, u32
  process ID, two empty strings, a bool); the collector answers InitializeClientResponse (tag
  13: bool coverage enabled, u32 timeout, an empty string).
- Each module load: the plugin first opens `<prefix>d<MVID>` (the MVID in lower case with
  dashes); when it is missing it sends LoadModuleData (tag 14: the module's path, its MVID as
  16 bytes) and waits for InstrumentedModule (tag 15: an empty string and a u32 size), then
  opens that file again; size 0 means the module is not instrumented.
- The module data file: u16 1 (instrumented; 2 skipped), u32 the file's size, then for each
  method InstrumentedFunction (tag 16: u32 MethodDef token, u32 offset of its first counter,
  u16 block count, and per block an i32: how many of the method's original instructions the
  block holds), then InstrumentedModule (tag 15: the path of the counter file, u32 its size).
- The counters: the plugin maps the counter file read-write and puts a probe
  `ldc.i8 <address of the block's counter>; ldc.i4.1; stind.i1` before the first instruction
  of each block; a byte of the file is 1 once its block ran.

Test code: it plays the collector for one process at a time."""
import os
import socket
import struct
import threading
import uuid

INITIALIZE_CLIENT, INITIALIZE_CLIENT_RESPONSE = 12, 13
LOAD_MODULE_DATA, INSTRUMENTED_MODULE, INSTRUMENTED_FUNCTION = 14, 15, 16


def utf16(text):
    units = text.encode("utf-16-le")
    return struct.pack("<H", len(units) // 2) + units


class Collector:
    """Listens in `folder` for one process at a time. `plan` maps a module's file name to its
    methods: [(name, MethodDef token, [instructions per block]), ...]; modules not in it are
    not instrumented. After the process ended, counters() tells which blocks ran."""

    def __init__(self, folder, plan):
        self.folder = folder
        self.plan = plan
        self.socket_path = os.path.join(folder, "collector.sock")
        self.prefix = os.path.join(folder, "coverage-")
        self.requests = []  # (tag, fields) of each message the plugin sent
        self.layout = {}  # module file name -> (counter file, {method name: (first, count)})
        self.errors = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.socket_path)
        self.server.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def environment(self):
        return {"CODE_COVERAGE_PIPE_PATH": self.socket_path,
                "CODE_COVERAGE_DATA_PREFIX": self.prefix}

    def close(self):
        try:
            self.server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.server.close()
        self.thread.join(timeout=5)

    def counters(self, module):
        """{method name: [0 or 1 per block]} of a module in the plan, {} when the plugin never
        asked for it."""
        if module not in self.layout:
            return {}
        path, methods = self.layout[module]
        with open(path, "rb") as f:
            data = f.read()
        return {name: list(data[first:first + count]) for name, (first, count) in
                methods.items()}

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with connection:
                try:
                    while self._answer(connection):
                        pass
                except (OSError, struct.error, ValueError) as error:
                    self.errors.append("the exchange failed: %s" % error)

    def _receive(self, connection, size):
        data = b""
        while len(data) < size:
            chunk = connection.recv(size - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def _send(self, connection, tag, body):
        message = struct.pack("<H", tag) + body
        connection.sendall(struct.pack("<I", len(message)) + message)

    def _answer(self, connection):
        header = self._receive(connection, 4)
        if header is None:
            return False
        message = self._receive(connection, struct.unpack("<I", header)[0])
        if message is None:
            return False
        tag = struct.unpack_from("<H", message)[0]
        if tag == INITIALIZE_CLIENT:
            version, pid = struct.unpack_from("<II", message, 2)
            self.requests.append((tag, {"schema": version, "pid": pid}))
            self._send(connection, INITIALIZE_CLIENT_RESPONSE, struct.pack("<BIH", 1, 0, 0))
        elif tag == LOAD_MODULE_DATA:
            units = struct.unpack_from("<H", message, 2)[0]
            path = message[4:4 + 2 * units].decode("utf-16-le")
            mvid = uuid.UUID(bytes_le=message[4 + 2 * units:20 + 2 * units])
            self.requests.append((tag, {"path": path, "mvid": str(mvid)}))
            size = self._write_module_data(os.path.basename(path), mvid)
            self._send(connection, INSTRUMENTED_MODULE, utf16("") + struct.pack("<I", size))
        else:
            self.requests.append((tag, {"bytes": message.hex()}))
            self.errors.append("unexpected message with tag %d" % tag)
            return False
        return True

    def _write_module_data(self, module, mvid):
        """Writes the module data and counter files of a planned module; their size, 0 for a
        module not in the plan."""
        if module not in self.plan:
            return 0
        counter_path = self.prefix + "counters-" + module
        body = b""
        methods = {}
        first = 0
        for name, token, blocks in self.plan[module]:
            body += struct.pack("<HIIH", INSTRUMENTED_FUNCTION, token, first, len(blocks))
            body += struct.pack("<%di" % len(blocks), *blocks)
            methods[name] = (first, len(blocks))
            first += len(blocks)
        body += struct.pack("<H", INSTRUMENTED_MODULE) + utf16(counter_path)
        body += struct.pack("<I", first)
        data = struct.pack("<HI", 1, 6 + len(body)) + body
        with open(counter_path, "wb") as f:
            f.write(bytes(first))
        with open(self.prefix + "d" + str(mvid), "wb") as f:
            f.write(data)
        self.layout[module] = (counter_path, methods)
        return len(data)
