import Foundation

/// Encodes a ``VarySelection`` as its ``VarySelection/canonicalKey`` (`name` or `name=value`
/// lines, empty for none); reads the JSON that earlier versions (and other programs) wrote too.
///
/// The lines are lossless: names are lowercased tokens (no `=`, no line break, never `{`, which
/// starts the JSON form) and values are normalised request field values (no line break).
public enum VaryCoding {
    /// The bytes for `selection`.
    public static func encode(_ selection: VarySelection) -> Data {
        Data(selection.canonicalKey.utf8)
    }

    /// The selection decoded from stored bytes (read in place from SQLite's row); `nil` when they are neither format.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> VarySelection? {
        if bytes.isEmpty { return VarySelection.none }
        if bytes.first == UInt8(ascii: "{") { return try? JSONDecoder().decode(VarySelection.self, from: Data(bytes)) }
        var names: [String] = []
        var values: [String: String] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if let equals = line.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: line[line.startIndex..<equals], as: UTF8.self)
                names.append(name)
                values[name] = String(decoding: line[line.index(after: equals)...], as: UTF8.self)
            } else {
                names.append(String(decoding: line, as: UTF8.self))
            }
        }
        return VarySelection(names: names, values: values)
    }
}
