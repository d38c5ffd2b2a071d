#!/usr/bin/env python3
"""Writes every hostile input the attack suite builds without root into DIR, one file each, for a
look by hand or as fuzzer seeds:  tests/security/generate.py DIR"""

import glob
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: generate.py DIR")
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "test_*.py"))):
        module = importlib.import_module(os.path.basename(path)[:-3])
        build = getattr(module, "hostile_inputs", None)
        if build is None:
            continue
        for written in build(directory):
            print(written)


if __name__ == "__main__":
    main()
