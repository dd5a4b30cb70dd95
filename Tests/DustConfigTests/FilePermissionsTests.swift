@testable import DustConfig
import Foundation
import Testing

@Suite("The directory a checked file is in")
struct FilePermissionsDirectoryTests {
    @Test("Is the directory Foundation's URL names, absolute, for absolute and relative paths",
          arguments: ["/etc/dustd/dustd.yaml", "/dustd.yaml", "Config/dustd.yaml", "dustd.yaml", "/etc/dustd/", "/var/lib/dustd/key file"])
    func likeURL(path: String) {
        #expect(FilePermissions.directory(of: path) == URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}
