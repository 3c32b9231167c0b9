"""How the clrie-il checks start the program: through the cross file's exe_wrapper (Wine,
qemu) when the build has one (--exe-wrapper), with its output read from files rather than
pipes. Wine starts a server that inherits the program's standard streams and stays a few
seconds after it: reading a pipe to its end would wait for the server every time."""
import os
import subprocess
import tempfile


def add_arguments(parser):
    """Adds --exe-wrapper to the check's arguments."""
    parser.add_argument("--exe-wrapper", help="what runs the build's programs (Wine, qemu)")


def command(args, program):
    """The command that runs program from any folder: the wrapper, if any, then the program."""
    return ([args.exe_wrapper] if args.exe_wrapper else []) + [os.path.abspath(program)]


def run(cmd, errors="strict", **kwargs):
    """Runs cmd to its end: a CompletedProcess with stdout and stderr decoded as UTF-8, with
    Windows line ends as '\\n'. kwargs go to subprocess.run (env, cwd, timeout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, **kwargs)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()

    def text(data):
        return data.decode("utf-8", errors).replace("\r\n", "\n")

    return subprocess.CompletedProcess(cmd, r.returncode, text(stdout), text(stderr))
