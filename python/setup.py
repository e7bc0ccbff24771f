"""Installs the pure-Python package and, when `make` has built it, a copy of
../build/libclmatch.so (or $CLMATCH_LIBRARY) beside it, so the installed package finds its
library without the source checkout. Nothing is compiled here."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        lib = os.environ.get("CLMATCH_LIBRARY") or os.path.join(HERE, os.pardir, "build",
                                                                 "libclmatch.so")
        if os.path.exists(lib):
            shutil.copyfile(lib, os.path.join(self.build_lib, "clmatch", "libclmatch.so"))
        else:
            print("clmatch: %s not found (run make first): the package will look for "
                  "libclmatch.so on the system's loader path" % lib)


setup(cmdclass={"build_py": BuildPyWithLibrary})
