#!/usr/bin/env python3
"""Counts the public declarations of one of this package's modules (Courier by default).

What it counts: the symbols of the module's symbol graph (`swift package dump-symbol-graph`, which
builds the package first) whose access level is `public` or `open`: types, protocols and their
requirements, enum cases, initializers, properties, methods, subscripts, operators, type aliases and
associated types, the members the module adds to other modules' types (`extension String: …`, in the
`Courier@Swift` graph), and the default implementations it writes in protocol extensions. Not counted:
the copies of inherited or default-implemented members that the symbol graph synthesizes on every
conforming type (`::SYNTHESIZED::` symbols, also left out by `--skip-synthesized-members`),
extension blocks, `@_spi` symbols, and `package`, `internal` or `@usableFromInline` declarations.

    python3 .ci/public-surface.py                  # prints the count for Courier
    python3 .ci/public-surface.py --list           # and every symbol, by kind
    python3 .ci/public-surface.py --max 150        # exits 1 when the count is above 150
    python3 .ci/public-surface.py --module CourierCache

`--graph-dir DIR` reads graphs already dumped there instead of building.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

PUBLIC = {"public", "open"}


def dump_symbol_graphs(package_path: str, module: str) -> str:
    """Builds the package and dumps its symbol graphs; returns the folder they were written to.

    SwiftPM also tries the test-discovery modules, which fail when the tests are not built: only
    the module asked for has to succeed, so its graph is removed first and must be there after.
    """
    bin_path = subprocess.run(
        ["swift", "build", "--package-path", package_path, "--show-bin-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    graph_dir = os.path.join(os.path.dirname(bin_path), "symbolgraph")
    for stale in glob.glob(os.path.join(graph_dir, f"{module}.symbols.json")) + glob.glob(os.path.join(graph_dir, f"{module}@*.symbols.json")):
        os.remove(stale)
    command = [
        "swift", "package", "--package-path", package_path, "dump-symbol-graph",
        "--skip-synthesized-members", "--minimum-access-level", "public",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if not os.path.exists(os.path.join(graph_dir, f"{module}.symbols.json")):
        sys.stderr.write(result.stdout + result.stderr)
        sys.exit(f"public-surface: `{' '.join(command)}` wrote no graph for {module} in {graph_dir}")
    return graph_dir


def public_symbols(graph_dir: str, module: str) -> dict:
    """The module's public symbols, by precise identifier: (kind, dotted path)."""
    paths = glob.glob(os.path.join(graph_dir, f"{module}.symbols.json"))
    paths += glob.glob(os.path.join(graph_dir, f"{module}@*.symbols.json"))
    if not paths:
        sys.exit(f"public-surface: no symbol graph for {module} in {graph_dir}")
    symbols = {}
    for path in paths:
        with open(path, encoding="utf-8") as file:
            graph = json.load(file)
        for symbol in graph.get("symbols", []):
            identifier = symbol["identifier"]["precise"]
            kind = symbol["kind"]["identifier"]
            if symbol.get("accessLevel") not in PUBLIC:
                continue
            if "::SYNTHESIZED::" in identifier or kind == "swift.extension":
                continue
            if symbol.get("spi"):
                continue
            symbols[identifier] = (kind.removeprefix("swift."), ".".join(symbol.get("pathComponents", [])))
    return symbols


def main() -> None:
    parser = argparse.ArgumentParser(description="Counts the public declarations of a module.")
    parser.add_argument("--module", default="Courier", help="the module (default: Courier)")
    parser.add_argument("--max", type=int, help="exit 1 when the count is above this")
    parser.add_argument("--list", action="store_true", help="print every public symbol, by kind")
    parser.add_argument("--graph-dir", help="read symbol graphs from here instead of dumping them")
    parser.add_argument("--package-path", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    arguments = parser.parse_args()

    graph_dir = arguments.graph_dir or dump_symbol_graphs(arguments.package_path, arguments.module)
    symbols = public_symbols(graph_dir, arguments.module)
    if arguments.list:
        for kind, path in sorted(symbols.values()):
            print(f"{kind:<16} {path}")
    count = len(symbols)
    print(f"{arguments.module}: {count} public declarations")
    if arguments.max is not None and count > arguments.max:
        print(f"public-surface: {count} is above the maximum of {arguments.max}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
