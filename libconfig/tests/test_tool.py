#!/usr/bin/env python3
"""clrie-config as a user runs it: what it prints on stdout and stderr, and its exit status."""
import os
import shutil
import subprocess
import sys
import tempfile

TOOL = os.path.abspath(sys.argv[1])
PREFIX = sys.argv[2]  # the platform's MicrosoftInstrumentationEngine_ConfigPath…_ prefix
DISABLE = "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation"
failures = 0


def method(name, guid, priority=None, module="plugin.so"):
    p = f"<Priority>{priority}</Priority>" if priority is not None else ""
    return (f"  <InstrumentationMethod><Name>{name}</Name><Module>{module}</Module>"
            f"<ClassGuid>{guid}</ClassGuid>{p}</InstrumentationMethod>\n")


def config(*methods):
    return "<InstrumentationEngineConfiguration>\n" + "".join(methods) + \
        "</InstrumentationEngineConfiguration>\n"


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


def run(what, args, status, stdout, stderr, env=None):
    global failures
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("MicrosoftInstrumentationEngine_")}
    base.update(env or {})
    p = subprocess.run([TOOL] + args, capture_output=True, text=True, env=base)
    problems = []
    if p.returncode != status:
        problems.append(f"exit status {p.returncode}, expected {status}")
    if stdout is not None and p.stdout != stdout:
        problems.append(f"stdout:\n{p.stdout}expected:\n{stdout}")
    if stderr is not None and p.stderr != stderr:
        problems.append(f"stderr:\n{p.stderr}expected:\n{stderr}")
    if problems:
        failures += 1
        print(f"FAIL {what}: " + "\n".join(problems))
    else:
        print(f"ok   {what}")
    return p


def main():
    root = tempfile.mkdtemp(prefix="clrie-config-tool-")
    os.chmod(root, 0o755)
    try:
        os.chdir(root)
        real_root = os.path.realpath(root)
        plugin = os.path.join(real_root, "plugin.so")
        write("plugin.so", "x", 0o755)
        write("good.config", config(
            method("Late", "{00000000-0000-0000-0000-00000000000A}"),
            method("Early", "{00000000-0000-0000-0000-00000000000b}", 10)))
        write("bad.config", config(
            method("Fine", "{00000000-0000-0000-0000-00000000000C}", 1),
            "  <InstrumentationMethod><Name>X</Name><Priority>high</Priority>"
            "</InstrumentationMethod>\n"))
        write("dup.config", config(method("Again\tTabbed", "{00000000-0000-0000-0000-00000000000A}")))
        write("dir/b.xml", config(method("B", "{00000000-0000-0000-0000-0000000000B0}", 5,
                                          module="../plugin.so")))
        write("dir/a.config", config(method("A", "{00000000-0000-0000-0000-0000000000A0}", 5,
                                             module="../plugin.so")))
        write("dir/ignored.txt", "no")
        write("open.config", config(method("Open", "{00000000-0000-0000-0000-0000000000F0}")),
              0o666)
        write("odd.config", config(method("Odd\tName", "{00000000-0000-0000-0000-0000000000D0}")))

        run("one good file", ["check", "good.config"], 0,
            f"10\t{{00000000-0000-0000-0000-00000000000B}}\tEarly\t{plugin}\n"
            f"-\t{{00000000-0000-0000-0000-00000000000A}}\tLate\t{plugin}\n", "")
        run("a bad file adds nothing and is explained", ["check", "good.config", "bad.config"], 1,
            f"10\t{{00000000-0000-0000-0000-00000000000B}}\tEarly\t{plugin}\n"
            f"-\t{{00000000-0000-0000-0000-00000000000A}}\tLate\t{plugin}\n",
            "bad.config:3:3: error: <InstrumentationMethod> has no <Module>\n"
            "bad.config:3:3: error: <InstrumentationMethod> has no <ClassGuid>\n"
            "bad.config:3:40: error: <Priority> 'high' is not a whole number from 0 to "
            "4294967295\n")
        run("a duplicate ClassGuid is a warning", ["check", "good.config", "dup.config"], 0,
            f"10\t{{00000000-0000-0000-0000-00000000000B}}\tEarly\t{plugin}\n"
            f"-\t{{00000000-0000-0000-0000-00000000000A}}\tLate\t{plugin}\n",
            "dup.config:2:3: warning: ClassGuid {00000000-0000-0000-0000-00000000000A} is "
            "already declared by 'Late' at good.config:2:3; 'Again\tTabbed' is ignored\n")
        run("a folder gives its files in name order", ["check", "dir"], 0,
            f"5\t{{00000000-0000-0000-0000-0000000000A0}}\tA\t{plugin}\n"
            f"5\t{{00000000-0000-0000-0000-0000000000B0}}\tB\t{plugin}\n", "")
        run("control characters stay on one line", ["check", "odd.config"], 0,
            f"-\t{{00000000-0000-0000-0000-0000000000D0}}\tOdd\\tName\t{plugin}\n", "")
        run("a missing file", ["check", "missing.config"], 1, "",
            "missing.config: error: cannot open: No such file or directory\n")
        run("an untrusted file", ["check", "open.config"], 1, "",
            "open.config: error: the file is writable by group or others (owner 0, mode 0666); "
            f"refused unless {DISABLE}=1\n")
        run("trust check turned off", ["check", "open.config"], 0,
            f"-\t{{00000000-0000-0000-0000-0000000000F0}}\tOpen\t{plugin}\n", "",
            env={DISABLE: "1"})
        run("the environment, in order", ["env"], 1,
            f"5\t{{00000000-0000-0000-0000-0000000000A0}}\tA\t{plugin}\n"
            f"5\t{{00000000-0000-0000-0000-0000000000B0}}\tB\t{plugin}\n"
            f"10\t{{00000000-0000-0000-0000-00000000000B}}\tEarly\t{plugin}\n"
            f"-\t{{00000000-0000-0000-0000-00000000000A}}\tLate\t{plugin}\n",
            f"{root}/nowhere.config: error: cannot open: No such file or directory "
            f"(listed in {PREFIX}B)\n",
            env={PREFIX + "A": f"{root}/dir", PREFIX + "B": f"{root}/nowhere.config:good.config"})
        run("an empty environment", ["env"], 0, "", "")
        run("no paths", ["check"], 2, "", None)
        run("unknown command", ["frobnicate"], 2, "", None)
        run("env takes no paths", ["env", "x"], 2, "", None)
        run("no command", [], 2, "", None)
        p = run("help", ["--help"], 0, None, "")
        if "usage: clrie-config check PATH" not in p.stdout:
            global failures
            failures += 1
            print("FAIL help text: " + p.stdout)
    finally:
        shutil.rmtree(root)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
