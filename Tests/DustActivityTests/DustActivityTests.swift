import DustActivity
import Testing

@Suite("DustActivity")
struct DustActivityModuleTests {
    @Test("The module is linked")
    func linked() {
        #expect(String(describing: DustActivity.self) == "DustActivity")
    }
}
