"""Microsoft's CLRIE for Linux, the peer clrie is compared with: it ships inside the NuGet
package Microsoft.CodeCoverage (build/<tfm>/ubuntu/x64/libInstrumentationEngine.so, next to
Microsoft's coverage instrumentation method). Restored into a build folder through the SDK."""
import glob
import os
import subprocess

import dotnet_apps

PACKAGE, VERSION = "Microsoft.CodeCoverage", "18.11.0"


class Missing(Exception):
    """The package could not be restored; the text says why (the restore's output)."""


def restore(dotnet, out_root, name="libInstrumentationEngine.so", folder=("ubuntu", "x64")):
    """The path of the package's file `name` in build/<tfm>/<folder> (Linux x64 by default,
    ("x64",) for Windows x64; CLRIE itself by default), restored from NuGet into out_root when
    not there yet; raises Missing otherwise."""
    packages = os.path.join(out_root, "nuget-packages")
    pattern = os.path.join(packages, PACKAGE.lower(), VERSION, "build", "*", *folder, name)
    found = glob.glob(pattern)
    if found:
        return found[0]
    project_dir = os.path.join(out_root, "clrie-restore")
    os.makedirs(project_dir, exist_ok=True)
    with open(os.path.join(project_dir, "restore.csproj"), "w") as f:
        f.write('<Project Sdk="Microsoft.NET.Sdk">\n'
                '  <PropertyGroup><TargetFramework>net$(BundledNETCoreAppTargetFrameworkVersion)'
                '</TargetFramework></PropertyGroup>\n'
                '  <ItemGroup><PackageReference Include="%s" Version="%s" /></ItemGroup>\n'
                '</Project>\n' % (PACKAGE, VERSION))
    result = subprocess.run([dotnet, "restore", project_dir, "--packages", packages],
                            env=dotnet_apps.quiet_environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    found = glob.glob(pattern)
    if not found:
        raise Missing("%s %s could not be restored from NuGet (no %s):\n%s" % (
            PACKAGE, VERSION, name, result.stdout[-3000:]))
    return found[0]
