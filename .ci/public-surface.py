#!/usr/bin/env python3
"""Counts the public declarations of one of this package's modules (Courier by default), twice:
every declaration, and the ones a user writes against.

What it counts: the symbols of the module's symbol graph (`swift package dump-symbol-graph`, which
builds the package first) whose access level is `public` or `open`: types, protocols and their
requirements, enum cases, initializers, properties, methods, subscripts, operators, type aliases and
associated types, the members the module adds to other modules' types (`extension String: …`, in the
`Courier@Swift` graph), and the default implementations it writes in protocol extensions. Not counted:
the copies of inherited or default-implemented members that the symbol graph synthesizes on every
conforming type (`::SYNTHESIZED::` symbols, also left out by `--skip-synthesized-members`),
extension blocks, `@_spi` symbols, and `package`, `internal` or `@usableFromInline` declarations.

The user-facing count leaves out what a user never writes against on its own: a protocol
requirement's default implementation (the requirement is counted, once), and the witnesses of the
standard library's and Foundation's protocols a type conforms to (`description`, `customMirror`,
`init(from:)`, `encode(to:)`, the literal initializers, a sequence's `makeAsyncIterator()`, its
iterator type and `next()`, `rawValue`, `allCases`, `id`, `errorDescription`, ...: see
STANDARD_WITNESSES), and of swift-openapi-runtime's `ClientTransport` and `ClientMiddleware`, which
a generated client calls (OPENAPI_WITNESSES).

    python3 .ci/public-surface.py                  # prints both counts for Courier
    python3 .ci/public-surface.py --list           # and every symbol, by kind (* = not user-facing)
    python3 .ci/public-surface.py --by-owner       # both counts per top-level type or function
    python3 .ci/public-surface.py --max 434        # exits 1 when all declarations are above 434
    python3 .ci/public-surface.py --max-user-facing 330
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

# The members a conformance to each protocol asks for: a type's member of one of these names, where
# the type conforms to the protocol, is a witness, not something a user calls by name.
STANDARD_WITNESSES = {
    "CustomStringConvertible": {"description"},
    "CustomDebugStringConvertible": {"debugDescription"},
    "CustomReflectable": {"customMirror"},
    "LosslessStringConvertible": {"init(_:)", "description"},
    "LocalizedError": {"errorDescription", "failureReason", "recoverySuggestion", "helpAnchor"},
    "CustomNSError": {"errorDomain", "errorCode", "errorUserInfo"},
    "Decodable": {"init(from:)"},
    "Encodable": {"encode(to:)"},
    "Codable": {"init(from:)", "encode(to:)"},
    "Equatable": {"==(_:_:)", "!=(_:_:)"},
    "Hashable": {"hash(into:)", "hashValue", "==(_:_:)"},
    "Comparable": {"<(_:_:)", "<=(_:_:)", ">(_:_:)", ">=(_:_:)"},
    "ExpressibleByStringLiteral": {"init(stringLiteral:)", "StringLiteralType"},
    "ExpressibleByUnicodeScalarLiteral": {"init(unicodeScalarLiteral:)", "UnicodeScalarLiteralType"},
    "ExpressibleByExtendedGraphemeClusterLiteral": {
        "init(extendedGraphemeClusterLiteral:)", "ExtendedGraphemeClusterLiteralType"},
    "ExpressibleByStringInterpolation": {"init(stringInterpolation:)", "StringInterpolation"},
    "ExpressibleByIntegerLiteral": {"init(integerLiteral:)", "IntegerLiteralType"},
    "ExpressibleByFloatLiteral": {"init(floatLiteral:)", "FloatLiteralType"},
    "ExpressibleByBooleanLiteral": {"init(booleanLiteral:)", "BooleanLiteralType"},
    "ExpressibleByNilLiteral": {"init(nilLiteral:)"},
    "ExpressibleByArrayLiteral": {"init(arrayLiteral:)", "ArrayLiteralElement"},
    "ExpressibleByDictionaryLiteral": {"init(dictionaryLiteral:)", "Key", "Value"},
    "StringInterpolationProtocol": {
        "init(literalCapacity:interpolationCount:)", "appendLiteral(_:)", "appendInterpolation(_:)", "StringLiteralType"},
    "RawRepresentable": {"rawValue", "init(rawValue:)", "RawValue"},
    "CaseIterable": {"allCases", "AllCases"},
    "Identifiable": {"id", "ID"},
    "Sequence": {"makeIterator()", "Iterator", "Element", "underestimatedCount"},
    "IteratorProtocol": {"next()", "Element"},
    "AsyncSequence": {"makeAsyncIterator()", "AsyncIterator", "Element", "Failure"},
    "AsyncIteratorProtocol": {"next()", "next(isolation:)", "Element", "Failure"},
    "CodingKey": {"stringValue", "intValue", "init(stringValue:)", "init(intValue:)"},
}

# swift-openapi-runtime's protocols, which Courier's transports and middlewares conform to so that a
# generated client can use them: the client calls these members, a user never does.
OPENAPI_WITNESSES = {
    "ClientTransport": {"send(_:body:baseURL:operationID:)"},
    "ClientMiddleware": {"intercept(_:body:baseURL:operationID:next:)"},
}

WITNESSES = STANDARD_WITNESSES | OPENAPI_WITNESSES
SEQUENCES = {"Sequence", "AsyncSequence"}
ITERATORS = {"IteratorProtocol", "AsyncIteratorProtocol"}


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
    """The module's public symbols, by precise identifier: (kind, dotted path, user-facing)."""
    paths = glob.glob(os.path.join(graph_dir, f"{module}.symbols.json"))
    paths += glob.glob(os.path.join(graph_dir, f"{module}@*.symbols.json"))
    if not paths:
        sys.exit(f"public-surface: no symbol graph for {module} in {graph_dir}")
    graphs = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            graphs.append(json.load(file))
    # Who conforms to what (by the protocol's simple name), and which symbols only implement a
    # requirement by default, in every graph of the module.
    conformances: dict = {}
    defaults: set = set()
    requirements: set = set()
    for graph in graphs:
        for relation in graph.get("relationships", []):
            if relation["kind"] == "conformsTo":
                name = relation.get("targetFallback") or relation["target"]
                conformances.setdefault(relation["source"], set()).add(name.split(".")[-1])
            elif relation["kind"] == "defaultImplementationOf":
                defaults.add((relation["source"], relation["target"]))
            elif relation["kind"] in ("requirementOf", "optionalRequirementOf"):
                requirements.add(relation["source"])
    symbols = {}
    owners = {}
    for graph in graphs:
        for symbol in graph.get("symbols", []):
            owners[".".join(symbol.get("pathComponents", []))] = symbol["identifier"]["precise"]
    for graph in graphs:
        for symbol in graph.get("symbols", []):
            identifier = symbol["identifier"]["precise"]
            kind = symbol["kind"]["identifier"]
            if symbol.get("accessLevel") not in PUBLIC:
                continue
            if "::SYNTHESIZED::" in identifier or kind == "swift.extension":
                continue
            if symbol.get("spi"):
                continue
            components = symbol.get("pathComponents", [])
            owner = owners.get(".".join(components[:-1]))
            # A nested type's title is qualified ("EventStream.Element"); a witness is matched by its own name.
            name = components[-1] if components else symbol["names"]["title"]
            witness = any(
                name in WITNESSES.get(protocol, set()) for protocol in conformances.get(owner, set())
            ) if owner else False
            # A sequence's iterator type is its `makeIterator()`'s plumbing, whatever it is named.
            witness = witness or (
                ITERATORS & conformances.get(identifier, set()) != set()
                and SEQUENCES & conformances.get(owner, set()) != set()
            )
            default = any(source == identifier and target in requirements for source, target in defaults)
            symbols[identifier] = (kind.removeprefix("swift."), ".".join(components), not (witness or default))
    return symbols


def main() -> None:
    parser = argparse.ArgumentParser(description="Counts the public declarations of a module.")
    parser.add_argument("--module", default="Courier", help="the module (default: Courier)")
    parser.add_argument("--max", type=int, help="exit 1 when all declarations are above this")
    parser.add_argument("--max-user-facing", type=int, help="exit 1 when the user-facing ones are above this")
    parser.add_argument("--list", action="store_true", help="print every public symbol, by kind (* = not user-facing)")
    parser.add_argument("--by-owner", action="store_true", help="print both counts per top-level declaration")
    parser.add_argument("--graph-dir", help="read symbol graphs from here instead of dumping them")
    parser.add_argument("--package-path", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    arguments = parser.parse_args()

    graph_dir = arguments.graph_dir or dump_symbol_graphs(arguments.package_path, arguments.module)
    symbols = public_symbols(graph_dir, arguments.module)
    if arguments.list:
        for kind, path, facing in sorted(symbols.values()):
            print(f"{'' if facing else '*'}{kind:<16} {path}")
    if arguments.by_owner:
        by_owner: dict = {}
        for _, path, facing in symbols.values():
            counts = by_owner.setdefault(path.split(".")[0], [0, 0])
            counts[0] += 1
            counts[1] += 1 if facing else 0
        print(f"{'owner':<40} {'all':>5} {'user-facing':>12}")
        for owner, (every, facing) in sorted(by_owner.items(), key=lambda item: (-item[1][1], item[0])):
            print(f"{owner:<40} {every:>5} {facing:>12}")
    count = len(symbols)
    facing = sum(1 for _, _, user_facing in symbols.values() if user_facing)
    print(f"{arguments.module}: {count} public declarations, {facing} user-facing")
    failed = False
    if arguments.max is not None and count > arguments.max:
        print(f"public-surface: {count} declarations is above the maximum of {arguments.max}", file=sys.stderr)
        failed = True
    if arguments.max_user_facing is not None and facing > arguments.max_user_facing:
        print(f"public-surface: {facing} user-facing declarations is above the maximum of {arguments.max_user_facing}", file=sys.stderr)
        failed = True
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
