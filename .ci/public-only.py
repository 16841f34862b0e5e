#!/usr/bin/env python3
"""Proves that a target compiles against the public API of the targets it imports.

A target in this package sees its siblings' `package` declarations; a third party's storage
doesn't. This script asks SwiftPM for the exact compiler command of each named target, drops
`-package-name` (so `package` declarations are out of reach, as they are for any other package)
and the output flags, and type-checks the target's sources again with `-typecheck`. A use of a
`package` or internal declaration of another module fails the check, naming the symbol.

    python3 .ci/public-only.py CourierCachePostgres CourierCacheTesting
"""
import pathlib
import shlex
import subprocess
import sys

# Flags that write build products (a type-check writes none); the second set takes a value.
DROPPED = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-emit-objc-header",
           "-parseable-output", "-enable-batch-mode", "-serialize-diagnostics", "-v"}
DROPPED_WITH_VALUE = {"-emit-module-path", "-output-file-map", "-index-store-path",
                      "-emit-objc-header-path", "-package-name"}


def compiler_command(target: str) -> list[str]:
    """The `swiftc` command SwiftPM runs for `target` (a source is touched so that it runs)."""
    sources = sorted(pathlib.Path("Sources", target).rglob("*.swift"))
    if not sources:
        sys.exit(f"public-only: no sources for {target}")
    sources[0].touch()
    build = subprocess.run(["swift", "build", "-v", "--target", target], capture_output=True, text=True)
    if build.returncode != 0:
        sys.exit(f"public-only: `swift build --target {target}` failed:\n{build.stdout[-4000:]}{build.stderr[-4000:]}")
    for line in build.stdout.splitlines():
        words = shlex.split(line)
        if len(words) > 2 and words[0].endswith("/swiftc") and words[1:3] == ["-module-name", target]:
            return words
    sys.exit(f"public-only: no compiler command for {target} in `swift build -v`")


def type_check_publicly(target: str) -> bool:
    words = compiler_command(target)
    if "-package-name" not in words:
        sys.exit(f"public-only: {target}'s command has no -package-name; the check would prove nothing")
    command, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in DROPPED_WITH_VALUE:
            skip = True
        elif word not in DROPPED:
            command.append(word)
    command.append("-typecheck")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"{target} uses what only this package sees (a third party's code couldn't):")
        print("\n".join(line for line in (result.stdout + result.stderr).splitlines() if "error:" in line))
        return False
    print(f"{target}: compiles against public API only")
    return True


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    results = [type_check_publicly(target) for target in sys.argv[1:]]
    sys.exit(0 if all(results) else 1)
