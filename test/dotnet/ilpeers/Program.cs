// The IL side of test/bench-peers: how fast dnlib and Mono.Cecil decode and encode the method
// bodies of the given assemblies, the bodies `clrie-il bench` measures for libilgraph.
//
//   ilpeers [--repeat N] ASSEMBLY...
//
// Every figure is the fastest of N timed passes over every body (after one untimed pass), wall
// time of one thread, with a full garbage collection before each pass. What each library does
// in a step differs, so each line says it (the same words are in docs/benchmarks.md):
//
//   dnlib decode          ModuleDefMD.ReadCilBody per method: parses the header, every
//                         instruction and the EH clauses into a CilBody, resolving each operand
//                         token to its metadata object (cached by the module after the first
//                         pass) and reading the locals signature.
//   dnlib decode+encode   the above, then MethodBodyWriter.Write and GetFullMethodBody: the
//                         instructions (in their decoded short/long forms), max stack
//                         recomputed, the EH section; operand tokens from the objects.
//   cecil decode          read the module (deferred) and touch every MethodDefinition.Body,
//                         minus the same without touching the bodies: parses each body into
//                         a MethodBody of Instructions with operands resolved to references.
//   cecil decode+write    read the module, touch every body and write the module to memory,
//                         minus reading it without touching the bodies: Cecil has no public
//                         writer for one body, so this also rebuilds the module's metadata
//                         (ReadyToRun modules are written IL-only: Cecil writes no other).
//
// Output: one "result <library> <step> <seconds> <bodies> <code bytes>" line per step, then
// the same as a readable table.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using dnlib.DotNet;
using dnlib.DotNet.Emit;
using dnlib.DotNet.MD;
using dnlib.DotNet.Writer;
using Mono.Cecil;

static class Program
{
    sealed class Result
    {
        public string Library = "", Step = "";
        public double Seconds;
        public long Bodies, CodeBytes;
    }

    // dnlib's writer asks for a token per operand object: the object's own, as the body had.
    sealed class OriginalTokens : ITokenProvider
    {
        public MDToken GetToken(object o) => o switch
        {
            IMDTokenProvider member => member.MDToken,
            string => new MDToken(Table.Module, 0),   // ldstr: a user string; any token will do
            _ => new MDToken(Table.StandAloneSig, 1), // calli's MethodSig
        };

        public MDToken GetToken(IList<TypeSig> locals, uint origToken) => new MDToken(origToken);

        public void Error(string message) => throw new InvalidOperationException(message);
    }

    static int Main(string[] args)
    {
        int repeat = 3;
        var paths = new List<string>();
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--repeat" && i + 1 < args.Length && int.TryParse(args[i + 1], out repeat)
                && repeat > 0)
                i++;
            else if (args[i].StartsWith("--"))
                return Usage("unknown option '" + args[i] + "'");
            else
                paths.Add(args[i]);
        }
        if (paths.Count == 0)
            return Usage("no assembly given");

        var results = new List<Result>();
        results.AddRange(Dnlib(paths, repeat));
        results.AddRange(Cecil(paths, repeat));
        foreach (var r in results)
            Console.WriteLine("result {0} {1} {2:R} {3} {4}", r.Library, r.Step, r.Seconds, r.Bodies,
                              r.CodeBytes);
        Console.WriteLine("{0,-8} {1,-20} {2,9} {3,12} {4,10}", "library", "step", "bodies",
                          "MB of code", "MB/s");
        foreach (var r in results)
            Console.WriteLine("{0,-8} {1,-20} {2,9} {3,12:F2} {4,10:F1}", r.Library, r.Step, r.Bodies,
                              r.CodeBytes / 1e6, r.CodeBytes / r.Seconds / 1e6);
        return 0;
    }

    static int Usage(string why)
    {
        Console.Error.WriteLine("ilpeers: " + why + "\nusage: ilpeers [--repeat N] ASSEMBLY...");
        return 2;
    }

    // The fastest of repeat timed runs of pass, after one untimed run.
    static double Best(int repeat, Action pass)
    {
        pass();
        double best = double.MaxValue;
        for (int i = 0; i < repeat; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            var watch = Stopwatch.StartNew();
            pass();
            best = Math.Min(best, watch.Elapsed.TotalSeconds);
        }
        return best;
    }

    // ---- dnlib ---------------------------------------------------------------------------------

    sealed class DnlibMethod
    {
        public ModuleDefMD Module = null!;
        public MethodDef Method = null!;
        public GenericParamContext Context;
    }

    static IEnumerable<Result> Dnlib(List<string> paths, int repeat)
    {
        var methods = new List<DnlibMethod>();
        long codeBytes = 0;
        foreach (var path in paths)
        {
            ModuleDefMD module;
            try
            {
                module = ModuleDefMD.Load(path);
            }
            catch (Exception e) when (e is BadImageFormatException || e is IOException)
            {
                Console.Error.WriteLine("ilpeers: dnlib cannot read {0}: {1}", path, e.Message);
                continue;
            }
            foreach (var type in module.GetTypes())
            {
                foreach (var method in type.Methods)
                {
                    if (method.RVA == 0 || method.CodeType != dnlib.DotNet.MethodImplAttributes.IL)
                        continue;
                    codeBytes += CodeSize(module, method.RVA);
                    methods.Add(new DnlibMethod
                    {
                        Module = module, Method = method,
                        Context = GenericParamContext.Create(method),
                    });
                }
            }
        }
        var tokens = new OriginalTokens();
        double decode = Best(repeat, () =>
        {
            foreach (var m in methods)
                m.Module.ReadCilBody(m.Method.Parameters, m.Method.RVA, m.Context);
        });
        double encode = Best(repeat, () =>
        {
            foreach (var m in methods)
            {
                var body = m.Module.ReadCilBody(m.Method.Parameters, m.Method.RVA, m.Context);
                var writer = new MethodBodyWriter(tokens, body);
                writer.Write();
                writer.GetFullMethodBody();
            }
        });
        yield return new Result { Library = "dnlib", Step = "decode", Seconds = decode,
                                  Bodies = methods.Count, CodeBytes = codeBytes };
        yield return new Result { Library = "dnlib", Step = "decode+encode", Seconds = encode,
                                  Bodies = methods.Count, CodeBytes = codeBytes };
    }

    // The code size a method body's header gives (ECMA-335 II.25.4).
    static long CodeSize(ModuleDefMD module, dnlib.PE.RVA rva)
    {
        var reader = module.Metadata.PEImage.CreateReader(rva);
        byte first = reader.ReadByte();
        if ((first & 3) == 2)
            return first >> 2;
        reader.Position -= 1;
        reader.ReadUInt16(); // flags and header size
        reader.ReadUInt16(); // max stack
        return reader.ReadUInt32();
    }

    // ---- Mono.Cecil ----------------------------------------------------------------------------

    static IEnumerable<Result> Cecil(List<string> paths, int repeat)
    {
        long bodies = 0, codeBytes = 0;
        var readable = new List<string>();
        foreach (var path in paths)
        {
            try
            {
                using var module = ReadCecil(path);
                foreach (var type in module.GetTypes())
                {
                    foreach (var method in type.Methods)
                    {
                        if (!method.HasBody)
                            continue;
                        bodies++;
                        codeBytes += method.Body.CodeSize;
                    }
                }
                readable.Add(path);
            }
            catch (Exception e) when (e is BadImageFormatException || e is IOException)
            {
                Console.Error.WriteLine("ilpeers: Cecil cannot read {0}: {1}", path, e.Message);
            }
        }
        double readOnly = Best(repeat, () => CecilPass(readable, touchBodies: false, write: false));
        double readBodies = Best(repeat, () => CecilPass(readable, touchBodies: true, write: false));
        double writeBodies = Best(repeat, () => CecilPass(readable, touchBodies: true, write: true));
        yield return new Result { Library = "cecil", Step = "decode",
                                  Seconds = Math.Max(readBodies - readOnly, 1e-9),
                                  Bodies = bodies, CodeBytes = codeBytes };
        yield return new Result { Library = "cecil", Step = "decode+write",
                                  Seconds = Math.Max(writeBodies - readOnly, 1e-9),
                                  Bodies = bodies, CodeBytes = codeBytes };
    }

    static ModuleDefinition ReadCecil(string path) =>
        ModuleDefinition.ReadModule(path, new ReaderParameters(ReadingMode.Deferred)
        {
            ReadSymbols = false,
            AssemblyResolver = new DefaultAssemblyResolver(),
        });

    static void CecilPass(List<string> paths, bool touchBodies, bool write)
    {
        foreach (var path in paths)
        {
            using var module = ReadCecil(path);
            long instructions = 0;
            foreach (var type in module.GetTypes())
            {
                foreach (var method in type.Methods)
                {
                    if (touchBodies && method.HasBody)
                        instructions += method.Body.Instructions.Count;
                }
            }
            if (write)
            {
                // ReadyToRun assemblies (the framework's) are not IL-only: Cecil writes only
                // IL-only modules, so the flag is set and the native code left out.
                module.Attributes |= ModuleAttributes.ILOnly;
                using var sink = new MemoryStream();
                module.Write(sink);
            }
            GC.KeepAlive(instructions);
        }
    }
}
