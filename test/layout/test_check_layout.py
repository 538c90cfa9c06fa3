#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Each rule of scripts/check_layout.py fails on a tree made to break it, and a tree that keeps
the layout passes. Usage: test_check_layout.py PATH/TO/check_layout.py"""
import os
import subprocess
import sys
import tempfile

# A tree that follows every arrow: api -> runtime -> staging -> io, staging -> gpu.
GOOD = {
    "lib/io/request.hpp": "#pragma once\n#include <cstddef>\n",
    "lib/gpu/hip.hpp": "#pragma once\n",
    "lib/staging/engine.hpp": '#include "io/request.hpp"\n#include "gpu/hip.hpp"\n',
    "lib/staging/engine.cpp": '#include "engine.hpp"\n',
    "lib/runtime/driver.cpp": '#include "staging/engine.hpp"\n',
    "lib/api/io.cpp": '#include <hipfile/hipfile.h>\n#include "runtime/../io/request.hpp"\n'
                      "hipFileError_t f();\n",
    "include/hipfile++/file.hpp": "#include <hipfile/hipfile.h>\n",
}

# Each rule: files added to GOOD, and a file the report must name.
BROKEN = {
    "cycle": ({"lib/gpu/hip.hpp": '#include "sys/posix.hpp"\n', "lib/sys/posix.hpp": '#include "gpu/hip.hpp"\n'},
              "lib/sys/posix.hpp"),
    "arrow": ({"lib/staging/engine.cpp": '#include "runtime/driver.hpp"\n', "lib/runtime/driver.hpp": ""},
              "lib/staging/engine.cpp"),
    "arrow into api": ({"lib/runtime/driver.cpp": '#include "api/guard.hpp"\n', "lib/api/guard.hpp": ""},
                       "lib/runtime/driver.cpp"),
    "arrow from io": ({"lib/io/request.hpp": '#include "gpu/hip.hpp"\n'}, "lib/io/request.hpp"),
    "mutual": ({"lib/runtime/async.hpp": "", "lib/runtime/async.cpp": '#include "driver.hpp"\n',
                "lib/runtime/driver.hpp": "", "lib/runtime/driver.cpp": '#include "runtime/async.hpp"\n'},
               "lib/runtime/async"),
    "c-api header": ({"lib/runtime/status.hpp": "#include <hipfile/hipfile.h>\n"}, "lib/runtime/status.hpp"),
    "c-api stats header": ({"lib/runtime/stats.hpp": "#include <hipfile/hipfile_stats.h>\n"}, "lib/runtime/stats.hpp"),
    "c-api type": ({"lib/staging/job.hpp": "struct Job { hipFileIOParams_t p; };\n"}, "lib/staging/job.hpp"),
    "json": ({"include/hipfile++/loader.hpp": "#include <nlohmann/json.hpp>\n"}, "include/hipfile++/loader.hpp"),
    "json in the loader's headers": ({"include/hipfile-safetensors/header.hpp": "#include <nlohmann/json_fwd.hpp>\n"},
                                     "include/hipfile-safetensors/header.hpp"),
}


def make_tree(top, files):
    for rel, text in files.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def check(script, files):
    with tempfile.TemporaryDirectory() as top:
        make_tree(top, files)
        run = subprocess.run([sys.executable, script, "--root", top], capture_output=True, text=True)
        return run.returncode, run.stdout


def main():
    script = sys.argv[1]
    failures = 0
    code, out = check(script, GOOD)
    if code != 0:
        print(f"FAIL good tree: exit {code}\n{out}")
        failures += 1
    for rule, (extra, offender) in BROKEN.items():
        code, out = check(script, {**GOOD, **extra})
        if code != 1 or offender not in out:
            print(f"FAIL {rule}: exit {code}, expected 1 naming {offender}\n{out}")
            failures += 1
        else:
            print(f"ok {rule}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
