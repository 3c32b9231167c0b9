#!/usr/bin/env python3
"""Run by `meson install` of a Windows build: removes the import libraries (*.dll.a) that MinGW
makes for each DLL and Meson installs beside it, from CLRIE's layout under the prefix (the
folder given as the argument, relative to the prefix). Nothing links against the engine, the
proxy or a plugin: the runtime and the proxy load them by path.

Usage (from meson.build): drop-import-libraries.py <folder under the prefix>"""
import os
import sys

root = os.path.join(os.environ["MESON_INSTALL_DESTDIR_PREFIX"], sys.argv[1])
for folder, _, names in os.walk(root):
    for name in names:
        if name.endswith(".dll.a"):
            os.remove(os.path.join(folder, name))
