import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@testable import DustDaemon

@Suite("A PostgreSQL password rotated under a running dustd (docs/REFERENCE.md §20)", .timeLimit(.minutes(2)))
struct PasswordRotationTests {
    @Test("A reload that finds a new password in storage.passwordFile says it takes effect at restart, and redacts it from then on")
    func rotationNoticed() throws {
        let directory = try TemporaryDirectory("finedust-password-rotation")
        defer { directory.remove() }
        let passwordFile = directory.path("postgres-password")
        func write(_ password: String) throws {
            try "\(password)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            chmod(passwordFile, 0o600)
        }
        let configuration = directory.path("dustd.yaml")
        try """
        station:
          name: 종로구
        storage:
          path: ""
          url: postgresql://dustd@127.0.0.1:5432/finedust?sslmode=require
          passwordFile: \(passwordFile)
        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        try write("first-password-0123")
        let settings = try SettingsLoader(environment: [:]).load(configurationFile: configuration, now: settingsLoadedAt)
        let redactor = SecretRedactor()
        // dustd's start adds the password it read (`OpenedStorage.secrets`).
        redactor.add(SecretText("first-password-0123"))
        #expect(!ReloadService.newPostgresPassword(settings, environment: [:], redactor: redactor))
        try write("second-password-4567")
        #expect(ReloadService.newPostgresPassword(settings, environment: [:], redactor: redactor))
        #expect(redactor.redacting("login with second-password-4567 failed") == "login with *** failed")
        // Said once: the next reload finds nothing new.
        #expect(!ReloadService.newPostgresPassword(settings, environment: [:], redactor: redactor))
    }
}
