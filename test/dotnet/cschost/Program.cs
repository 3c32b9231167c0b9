// Compiles C# from csc's command line through Roslyn's public API (Microsoft.CodeAnalysis.CSharp
// from NuGet): the compiler test_csc.py rewrites on .NET 8 and 9, whose runtimes cannot load the
// SDK's csc.dll (it is built against .NET 10's assemblies). It parses the arguments with csc's
// own parser, compiles, writes the DLL and the portable PDB, and prints each diagnostic as csc
// does; the exit code is 1 when there are errors.
// Usage: dotnet cschost.dll CSC-ARGUMENTS...
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;
using Microsoft.CodeAnalysis.Text;

static class Program
{
    static int Main(string[] args)
    {
        string folder = Directory.GetCurrentDirectory();
        CSharpCommandLineArguments parsed =
            CSharpCommandLineParser.Default.Parse(args, folder, sdkDirectory: null);
        if (Report(parsed.Errors))
            return 1;

        var trees = new List<SyntaxTree>();
        foreach (CommandLineSourceFile file in parsed.SourceFiles)
        {
            using FileStream stream = File.OpenRead(file.Path);
            SourceText text = SourceText.From(stream, checksumAlgorithm: parsed.ChecksumAlgorithm);
            trees.Add(CSharpSyntaxTree.ParseText(text, parsed.ParseOptions, file.Path));
        }
        var references = parsed.MetadataReferences
            .Select(r => (MetadataReference)MetadataReference.CreateFromFile(r.Reference));
        var resolver = new SourceFileResolver(ImmutableArrayOf(parsed.SourcePaths),
                                              parsed.BaseDirectory, parsed.PathMap);
        CSharpCompilation compilation = CSharpCompilation.Create(
            Path.GetFileNameWithoutExtension(parsed.OutputFileName), trees, references,
            parsed.CompilationOptions.WithSourceReferenceResolver(resolver));

        string output = Path.Combine(parsed.OutputDirectory, parsed.OutputFileName!);
        string pdb = parsed.PdbPath ?? Path.ChangeExtension(output, ".pdb");
        EmitResult result;
        using (FileStream dll = File.Create(output))
        using (FileStream symbols = File.Create(pdb))
        {
            EmitOptions options = parsed.EmitOptions.WithPdbFilePath(MapPath(pdb, parsed));
            result = compilation.Emit(dll, symbols, options: options);
        }
        bool failed = Report(result.Diagnostics) || !result.Success;
        if (failed)
        {
            File.Delete(output);
            File.Delete(pdb);
        }
        return failed ? 1 : 0;
    }

    static System.Collections.Immutable.ImmutableArray<string> ImmutableArrayOf(
        IEnumerable<string> items) => System.Collections.Immutable.ImmutableArray.CreateRange(items);

    // The PDB path written into the DLL, with -pathmap applied as csc applies it.
    static string MapPath(string path, CSharpCommandLineArguments parsed)
    {
        foreach (KeyValuePair<string, string> map in parsed.PathMap)
        {
            string from = map.Key.TrimEnd('/') + "/";
            if (path.StartsWith(from, StringComparison.Ordinal))
                return map.Value.TrimEnd('/') + "/" + path.Substring(from.Length);
        }
        return path;
    }

    // Prints the diagnostics that csc prints (warnings and errors, in order); true on an error.
    static bool Report(IEnumerable<Diagnostic> diagnostics)
    {
        bool error = false;
        foreach (Diagnostic d in diagnostics.Where(d => d.Severity >= DiagnosticSeverity.Warning))
        {
            Console.WriteLine(d.ToString());
            error |= d.Severity == DiagnosticSeverity.Error;
        }
        return error;
    }
}
