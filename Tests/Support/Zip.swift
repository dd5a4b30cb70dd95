import Foundation
import ZIPFoundation

/// Writes a zip of `entries` (name, bytes) with ZIPFoundation, deflated, into `directory`; returns its path.
public func makeZip(_ entries: [(String, [UInt8])], in directory: TemporaryDirectory, name: String = "export.zip") throws -> String {
    let path = directory.path(name)
    let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
    for (entryName, bytes) in entries {
        try archive.addEntry(with: entryName, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) {
            position, size in
            Data(bytes[Int(position)..<Int(position) + size])
        }
    }
    return path
}
